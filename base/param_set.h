// ParamSet: the typed parameter space of the platform.
//
// Every configurable value is declared once, by the unit that owns it, with a dotted key path
// (e.g. "hbm.tRCD_cycles"), a pointer to the typed field that holds it, its valid range and a doc
// string that gives its unit. The YAML loader and `--set key=value` both go through set(), so a
// sweep override is checked exactly like a file value. to_json() writes the resolved config.
//
// Errors (photon::Error): unknown key, value of the wrong type, value out of range or not one of
// the allowed choices; the message names the key path (and the caller adds the file).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace photon {

/// The spellings of an enumeration: the one table its configuration key, its report field and
/// its messages use. Throws nothing; lookups of a value not in the table return "?".
template <class E>
class EnumTable {
 public:
  EnumTable(std::initializer_list<std::pair<E, const char*>> rows) : rows_(rows) {}
  const char* name(E v) const {
    for (const auto& [e, n] : rows_)
      if (e == v) return n;
    return "?";
  }
  bool parse(const std::string& text, E& out) const {
    for (const auto& [e, n] : rows_)
      if (text == n) {
        out = e;
        return true;
      }
    return false;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& r : rows_) out.push_back(r.second);
    return out;
  }
  const std::vector<std::pair<E, const char*>>& rows() const { return rows_; }

 private:
  std::vector<std::pair<E, const char*>> rows_;
};

class ParamSet {
 public:
  enum class Kind { UInt, UInt32, Double, Bool, Choice, Text };

  struct Param {
    std::string path;
    Kind kind;
    void* target;
    double min = 0, max = 0;                         // UInt, UInt32 and Double: inclusive range
    std::vector<std::string> choices;                // Choice
    std::string doc;                                 // meaning and unit
    std::function<void(const std::string&)> on_set;  // Choice: e.g. apply a preset
    /// Choice of an enumeration: stores the spelling's value into / reads it from `target`
    /// (unset for a string choice, whose target is a std::string).
    std::function<void(void*, size_t)> store_choice;
    std::function<size_t(const void*)> load_choice;
    /// Text naming a file: a relative path in a YAML file is relative to that file's directory.
    bool file_path = false;
    uint64_t umin = 0, umax = 0;  // UInt, UInt32: the same range, exact (a double rounds above 2^53)
  };

  void add_uint(const std::string& path, uint64_t* v, uint64_t min, uint64_t max, std::string doc);
  void add_uint(const std::string& path, uint32_t* v, uint32_t min, uint32_t max, std::string doc);
  void add_double(const std::string& path, double* v, double min, double max, std::string doc);
  void add_bool(const std::string& path, bool* v, std::string doc);
  void add_choice(const std::string& path, std::string* v, std::vector<std::string> choices, std::string doc,
                  std::function<void(const std::string&)> on_set = {});
  void add_text(const std::string& path, std::string* v, std::string doc);
  /// Text naming a file ("" allowed): load_params resolves a relative path given in a YAML file
  /// against the file's directory (a --set value stays relative to the working directory).
  void add_file_path(const std::string& path, std::string* v, std::string doc);
  /// A choice stored as an enumeration, spelled as `table` says (EnumTable: one table per enum).
  template <class E>
  void add_enum(const std::string& path, E* v, const class EnumTable<E>& table, std::string doc,
                std::function<void(const std::string&)> on_set = {});

  /// How a value was written. A YAML file says whether a scalar was quoted; `--set key=value`
  /// text has no quotes to tell (Untyped). Missing: a YAML key without a value (`key:`).
  enum class Style { Untyped, Plain, Quoted, Missing };
  /// Parses `text` (YAML scalar syntax: 42, 0x40, 1.5e3, true, name) for `path` and stores it.
  /// With YAML's types (YAML 1.2 core schema): a Quoted scalar is a string, so a number or bool
  /// key refuses it ("12" is not 12); a Plain scalar that reads as a number or a bool is not a
  /// string, so a text key refuses it (waveform: 5). Throws Error naming the key; for a Missing
  /// value, naming what the key takes (its choices, range, or true/false).
  void set(const std::string& path, const std::string& text, Style style = Style::Untyped);
  bool has(const std::string& path) const { return params_.count(path) != 0; }
  const Param& param(const std::string& path) const;
  /// Current value as JSON (number, bool or string).
  nlohmann::json value(const std::string& path) const;
  /// Nested JSON object of every parameter's current value ("a.b.c" -> {"a":{"b":{"c":v}}}).
  nlohmann::json to_json() const;
  /// Every parameter in path order (for docs and `photon config --list`).
  const std::map<std::string, Param>& params() const { return params_; }

 private:
  void add(Param p);
  std::map<std::string, Param> params_;
};

template <class E>
void ParamSet::add_enum(const std::string& path, E* v, const EnumTable<E>& table, std::string doc,
                        std::function<void(const std::string&)> on_set) {
  Param p{path, Kind::Choice, v, 0, 0, table.names(), std::move(doc), std::move(on_set), {}, {}};
  p.store_choice = [&table](void* t, size_t i) { *static_cast<E*>(t) = table.rows()[i].first; };
  p.load_choice = [&table](const void* t) {
    for (size_t i = 0; i < table.rows().size(); ++i)
      if (table.rows()[i].first == *static_cast<const E*>(t)) return i;
    return size_t(0);
  };
  add(std::move(p));
}

}  // namespace photon

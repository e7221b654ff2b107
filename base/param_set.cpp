#include "base/param_set.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "base/error.h"

namespace photon {
namespace {

std::string range_text(double lo, double hi) {
  std::ostringstream os;
  os.precision(15);  // integer bounds up to 15 digits print exactly (1048576, not 1.04858e+06)
  os << "[" << lo << ", " << hi << "]";
  return os.str();
}

std::string range_text(uint64_t lo, uint64_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; }

bool parse_uint(const std::string& s, uint64_t& out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  std::string t;
  for (char c : s)
    if (c != '_') t += c;
  errno = 0;
  char* end = nullptr;
  // YAML 1.2 core schema: decimal (a leading 0 is still decimal: 010 is 10), 0x hex, 0o octal.
  const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  const bool oct = t.size() > 2 && t[0] == '0' && t[1] == 'o';
  const char* digits = t.c_str() + (oct ? 2 : 0);
  unsigned long long v = std::strtoull(digits, &end, hex ? 16 : oct ? 8 : 10);
  if (errno != 0 || end == digits) return false;
  if (*end != '\0') {
    // Allow integral floats such as 1e6.
    char* end2 = nullptr;
    double d = std::strtod(t.c_str(), &end2);
    if (*end2 != '\0' || d < 0 || d != std::floor(d) || d > 1.8e19) return false;
    out = static_cast<uint64_t>(d);
    return true;
  }
  out = v;
  return true;
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(d)) return false;
  out = d;
  return true;
}

bool parse_bool(const std::string& s, bool& out) {
  if (s == "true" || s == "True" || s == "TRUE" || s == "yes" || s == "on" || s == "1") {
    out = true;
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE" || s == "no" || s == "off" || s == "0") {
    out = false;
    return true;
  }
  return false;
}

}  // namespace

void ParamSet::add(Param p) {
  if (params_.count(p.path)) throw Error("parameter declared twice: " + p.path);
  std::string path = p.path;
  params_.emplace(path, std::move(p));
}

void ParamSet::add_uint(const std::string& path, uint64_t* v, uint64_t min, uint64_t max, std::string doc) {
  Param p{path, Kind::UInt, v, double(min), double(max), {}, std::move(doc), {}, {}, {}};
  p.umin = min;
  p.umax = max;
  add(std::move(p));
}

void ParamSet::add_uint(const std::string& path, uint32_t* v, uint32_t min, uint32_t max, std::string doc) {
  Param p{path, Kind::UInt32, v, double(min), double(max), {}, std::move(doc), {}, {}, {}};
  p.umin = min;
  p.umax = max;
  add(std::move(p));
}

void ParamSet::add_double(const std::string& path, double* v, double min, double max, std::string doc) {
  add(Param{path, Kind::Double, v, min, max, {}, std::move(doc), {}, {}, {}});
}

void ParamSet::add_bool(const std::string& path, bool* v, std::string doc) {
  add(Param{path, Kind::Bool, v, 0, 1, {}, std::move(doc), {}, {}, {}});
}

void ParamSet::add_choice(const std::string& path, std::string* v, std::vector<std::string> choices,
                          std::string doc, std::function<void(const std::string&)> on_set) {
  add(Param{path, Kind::Choice, v, 0, 0, std::move(choices), std::move(doc), std::move(on_set), {}, {}});
}

void ParamSet::add_text(const std::string& path, std::string* v, std::string doc) {
  add(Param{path, Kind::Text, v, 0, 0, {}, std::move(doc), {}, {}, {}});
}

void ParamSet::add_file_path(const std::string& path, std::string* v, std::string doc) {
  Param p{path, Kind::Text, v, 0, 0, {}, std::move(doc), {}, {}, {}};
  p.file_path = true;
  add(std::move(p));
}

const ParamSet::Param& ParamSet::param(const std::string& path) const {
  auto it = params_.find(path);
  if (it == params_.end()) throw Error("unknown configuration key '" + path + "'");
  return it->second;
}

void ParamSet::set(const std::string& path, const std::string& text, Style style) {
  const Param& p = param(path);
  if (style == Style::Missing) {
    std::string expected;
    switch (p.kind) {
      case Kind::UInt:
      case Kind::UInt32: expected = "a non-negative integer in " + range_text(p.umin, p.umax); break;
      case Kind::Double: expected = "a number in " + range_text(p.min, p.max); break;
      case Kind::Bool: expected = "true or false"; break;
      case Kind::Choice:
        expected = "one of: ";
        for (size_t i = 0; i < p.choices.size(); ++i) expected += (i ? ", " : "") + p.choices[i];
        break;
      case Kind::Text: expected = "a string (\"\" for none)"; break;
    }
    throw Error(path + ": missing value; expected " + expected);
  }
  const bool typed = p.kind == Kind::UInt || p.kind == Kind::UInt32 || p.kind == Kind::Double || p.kind == Kind::Bool;
  if (typed && style == Style::Quoted)
    throw Error(path + ": expected " + (p.kind == Kind::Bool ? "true or false" : "a number") + ", got the string \"" +
                text + "\" (quoted in YAML; write it without quotes)");
  if (p.kind == Kind::Text && style == Style::Plain) {
    uint64_t u;
    double d;
    bool b;
    if (parse_uint(text, u) || parse_double(text, d) || parse_bool(text, b))
      throw Error(path + ": expected a string, got the YAML " +
                  (parse_bool(text, b) && !parse_double(text, d) ? "bool " : "number ") + text + " (quote it: \"" +
                  text + "\")");
  }
  switch (p.kind) {
    case Kind::UInt:
    case Kind::UInt32: {
      uint64_t v;
      if (!parse_uint(text, v)) throw Error(path + ": expected a non-negative integer, got '" + text + "'");
      if (v < p.umin || v > p.umax)
        throw Error(path + ": value " + text + " out of range " + range_text(p.umin, p.umax));
      if (p.kind == Kind::UInt32)
        *static_cast<uint32_t*>(p.target) = static_cast<uint32_t>(v);
      else
        *static_cast<uint64_t*>(p.target) = v;
      break;
    }
    case Kind::Double: {
      double v;
      if (!parse_double(text, v)) throw Error(path + ": expected a number, got '" + text + "'");
      if (v < p.min || v > p.max)
        throw Error(path + ": value " + text + " out of range " + range_text(p.min, p.max));
      *static_cast<double*>(p.target) = v;
      break;
    }
    case Kind::Bool: {
      bool v;
      if (!parse_bool(text, v)) throw Error(path + ": expected true or false, got '" + text + "'");
      *static_cast<bool*>(p.target) = v;
      break;
    }
    case Kind::Choice: {
      size_t index = p.choices.size();
      std::string all;
      for (size_t i = 0; i < p.choices.size(); ++i) {
        if (p.choices[i] == text) index = i;
        all += (all.empty() ? "" : ", ") + p.choices[i];
      }
      if (index == p.choices.size()) throw Error(path + ": '" + text + "' is not one of: " + all);
      if (p.store_choice)
        p.store_choice(p.target, index);
      else
        *static_cast<std::string*>(p.target) = text;
      if (p.on_set) p.on_set(text);
      break;
    }
    case Kind::Text: *static_cast<std::string*>(p.target) = text; break;
  }
}

nlohmann::json ParamSet::value(const std::string& path) const {
  const Param& p = param(path);
  switch (p.kind) {
    case Kind::UInt: return *static_cast<const uint64_t*>(p.target);
    case Kind::UInt32: return *static_cast<const uint32_t*>(p.target);
    case Kind::Double: return *static_cast<const double*>(p.target);
    case Kind::Bool: return *static_cast<const bool*>(p.target);
    case Kind::Choice:
      if (p.load_choice) return p.choices[p.load_choice(p.target)];
      return *static_cast<const std::string*>(p.target);
    case Kind::Text: return *static_cast<const std::string*>(p.target);
  }
  return nullptr;
}

nlohmann::json ParamSet::to_json() const {
  nlohmann::json root = nlohmann::json::object();
  for (const auto& [path, p] : params_) {
    nlohmann::json* node = &root;
    size_t start = 0;
    while (true) {
      size_t dot = path.find('.', start);
      std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos) {
        (*node)[part] = value(path);
        break;
      }
      node = &(*node)[part];
      start = dot + 1;
    }
  }
  return root;
}

}  // namespace photon

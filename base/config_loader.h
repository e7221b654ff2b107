// Configuration loading for any aggregate of config sections.
//
// A configuration aggregate is a plain struct of section structs (one per unit or subsystem) that
// names its sections once, in a static member:
//
//   struct MyConfig {
//     HbmConfig hbm; DmaConfig dma;
//     template <class Self, class F> static void sections(Self& self, F&& f) {
//       f("hbm", self.hbm); f("dma", self.dma);
//     }
//     void validate() const;   // cross-section checks, after every section's own validate()
//   };
//
// Each section declares its keys with `void declare(ParamSet&, const std::string& prefix)` and may
// have `void validate() const`. bind_params() binds a ParamSet to one object's fields;
// load_config() applies a YAML file and then "a.b.c=value" overrides (keys ending in ".preset"
// first, so explicit keys win over a preset), then validates. A file-path key
// (ParamSet::add_file_path) given in a YAML file is resolved against that file's directory.
// Copying an aggregate copies plain data: nothing lists the sections a second time.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/param_set.h"

namespace photon {

/// Applies the YAML file `yaml_path` (may be empty) and then `overrides` ("key=value") to `ps`.
/// Throws Error with context "<file>:<line>:<col>: <key>" or "--set <key>": unknown key, wrong
/// type, out of range, a section given as a value, a key given twice, invalid YAML.
void load_params(ParamSet& ps, const std::string& yaml_path, const std::vector<std::string>& overrides);

/// Applies one "a.b.c=value" override to `ps`. Throws Error naming the key.
void apply_override_to(ParamSet& ps, const std::string& assignment);

namespace detail {
template <class T, class = void>
struct has_validate : std::false_type {};
template <class T>
struct has_validate<T, std::void_t<decltype(std::declval<const T&>().validate())>> : std::true_type {};
}  // namespace detail

/// The parameter registry bound to `cfg`'s fields (valid while `cfg` lives and is not moved).
template <class Cfg>
ParamSet bind_params(Cfg& cfg) {
  ParamSet ps;
  Cfg::sections(cfg, [&](const char* name, auto& section) { section.declare(ps, name); });
  return ps;
}

/// The fully resolved configuration as nested JSON (goes into every report).
template <class Cfg>
nlohmann::json config_json(const Cfg& cfg) {
  return bind_params(const_cast<Cfg&>(cfg)).to_json();  // read only: to_json() writes nothing
}

/// Every section's own validate(), then the aggregate's cross-section validate(). Throws Error
/// naming the key.
template <class Cfg>
void validate_config(const Cfg& cfg) {
  Cfg::sections(cfg, [](const char*, const auto& section) {
    if constexpr (detail::has_validate<std::decay_t<decltype(section)>>::value) section.validate();
  });
  cfg.validate();
}

/// Defaults, then the YAML file, then the overrides, then validate_config(). Throws Error.
template <class Cfg>
Cfg load_config(const std::string& yaml_path, const std::vector<std::string>& overrides) {
  Cfg cfg;
  {
    ParamSet ps = bind_params(cfg);
    load_params(ps, yaml_path, overrides);
  }
  validate_config(cfg);
  return cfg;
}

/// Applies one "a.b.c=value" override to `cfg` (not validated: call validate_config()).
template <class Cfg>
void apply_override(Cfg& cfg, const std::string& assignment) {
  ParamSet ps = bind_params(cfg);
  apply_override_to(ps, assignment);
}

}  // namespace photon

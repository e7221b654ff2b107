// RunConfig: everything one run is configured by: the platform (soc/platform_config.h) and the
// lowerings' own sections (today `fhe`: parameters HEIR programs leave implicit, bootstrapping).
// This is what `photon run`, `photon compile`, `photon config` and the report's `config` see.
#pragma once

#include <string>
#include <vector>

#include "soc/platform_config.h"
#include "workloads/config/fhe_config.h"

namespace photon {

struct RunConfig : PlatformConfig {
  FheConfig fhe;

  /// The platform's sections, then the lowerings' (one list; see base/config_loader.h).
  template <class Self, class F>
  static void sections(Self& self, F&& f) {
    PlatformConfig::sections(self, f);
    f("fhe", self.fhe);
  }
  void validate() const { PlatformConfig::validate(); }
};

/// Loads `yaml_path` (may be empty: defaults only), then the overrides, and validates.
/// Throws Error with context "<file>:<line>:<col>: <key>" or "--set <key>".
inline RunConfig load_run_config(const std::string& yaml_path, const std::vector<std::string>& overrides) {
  return load_config<RunConfig>(yaml_path, overrides);
}

}  // namespace photon

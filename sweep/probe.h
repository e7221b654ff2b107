// The probe: one tiny simulation of the base platform (a command stream of one END command) in
// a child process, to learn the shape of its report before any point runs. The sweep checks
// metric paths against it and takes the default per-unit metrics from its units.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace photon::sweep {

/// The report of an empty program on `base_config` with `sets`; `fhe` adds the HEIR-only
/// sections (as for a .mlir workload). Throws Error with the child's message when the
/// configuration does not load or the platform does not elaborate.
nlohmann::json probe_report(const std::string& base_config, const std::vector<std::string>& sets, bool fhe);

}  // namespace photon::sweep

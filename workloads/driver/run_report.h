// RunReport: the whole `photon run` report as typed fields, serialised once by to_json().
// docs/report.md gives every key; tools outside the project rely on them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/report/platform_report.h"
#include "workloads/driver/fhe_summary.h"
#include "workloads/driver/workload.h"
#include "workloads/driver/workload_info.h"

namespace photon {

/// One output tensor written by --dump-outputs.
struct DumpedOutput {
  std::string name, file;
};

struct RunReport {
  std::string status;  ///< ok, unit_error, firmware_error, deadlock, timeout
  std::string error;   ///< one line, when status is not ok
  std::string photon_version;
  std::string workload;  ///< the workload file as given
  WorkloadInfo info;
  std::string mode;  ///< timing or functional
  double simulated_time_ns = 0;
  double wall_time_s = 0;
  nlohmann::json config;  ///< the fully resolved configuration (config_json)
  std::vector<UnsupportedOp> unsupported;
  PlatformReport platform;
  std::optional<FheSummary> fhe;                     ///< FHE workloads
  std::optional<std::vector<DumpedOutput>> outputs;  ///< functional runs with --dump-outputs
  std::string outputs_note;
  nlohmann::json numerics_error;  ///< physical numerics against ideal (workloads/driver/ideal_reference.h)
  std::string numerics_error_note;

  nlohmann::json to_json() const;
};

/// The version every report names (and sweep result keys include).
constexpr const char* kPhotonVersion = "0.1.0";

/// "ok", "unit_error", "firmware_error", "deadlock", "timeout", "firmware_fault" or "watchdog".
const char* run_status_name(RunOutcome::Status s);

/// The fields every run's report has, from one simulation of `w` on `cfg`: the platform's rows,
/// status and error, photon_version, workload (= `workload_arg`, the path as given), info, mode,
/// simulated_time_ns, wall_time_s (= `wall_s`, s), config (fully resolved), unsupported, and the
/// FHE summary for HEIR workloads. `photon run` adds its outputs and numerics to it; a sweep
/// point's report is exactly this, so it equals `photon run`'s for the same configuration.
RunReport make_run_report(const Platform& platform, const RunOutcome& out, const CompiledWorkload& w,
                          const RunConfig& cfg, const std::string& workload_arg, double wall_s);

}  // namespace photon

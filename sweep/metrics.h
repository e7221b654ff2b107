// Sweep metrics: named numbers read from each run's report by a dotted path.
//
// Defaults (always collected): latency_ns = simulated_time_ns, energy_pj = energy_pj.total,
// area_mm2 = area_mm2.total, hbm_bytes_read = hbm.bytes_read, hbm_bytes_written =
// hbm.bytes_written, hbm_bandwidth_gbps = hbm.avg_bandwidth_gbps, and util_<unit> =
// units.<unit>.utilization for every unit of the report. A spec adds its own (sweep_spec.h).
//
// A path's components are separated by dots; a report key that itself contains dots (counters
// such as busy_cycles.ntt) is matched whole, longest first; a number indexes an array.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_spec.h"

namespace photon::sweep {

/// The default metrics, with util_<unit> for each name in `units` (the report's units keys).
std::vector<MetricSpec> default_metrics(const std::vector<std::string>& units);

/// Defaults followed by `extra`. Throws Error naming a metric whose name is taken.
std::vector<MetricSpec> all_metrics(const std::vector<std::string>& units,
                                    const std::vector<MetricSpec>& extra);

/// The JSON value at `path` in `report`, or nullptr when the path does not lead anywhere.
const nlohmann::json* find_path(const nlohmann::json& report, const std::string& path);

/// The number at `path` (booleans as 0/1), or nullopt when the path is missing or not a number.
std::optional<double> metric_value(const nlohmann::json& report, const std::string& path);

/// Checks each metric's path against a report of the base platform (`probe`): the path must lead
/// to a number. Paths into sections only some workloads have (fhe, workload_info, ops,
/// numerics_error, outputs) are checked only as far as `probe` has them; FHE paths whole when the
/// probe has an fhe summary (fhe.by_kind.KIND.FIELD against the fields of fhe.total). Throws Error
/// "metrics: NAME: ..." naming the first bad one and the keys that exist where it stopped.
void check_metric_paths(const std::vector<MetricSpec>& metrics, const nlohmann::json& probe);

}  // namespace photon::sweep

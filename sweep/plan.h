// SweepPlan: a spec resolved into runs (point x workload), each checked, keyed and grouped.
//
// Every point's configuration is loaded exactly as `photon run --config BASE --set k=v ...`
// loads it (load_platform_config: the same ParamSet checks, presets first), so an unknown key or
// an out-of-range value is an error naming the point and the key before anything runs. The
// constraints are evaluated on the resolved configuration (any key may appear in them, swept or
// not); points they reject are skipped and counted. A point whose configuration does not load
// is skipped too when a constraint rejects it judged on its own values over the base's (so a
// constraint can keep out the points the configuration would refuse); otherwise it is the error.
//
// A run's key is the SHA-256 of its fully resolved configuration (JSON), the workload file's
// content hash, its shapes and the photon version: equal keys are the same simulation, which is
// what --resume relies on. Runs with the same workload and the same values of the keys its
// lowering reads (workloads/driver/lowering_keys.h) share a lowering group: a worker compiles
// the workload once per group.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/design.h"
#include "sweep/sweep_spec.h"

namespace photon::sweep {

/// One simulation of the sweep.
struct PlannedRun {
  uint64_t index = 0;             ///< position in the plan
  uint64_t point = 0;             ///< design point (position in expand_design, before constraints)
  uint32_t workload = 0;          ///< index into SweepPlan::workloads
  std::string key;                ///< result key (64 hex digits)
  std::string group;              ///< lowering group (runs of one group compile to the same program)
  std::vector<std::string> sets;  ///< overrides "k=v": the spec's set, then the point's values
  nlohmann::json params = nlohmann::json::object();  ///< resolved value of each swept key
};

/// A workload of the plan, with its content hash.
struct PlannedWorkload {
  WorkloadSpec spec;
  std::string frontend;     ///< "onnx", "heir", "pcs" or "pasm"
  std::string content_sha;  ///< SHA-256 of the file
};

/// Column type of a swept key, from its configuration kind: INTEGER, REAL or TEXT.
struct ParamColumn {
  std::string key;
  std::string sql_type;
};

struct SweepPlan {
  std::string name;
  std::string spec_file;
  std::string base_config;  ///< absolute path
  std::vector<ParamColumn> params;
  std::vector<MetricSpec> metrics;
  std::vector<PlannedWorkload> workloads;
  std::vector<PlannedRun> runs;  ///< sorted by workload, then lowering group, then point
  double timeout_s = 600;
  uint64_t design_points = 0;  ///< points in the design before constraints
  uint64_t skipped = 0;        ///< points the constraints rejected
  uint64_t duplicates = 0;     ///< points whose resolved configuration repeats an earlier one
  /// SHA-256 of what makes two sweeps comparable: the base configuration resolved with the
  /// spec's set (swept keys left out), the swept keys, the workloads (name, content, shapes),
  /// the metrics and the photon version. Extending a grid keeps it; changing any of those
  /// does not.
  std::string identity;

  nlohmann::json to_json() const;
  static SweepPlan from_json(const nlohmann::json& j);
};

/// Resolves `spec` with `metrics` (defaults + the spec's, sweep/metrics.h). `progress` (optional)
/// is called with (points resolved, points in all) now and then. Throws Error naming the spec,
/// the point (its number and its values) and the key for the first bad point; an error too for
/// a bad constraint, an empty design after the constraints, or a workload file that cannot be
/// read.
SweepPlan make_plan(const SweepSpec& spec, const std::vector<MetricSpec>& metrics,
                    const std::function<void(uint64_t, uint64_t)>& progress = {});

/// "point 17 (optical_gemm.rows=64, optical_gemm.cols=32)": how errors and logs name a point.
std::string describe_point(uint64_t point, const Assignment& a);

/// The result key of a run: SHA-256 over the resolved configuration's JSON (without the keys
/// that change the wall time only, SimConfig::wall_time_only_keys), the workload's content hash,
/// its shapes and the photon version.
std::string run_key(const nlohmann::json& resolved_config, const PlannedWorkload& w);

}  // namespace photon::sweep

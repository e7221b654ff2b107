// SweepSpec: a design-space sweep as written in a spec file (YAML), checked for syntax and keys.
//
//   name: optical_sweep                    # optional, default: the file's stem
//   base: ../../configs/default.yaml       # platform configuration every point starts from
//   set: {sim.mode: timing}                # fixed overrides (optional)
//   workloads:                             # one or more; paths relative to the spec file
//     - ../../../shared/inputs/onnx/light_resnet50.onnx
//     - {file: bert.onnx, name: bert, shapes: {input_ids: 1x128}}
//   grid:                                  # cartesian product, last key varies fastest
//     optical_gemm.rows: [16, 32, 64]                      # a list of values
//     optical_gemm.cols: {from: 16, to: 128, step: 16}     # linear range (or count: N)
//     optical_gemm.wavelengths: {from: 1, to: 64, factor: 2}   # geometric range
//     optical_gemm.modulation_ghz: {from: 1, to: 20, count: 5, scale: log}
//   sample: {method: lhs, count: 50, seed: 7, parameters: {KEY: {from: 1, to: 20, scale: log} | [a, b]}}
//   points: [{KEY: value, ...}, ...]       # explicit points
//   constraints: ["optical_gemm.rows * optical_gemm.cols <= 16384"]
//   metrics: {gemm_adcs: units.optical_gemm.counters.adc_conversions}   # added to the defaults
//   timeout_s: 600                         # per run (point x workload), wall seconds
//
// The design is the cartesian product of the parts given (grid x sample x points), each point
// filtered by the constraints. Parsing checks the syntax, that every key is a configuration key
// and that no key is given twice; values are checked per point when the sweep is planned
// (sweep/plan.h), through the same ParamSet path as `--set`. Errors are photon::Error with
// "SPEC:line:col" context.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace photon::sweep {

using KeyValue = std::pair<std::string, std::string>;  ///< configuration key, value as text

struct WorkloadSpec {
  std::string name;                 ///< label in the results (default: the file's stem)
  std::string file;                 ///< absolute path
  std::vector<std::string> shapes;  ///< "NAME=1x3x224x224", as `photon run --shape`
};

/// One grid axis: a key and its values, expanded from a list or a range.
struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

/// One sampled dimension: a continuous range (linear or log; integers for integer keys) or a
/// list of choices picked uniformly.
struct SampleDim {
  std::string key;
  std::vector<std::string> choices;  ///< non-empty: pick one of these
  double from = 0, to = 0;           ///< inclusive range otherwise
  bool log = false;                  ///< sample log(value) uniformly
  bool integer = false;              ///< integer key: values rounded to integers
};

struct SampleSpec {
  std::string method;  ///< "random" (independent uniform) or "lhs" (Latin hypercube)
  uint64_t count = 0;  ///< samples
  uint64_t seed = 1;   ///< generator seed (same seed, same samples on every machine)
  std::vector<SampleDim> dims;
};

struct MetricSpec {
  std::string name;  ///< column name: [a-z_][a-z0-9_]*
  std::string path;  ///< dotted path into the report, e.g. units.optical_gemm.utilization
};

struct SweepSpec {
  std::string file;  ///< the spec file as given
  std::string name;
  std::string base_config;  ///< absolute path
  std::vector<KeyValue> set;
  std::vector<WorkloadSpec> workloads;
  std::vector<GridAxis> grid;
  std::optional<SampleSpec> sample;
  std::vector<std::vector<KeyValue>> points;
  std::vector<std::string> constraints;
  std::vector<MetricSpec> metrics;  ///< extra metrics (the defaults are in sweep/metrics.h)
  double timeout_s = 600;
  std::map<std::string, std::string> where;  ///< swept key -> "SPEC:line:col" of its entry

  /// Every swept key, in order: grid, sample, then first appearance in points.
  std::vector<std::string> swept_keys() const;
};

/// Reads and checks `path`. Throws Error naming the file, line:col and the offending entry.
SweepSpec parse_sweep_spec(const std::string& path);
/// Same, from YAML text; `path` names the file in errors and anchors relative paths.
SweepSpec parse_sweep_spec_text(const std::string& text, const std::string& path);

/// Values of a linear range from..to by `step` (inclusive, 1e-9 relative slack), or `count`
/// evenly spaced values; `integer` rounds each to the nearest integer and drops repeats.
/// Throws Error for an empty range, step <= 0 or count = 0.
std::vector<double> linear_range(double from, double to, double step, uint64_t count, bool integer);
/// Values of a geometric range: from, from*factor, ... <= to; or `count` values evenly spaced
/// in log(value). Throws Error for from <= 0, factor <= 1 or an empty range.
std::vector<double> log_range(double from, double to, double factor, uint64_t count, bool integer);
/// Shortest text that parses back to `v` (integers without a fraction): what ParamSet::set reads.
std::string format_value(double v, bool integer);

}  // namespace photon::sweep

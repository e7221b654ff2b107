// Merging result files into the database, the Pareto tables, and the summary of a sweep.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sweep/plan.h"
#include "sweep/result_db.h"

namespace photon::sweep {

/// Puts result files (DIR/results/KEY.json) of a plan's runs into the database, in
/// transactions of a few hundred rows (commit() ends one). Only the front end uses it.
class Merger {
 public:
  Merger(const std::string& dir, const SweepPlan& plan, ResultDb& db);
  ~Merger();
  /// Merges run `run`'s result file. Returns its status ("" when there is no file yet).
  std::string merge(uint64_t run);
  /// Merges every run of the plan that has a result file and no row yet. Returns how many.
  uint64_t merge_all();
  void commit();

 private:
  std::string dir_;
  const SweepPlan& plan_;
  ResultDb& db_;
  bool open_ = false;
  uint64_t pending_ = 0;
};

/// Recomputes the pareto table from the ok rows: per workload, "latency_energy" (latency_ns vs
/// energy_pj) and "latency_area" (latency_ns vs area_mm2), both minimised (sweep/pareto.h).
void update_pareto(ResultDb& db);

/// Prints the end-of-sweep summary to stdout: counts by status, and per workload and front the
/// Pareto points with their metrics and parameter values (at most `max_points` each).
void print_summary(const ResultDb& db, const SweepPlan& plan, size_t max_points = 10);

/// "1.234 ms", "56.7 us": a time in ns in readable units.
std::string format_ns(double ns);

}  // namespace photon::sweep

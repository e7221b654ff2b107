// RunResult: what one run of a sweep produced, as stored in DIR/results/KEY.json and in a row of
// the database. Written by the process that ran it (or, when that process died, by its parent);
// the front end reads it into the database.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace photon::sweep {

struct RunResult {
  std::string key;
  uint64_t run = 0;  ///< index in the plan
  /// ok | unit_error | firmware_error | deadlock (the simulation's own status, as `photon run`)
  /// | error (the configuration or workload was refused) | timeout | crashed (the process died).
  std::string status;
  std::string error;     ///< one line, empty when ok
  double wall_s = 0;     ///< elaboration + simulation + report of this run, s
  double compile_s = 0;  ///< compiling its lowering group's program (shared by the group), s
  std::map<std::string, std::optional<double>> metrics;  ///< by metric name; nullopt: not in the report
  bool has_report = false;                               ///< DIR/reports/KEY.json was written
  std::string host;                                      ///< where it ran
  std::string finished_at;                               ///< UTC, ISO 8601

  bool ok() const { return status == "ok"; }
  nlohmann::json to_json() const;
  /// Throws Error for a malformed record.
  static RunResult from_json(const nlohmann::json& j);
};

/// The current UTC time as "2024-05-01T12:00:00Z".
std::string utc_now();
/// This machine's host name.
std::string host_name();

}  // namespace photon::sweep

// ResultDb: DIR/results.sqlite (SQLite 3, libsqlite3), the sweep's table of results.
//
//   meta(key TEXT PRIMARY KEY, value TEXT)          identity, name, spec, photon_version, ...
//   results(key TEXT PRIMARY KEY,                   run key (sweep/plan.h)
//           point INTEGER, workload TEXT,           design point, workload name
//           "<swept key>" INTEGER|REAL|TEXT, ...    resolved value of each swept key
//           <metric> REAL, ...                      default and spec metrics (NULL: not reported)
//           status TEXT, error TEXT,                run status (sweep/run_result.h)
//           wall_s REAL, compile_s REAL,            s
//           report TEXT, host TEXT, finished_at TEXT)
//   pareto(front TEXT, workload TEXT, key TEXT)     non-dominated runs per front and workload
//
// One writer: only the front end opens it for writing (workers write result files). WAL journal,
// so `photon sweep status` and `export` can read while a sweep runs. SQLite errors (a full disk,
// a read-only directory) are one Error naming the file and SQLite's message.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/plan.h"
#include "sweep/run_result.h"

struct sqlite3;

namespace photon::sweep {

/// A query's result: column names and rows of JSON values (number, text or null).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;
  /// Index of `column`, or -1.
  int column(const std::string& name) const;
};

class ResultDb {
 public:
  /// Opens (creating when `create`) the database at `path`. Throws Error naming it.
  ResultDb(const std::string& path, bool create, bool readonly = false);
  ~ResultDb();
  ResultDb(const ResultDb&) = delete;
  ResultDb& operator=(const ResultDb&) = delete;

  /// Creates the tables for `plan` when they do not exist and records its meta values.
  void init(const SweepPlan& plan, const std::string& spec_text);
  std::optional<std::string> meta(const std::string& key) const;
  void set_meta(const std::string& key, const std::string& value);
  bool has_results_table() const;

  void begin();
  void commit();

  /// Inserts or replaces the row of `result`, the result of `run` of `plan` (which gives its
  /// point, workload and parameter values). Throws Error when the keys differ.
  void put(const SweepPlan& plan, const PlannedRun& run, const RunResult& result);
  /// Keys with a row; `ok_only`: only rows whose status is ok.
  std::set<std::string> keys(bool ok_only) const;
  /// Status counts over all rows.
  std::map<std::string, uint64_t> status_counts() const;

  /// SELECT `sql` (a whole statement). Throws Error with SQLite's message.
  Table query(const std::string& sql) const;
  /// Every row of results, ordered by workload and point.
  Table results() const;

  /// Replaces the pareto table's rows of `front`: workload -> keys.
  void set_pareto(const std::string& front, const std::map<std::string, std::vector<std::string>>& keys);

  const std::string& path() const { return path_; }

 private:
  void exec(const std::string& sql);
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_;
  sqlite3* db_ = nullptr;
};

/// A double-quoted SQL identifier ("optical_gemm.rows").
std::string sql_ident(const std::string& name);

}  // namespace photon::sweep

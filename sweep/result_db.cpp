#include "sweep/result_db.h"

#include <sqlite3.h>

#include "base/error.h"
#include "sweep/files.h"

namespace photon::sweep {

namespace {

/// A prepared statement, finalized on scope exit.
struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

void bind_json(sqlite3_stmt* s, int i, const nlohmann::json& v) {
  if (v.is_null())
    sqlite3_bind_null(s, i);
  else if (v.is_boolean())
    sqlite3_bind_int64(s, i, v.get<bool>() ? 1 : 0);
  else if (v.is_number_integer() || v.is_number_unsigned())
    sqlite3_bind_int64(s, i, v.get<int64_t>());
  else if (v.is_number())
    sqlite3_bind_double(s, i, v.get<double>());
  else {
    const std::string t = v.is_string() ? v.get<std::string>() : v.dump();
    sqlite3_bind_text(s, i, t.c_str(), int(t.size()), SQLITE_TRANSIENT);
  }
}

}  // namespace

std::string sql_ident(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

int Table::column(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return int(i);
  return -1;
}

ResultDb::ResultDb(const std::string& path, bool create, bool readonly) : path_(path) {
  const int flags =
      readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0));
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "cannot open";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open the results database: " + msg).with_context(path);
  }
  sqlite3_busy_timeout(db_, 10000);
  if (!readonly) {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
  }
}

ResultDb::~ResultDb() { sqlite3_close(db_); }

void ResultDb::fail(const std::string& what) const {
  throw Error(what + ": " + sqlite3_errmsg(db_)).with_context(path_);
}

void ResultDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw Error(msg).with_context(path_);
  }
}

bool ResultDb::has_results_table() const {
  return !query("SELECT name FROM sqlite_master WHERE type='table' AND name='results'").rows.empty();
}

void ResultDb::init(const SweepPlan& plan, const std::string& spec_text) {
  exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  std::string cols = "key TEXT PRIMARY KEY, point INTEGER NOT NULL, workload TEXT NOT NULL";
  for (const auto& p : plan.params) cols += ", " + sql_ident(p.key) + " " + p.sql_type;
  for (const auto& m : plan.metrics) cols += ", " + sql_ident(m.name) + " REAL";
  cols +=
      ", status TEXT NOT NULL, error TEXT, wall_s REAL, compile_s REAL, report TEXT, host TEXT, finished_at "
      "TEXT";
  exec("CREATE TABLE IF NOT EXISTS results (" + cols + ")");
  exec(
      "CREATE TABLE IF NOT EXISTS pareto (front TEXT NOT NULL, workload TEXT NOT NULL, key TEXT NOT NULL, "
      "PRIMARY KEY (front, key))");
  begin();
  set_meta("identity", plan.identity);
  set_meta("name", plan.name);
  set_meta("spec_file", plan.spec_file);
  set_meta("spec", spec_text);
  set_meta("photon_version", plan.to_json().at("photon_version"));
  // For readers of the table (the plotting script): which columns are parameters and metrics.
  nlohmann::json params = nlohmann::json::array(), metrics = nlohmann::json::array();
  for (const auto& p : plan.params) params.push_back(p.key);
  for (const auto& m : plan.metrics) metrics.push_back({{"name", m.name}, {"path", m.path}});
  set_meta("params", params.dump());
  set_meta("metrics", metrics.dump());
  commit();
}

std::optional<std::string> ResultDb::meta(const std::string& key) const {
  if (query("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'").rows.empty())
    return std::nullopt;
  Stmt st;
  if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key = ?", -1, &st.s, nullptr) != SQLITE_OK)
    fail("reading meta");
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) == SQLITE_ROW)
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0)));
  return std::nullopt;
}

void ResultDb::set_meta(const std::string& key, const std::string& value) {
  Stmt st;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", -1, &st.s, nullptr) !=
      SQLITE_OK)
    fail("writing meta");
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, value.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE) fail("writing meta");
}

void ResultDb::begin() { exec("BEGIN IMMEDIATE"); }
void ResultDb::commit() { exec("COMMIT"); }

void ResultDb::put(const SweepPlan& plan, const PlannedRun& run, const RunResult& r) {
  if (run.key != r.key)
    throw Error("result " + r.key + " is not the result of run " + run.key).with_context(path_);
  std::string names = "key, point, workload", marks = "?, ?, ?";
  for (const auto& p : plan.params) names += ", " + sql_ident(p.key), marks += ", ?";
  for (const auto& m : plan.metrics) names += ", " + sql_ident(m.name), marks += ", ?";
  names += ", status, error, wall_s, compile_s, report, host, finished_at";
  marks += ", ?, ?, ?, ?, ?, ?, ?";
  Stmt st;
  if (sqlite3_prepare_v2(db_,
                         ("INSERT OR REPLACE INTO results (" + names + ") VALUES (" + marks + ")").c_str(),
                         -1, &st.s, nullptr) != SQLITE_OK)
    fail("preparing the insert");
  int i = 1;
  bind_json(st.s, i++, r.key);
  bind_json(st.s, i++, run.point);
  bind_json(st.s, i++, plan.workloads[run.workload].spec.name);
  for (const auto& p : plan.params)
    bind_json(st.s, i++, run.params.contains(p.key) ? run.params[p.key] : nullptr);
  for (const auto& m : plan.metrics) {
    auto it = r.metrics.find(m.name);
    if (it != r.metrics.end() && it->second)
      sqlite3_bind_double(st.s, i++, *it->second);
    else
      sqlite3_bind_null(st.s, i++);
  }
  bind_json(st.s, i++, r.status);
  bind_json(st.s, i++, r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error));
  bind_json(st.s, i++, r.wall_s);
  bind_json(st.s, i++, r.compile_s);
  bind_json(st.s, i++, r.has_report ? nlohmann::json(report_relpath(r.key)) : nlohmann::json(nullptr));
  bind_json(st.s, i++, r.host);
  bind_json(st.s, i++, r.finished_at);
  if (sqlite3_step(st.s) != SQLITE_DONE) fail("writing the result of run " + std::to_string(r.run));
}

std::set<std::string> ResultDb::keys(bool ok_only) const {
  std::set<std::string> out;
  for (const auto& row :
       query(ok_only ? "SELECT key FROM results WHERE status = 'ok'" : "SELECT key FROM results").rows)
    out.insert(row[0].get<std::string>());
  return out;
}

std::map<std::string, uint64_t> ResultDb::status_counts() const {
  std::map<std::string, uint64_t> out;
  for (const auto& row : query("SELECT status, COUNT(*) FROM results GROUP BY status").rows)
    out[row[0].get<std::string>()] = row[1].get<uint64_t>();
  return out;
}

Table ResultDb::query(const std::string& sql) const {
  Stmt st;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) fail("query");
  Table t;
  const int n = sqlite3_column_count(st.s);
  for (int c = 0; c < n; ++c) t.columns.push_back(sqlite3_column_name(st.s, c));
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    std::vector<nlohmann::json> row;
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(st.s, c)) {
        case SQLITE_INTEGER: row.emplace_back(int64_t(sqlite3_column_int64(st.s, c))); break;
        case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(st.s, c)); break;
        case SQLITE_NULL: row.emplace_back(nullptr); break;
        default:
          row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st.s, c))));
          break;
      }
    }
    t.rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) fail("query");
  return t;
}

Table ResultDb::results() const { return query("SELECT * FROM results ORDER BY workload, point"); }

void ResultDb::set_pareto(const std::string& front,
                          const std::map<std::string, std::vector<std::string>>& keys) {
  Stmt del;
  if (sqlite3_prepare_v2(db_, "DELETE FROM pareto WHERE front = ?", -1, &del.s, nullptr) != SQLITE_OK)
    fail("pareto");
  sqlite3_bind_text(del.s, 1, front.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(del.s) != SQLITE_DONE) fail("pareto");
  for (const auto& [workload, ks] : keys)
    for (const auto& k : ks) {
      Stmt ins;
      if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO pareto (front, workload, key) VALUES (?, ?, ?)", -1,
                             &ins.s, nullptr) != SQLITE_OK)
        fail("pareto");
      sqlite3_bind_text(ins.s, 1, front.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins.s, 2, workload.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins.s, 3, k.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(ins.s) != SQLITE_DONE) fail("pareto");
    }
}

}  // namespace photon::sweep

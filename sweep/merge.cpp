#include "sweep/merge.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "sweep/files.h"
#include "sweep/pareto.h"
#include "sweep/run_result.h"

namespace photon::sweep {

namespace fs = std::filesystem;

Merger::Merger(const std::string& dir, const SweepPlan& plan, ResultDb& db)
    : dir_(dir), plan_(plan), db_(db) {}

Merger::~Merger() {
  try {
    commit();
  } catch (const Error&) {}
}

std::string Merger::merge(uint64_t run) {
  const PlannedRun& r = plan_.runs.at(run);
  const std::string path = result_path(dir_, r.key);
  std::error_code ec;
  if (!fs::exists(path, ec)) return "";
  const RunResult res = with_error_context(path, [&] { return RunResult::from_json(read_json(path)); });
  if (!open_) {
    db_.begin();
    open_ = true;
  }
  db_.put(plan_, r, res);
  if (++pending_ >= 256) commit();
  return res.status;
}

uint64_t Merger::merge_all() {
  const std::set<std::string> have = db_.keys(false);
  uint64_t n = 0;
  for (const auto& r : plan_.runs)
    if (!have.count(r.key) && !merge(r.index).empty()) ++n;
  commit();
  return n;
}

void Merger::commit() {
  if (open_) {
    db_.commit();
    open_ = false;
    pending_ = 0;
  }
}

void update_pareto(ResultDb& db) {
  const Table t =
      db.query("SELECT workload, key, latency_ns, energy_pj, area_mm2 FROM results WHERE status = 'ok'");
  std::map<std::string, std::vector<size_t>> rows;  // workload -> row indices
  for (size_t i = 0; i < t.rows.size(); ++i) rows[t.rows[i][0].get<std::string>()].push_back(i);
  auto num = [](const nlohmann::json& v) {
    return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
  };
  for (const auto& [front, col] :
       std::vector<std::pair<std::string, size_t>>{{"latency_energy", 3}, {"latency_area", 4}}) {
    std::map<std::string, std::vector<std::string>> keys;
    for (const auto& [w, idx] : rows) {
      std::vector<std::pair<double, double>> pts;
      for (size_t i : idx) pts.push_back({num(t.rows[i][2]), num(t.rows[i][col])});
      for (size_t k : pareto_front(pts)) keys[w].push_back(t.rows[idx[k]][1].get<std::string>());
    }
    db.begin();
    db.set_pareto(front, keys);
    db.commit();
  }
}

std::string format_ns(double ns) {
  if (ns >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.1f} ns", ns);
}

namespace {

std::string format_pj(double pj) {
  if (pj >= 1e12) return fmt::format("{:.3f} J", pj / 1e12);
  if (pj >= 1e9) return fmt::format("{:.3f} mJ", pj / 1e9);
  if (pj >= 1e6) return fmt::format("{:.3f} uJ", pj / 1e6);
  if (pj >= 1e3) return fmt::format("{:.3f} nJ", pj / 1e3);
  return fmt::format("{:.1f} pJ", pj);
}

std::string text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

}  // namespace

void print_summary(const ResultDb& db, const SweepPlan& plan, size_t max_points) {
  const auto counts = db.status_counts();
  uint64_t rows = 0, ok = 0;
  std::string failed;
  for (const auto& [s, n] : counts) {
    rows += n;
    if (s == "ok")
      ok = n;
    else
      failed += (failed.empty() ? "" : ", ") + std::to_string(n) + " " + s;
  }
  std::set<std::string> in_plan;
  for (const auto& r : plan.runs) in_plan.insert(r.key);
  uint64_t planned_done = 0;
  for (const auto& k : db.keys(false)) planned_done += in_plan.count(k);
  std::printf(
      "sweep %s: %zu runs (%llu design points, %llu skipped by constraints, %zu workload%s); "
      "%llu ok%s%s\n",
      plan.name.c_str(), plan.runs.size(), (unsigned long long)plan.design_points,
      (unsigned long long)plan.skipped, plan.workloads.size(), plan.workloads.size() == 1 ? "" : "s",
      (unsigned long long)ok, failed.empty() ? "" : ", ", failed.c_str());
  if (planned_done < plan.runs.size())
    std::printf("  %llu runs have no result yet\n", (unsigned long long)(plan.runs.size() - planned_done));
  if (rows > planned_done)
    std::printf("  (the database also holds %llu results of earlier plans of this sweep)\n",
                (unsigned long long)(rows - planned_done));
  std::string params;
  for (const auto& p : plan.params) params += ", r." + sql_ident(p.key);
  for (const auto& [front, y, label] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"latency_energy", "energy_pj", "latency vs energy"},
           {"latency_area", "area_mm2", "latency vs area"}}) {
    const Table t = db.query("SELECT r.workload, r.latency_ns, r.energy_pj, r.area_mm2" + params +
                             " FROM results r JOIN pareto p ON p.key = r.key AND p.front = '" + front +
                             "' ORDER BY r.workload, r.latency_ns, r." + y);
    std::map<std::string, std::vector<size_t>> by_w;
    for (size_t i = 0; i < t.rows.size(); ++i) by_w[t.rows[i][0].get<std::string>()].push_back(i);
    for (const auto& [w, idx] : by_w) {
      std::printf("  %s: %zu Pareto point%s, %s:\n", w.c_str(), idx.size(), idx.size() == 1 ? "" : "s",
                  label.c_str());
      for (size_t k = 0; k < idx.size() && k < max_points; ++k) {
        const auto& row = t.rows[idx[k]];
        std::string vals;
        for (size_t c = 4; c < row.size(); ++c)
          vals += (c > 4 ? " " : "") + t.columns[c] + "=" + text(row[c]);
        std::printf(
            "    %11s %11s %9s mm2  %s\n", row[1].is_number() ? format_ns(row[1].get<double>()).c_str() : "-",
            row[2].is_number() ? format_pj(row[2].get<double>()).c_str() : "-",
            row[3].is_number() ? fmt::format("{:.2f}", row[3].get<double>()).c_str() : "-", vals.c_str());
      }
      if (idx.size() > max_points)
        std::printf("    ... (%zu more: photon sweep export)\n", idx.size() - max_points);
    }
  }
}

}  // namespace photon::sweep

#include "sweep/sweep_run.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/error.h"
#include "sweep/backend.h"
#include "sweep/files.h"
#include "sweep/merge.h"
#include "sweep/metrics.h"
#include "sweep/plan.h"
#include "sweep/probe.h"
#include "sweep/progress.h"
#include "sweep/result_db.h"
#include "sweep/run_result.h"
#include "sweep/sweep_spec.h"
#include "sweep/worker.h"
#include "workloads/driver/workload.h"

namespace photon::sweep {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted = true; }

/// SIGINT and SIGTERM set a flag while the object lives (the sweep stops cleanly).
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

std::string db_path(const std::string& dir) { return (fs::path(dir) / "results.sqlite").string(); }
std::string plan_path(const std::string& dir) { return (fs::path(dir) / "plan.json").string(); }

SweepPlan load_plan(const std::string& dir) {
  const std::string p = plan_path(dir);
  std::error_code ec;
  if (!fs::exists(p, ec)) throw Error("no sweep here (no plan.json)").with_context(dir);
  return with_error_context(p, [&] { return SweepPlan::from_json(read_json(p)); });
}

/// Removes what a sweep wrote in `dir` (only its own files and folders).
void clear_sweep_dir(const std::string& dir) {
  std::error_code ec;
  for (const char* f :
       {"results.sqlite", "results.sqlite-wal", "results.sqlite-shm", "plan.json", "spec.yaml"})
    fs::remove(fs::path(dir) / f, ec);
  for (const char* d : {"results", "reports", "logs", "slurm", "plots", "cache"})
    fs::remove_all(fs::path(dir) / d, ec);
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

unsigned default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)) > 0 ? unsigned(sysconf(_SC_NPROCESSORS_ONLN)) : 1u;
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the photon executable (/proc/self/exe): " + ec.message());
  return p.string();
}

int run_sweep(const SweepOptions& o) {
  const SweepSpec spec = parse_sweep_spec(o.spec);
  const std::string dir = o.out.empty() ? spec.name + ".sweep" : o.out;
  if (o.backend != "local" && o.backend != "slurm")
    throw Error("--backend: expected local or slurm, got '" + o.backend + "'");
  if (o.retry_failed && !o.resume) throw Error("--retry-failed needs --resume");

  // Everything about the spec is checked before the directory is touched.
  std::vector<std::string> base_sets;
  for (const auto& [k, v] : spec.set) base_sets.push_back(k + "=" + v);
  bool any_heir = false;
  for (const auto& w : spec.workloads) any_heir = any_heir || fs::path(w.file).extension() == ".mlir";
  const nlohmann::json probe = with_error_context(spec.file, [&] {
    return with_error_context("base", [&] { return probe_report(spec.base_config, base_sets, any_heir); });
  });
  std::vector<std::string> units;
  for (const auto& [u, _] : probe.at("units").items()) units.push_back(u);
  const std::vector<MetricSpec> metrics =
      with_error_context(spec.file, [&] { return all_metrics(units, spec.metrics); });
  with_error_context(spec.file, [&] { check_metric_paths(metrics, probe); });
  const bool tty = ::isatty(2) && !o.quiet;
  const SweepPlan plan = make_plan(spec, metrics, [&](uint64_t i, uint64_t n) {
    if (tty && n > 200)
      std::fprintf(stderr, "\r\033[Kphoton sweep: checking point %llu of %llu", (unsigned long long)i,
                   (unsigned long long)n);
  });
  if (tty && plan.design_points > 200) std::fprintf(stderr, "\r\033[K");
  // Each workload read once by its frontend (not lowered: that depends on the point), so a
  // malformed model or a shape that names no input is refused before any run.
  for (const auto& w : spec.workloads)
    with_error_context(spec.file, [&] {
      with_error_context("workloads: " + w.name, [&] {
        CompileOptions copts;
        for (const auto& s : w.shapes) copts.shapes.insert(parse_shape_arg(s));
        check_workload(w.file, copts);
      });
    });

  // The directory: another sweep's results are refused unless --force.
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error("exists and is not a directory").with_context(dir);
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create the directory: " + ec.message()).with_context(dir);
  DirLock lock(dir);
  if (fs::exists(db_path(dir), ec) && !o.force) {
    ResultDb old(db_path(dir), false, true);
    const auto id = old.meta("identity");
    if (id && *id != plan.identity)
      throw Error(
          "holds the results of another sweep (its base configuration, parameters, workloads, metrics or "
          "photon version differ); --force replaces them, or choose another --out")
          .with_context(dir);
    if (!o.resume && old.has_results_table())
      throw Error("already holds this sweep's results; --resume continues it, --force starts it over")
          .with_context(dir);
    if (const auto job = old.meta("slurm_job"); job && !slurm_job_state(*job).empty())
      throw Error("Slurm job " + *job +
                  " of this sweep is still queued; wait for it (photon sweep status) or scancel it")
          .with_context(dir);
  }
  if (o.force) clear_sweep_dir(dir);
  prepare_sweep_dir(dir);
  fs::remove_all(fs::path(dir) / "cache", ec);  // calibrations of an earlier photon binary are not reused
  write_atomic(plan_path(dir), plan.to_json().dump() + "\n");
  const std::string spec_text = read_text(spec.file);
  write_atomic((fs::path(dir) / "spec.yaml").string(), spec_text);
  ResultDb db(db_path(dir), true);
  db.init(plan, spec_text);
  Merger merger(dir, plan, db);
  merger.merge_all();

  std::set<std::string> have = db.keys(false);
  if (o.retry_failed) {
    const std::set<std::string> ok = db.keys(true);
    for (const auto& k : have)
      if (!ok.count(k)) fs::remove(result_path(dir, k), ec);
    have = ok;
  }
  std::vector<uint64_t> todo;
  for (const auto& r : plan.runs)
    if (!have.count(r.key)) todo.push_back(r.index);

  ProgressCounts counts;
  counts.total = todo.size();
  SweepProgress progress(tty, o.quiet);
  double last_commit = now_s();
  BackendEvents ev;
  ev.finished = [&](uint64_t run) {
    const std::string status = merger.merge(run);
    if (status.empty()) return;
    ++counts.done;
    if (status != "ok") ++counts.failed;
  };
  ev.tick = [&](uint64_t running) {
    counts.running = running;
    progress.update(counts);
    if (now_s() - last_commit > 1.0) {
      merger.commit();
      last_commit = now_s();
    }
  };
  ev.interrupted = [] { return g_interrupted.load(); };
  const double t0 = now_s();
  {
    InterruptGuard guard;
    if (!o.quiet && !todo.empty())
      std::fprintf(stderr, "photon sweep: %zu runs to do (%zu already have results) in %s\n", todo.size(),
                   plan.runs.size() - todo.size(), dir.c_str());
    if (todo.empty()) {
    } else if (o.backend == "local") {
      LocalOptions lo{dir, o.jobs ? o.jobs : default_jobs(), self_exe()};
      run_local(plan, todo, lo, ev);
    } else {
      SlurmOptions so{dir, self_exe(), o.slurm_args, o.slurm_tasks, !o.no_wait};
      const std::string job = submit_slurm(plan, todo, so);
      db.set_meta("slurm_job", job);
      if (!o.quiet) std::fprintf(stderr, "photon sweep: submitted Slurm job %s\n", job.c_str());
      if (!o.no_wait) wait_slurm(plan, todo, so, job, ev);
    }
    progress.clear();
  }
  merger.merge_all();
  update_pareto(db);
  const bool interrupted = g_interrupted.load();
  if (!o.quiet && !(o.backend == "slurm" && o.no_wait)) {
    print_summary(db, plan);
    std::printf("  results in %s (%.1f s wall); photon sweep plot %s draws them\n", db_path(dir).c_str(),
                now_s() - t0, dir.c_str());
  }
  uint64_t missing = 0;
  const std::set<std::string> now_have = db.keys(false);
  for (const auto& r : plan.runs) missing += !now_have.count(r.key);
  if (interrupted) {
    std::fprintf(stderr,
                 "photon sweep: interrupted; %llu runs still to do: photon sweep %s --out %s --resume\n",
                 (unsigned long long)missing, o.spec.c_str(), dir.c_str());
    return 130;
  }
  if (missing && !(o.backend == "slurm" && o.no_wait)) {
    std::fprintf(stderr,
                 "photon sweep: %llu runs have no result (a worker or Slurm task died); --resume runs them\n",
                 (unsigned long long)missing);
    return 1;
  }
  return 0;
}

int sweep_status(const std::string& dir) {
  const SweepPlan plan = load_plan(dir);
  std::error_code ec;
  if (!fs::exists(db_path(dir), ec)) throw Error("no results database").with_context(dir);
  const bool running = dir_locked(dir);
  std::unique_ptr<DirLock> lock;
  if (!running) {
    lock = std::make_unique<DirLock>(dir);
    ResultDb db(db_path(dir), false);
    Merger m(dir, plan, db);
    const uint64_t n = m.merge_all();
    if (n) update_pareto(db);
    if (n) std::printf("merged %llu new results\n", (unsigned long long)n);
  } else {
    std::printf("a photon sweep is running in %s (results may be a few seconds behind)\n", dir.c_str());
  }
  ResultDb db(db_path(dir), false, true);
  print_summary(db, plan);
  if (const auto job = db.meta("slurm_job")) {
    const std::string state = slurm_job_state(*job);
    std::printf("  Slurm job %s: %s\n", job->c_str(), state.empty() ? "no longer queued" : state.c_str());
  }
  return 0;
}

void sweep_export(const std::string& dir, const std::string& csv, const std::string& json) {
  if (csv.empty() && json.empty()) throw Error("export: give --csv FILE and/or --json FILE");
  std::error_code ec;
  if (!fs::exists(db_path(dir), ec)) throw Error("no results database").with_context(dir);
  ResultDb db(db_path(dir), false, true);
  const Table t = db.query(
      "SELECT r.*, EXISTS (SELECT 1 FROM pareto p WHERE p.key = r.key AND p.front = 'latency_energy') AS "
      "pareto_latency_energy, EXISTS (SELECT 1 FROM pareto p WHERE p.key = r.key AND p.front = "
      "'latency_area') AS "
      "pareto_latency_area FROM results r ORDER BY r.workload, r.point");
  if (!csv.empty()) {
    auto field = [](const nlohmann::json& v) {
      std::string s = v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump();
      if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
      std::string q = "\"";
      for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    };
    std::string out;
    for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + field(t.columns[c]);
    out += "\r\n";  // RFC 4180 line ends
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + field(row[c]);
      out += "\r\n";
    }
    write_atomic(csv, out);
  }
  if (!json.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : t.rows) {
      nlohmann::json o = nlohmann::json::object();
      for (size_t c = 0; c < row.size(); ++c) o[t.columns[c]] = row[c];
      rows.push_back(o);
    }
    write_atomic(json, rows.dump(1) + "\n");
  }
}

int sweep_worker(const std::string& dir, const std::string& runs, int64_t slice, bool notify) {
  const SweepPlan plan = load_plan(dir);
  WorkerOptions wo;
  wo.dir = dir;
  wo.notify_fd = notify ? 1 : -1;
  wo.runs = slice >= 0 ? slurm_slice(plan, dir, uint64_t(slice)) : parse_index_list(runs, plan.runs.size());
  return run_worker(plan, wo);
}

}  // namespace photon::sweep

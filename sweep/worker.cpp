#include "sweep/worker.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "base/error.h"
#include "models/hbm/hbm_calibration.h"
#include "soc/platform.h"
#include "sweep/content_hash.h"
#include "sweep/files.h"
#include "sweep/metrics.h"
#include "sweep/run_result.h"
#include "workloads/config/run_config.h"
#include "workloads/driver/run_report.h"
#include "workloads/driver/workload.h"

namespace photon::sweep {

namespace fs = std::filesystem;

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void notify(int fd, const char* what, uint64_t run) {
  if (fd < 0) return;
  const std::string line = std::string(what) + " " + std::to_string(run) + "\n";
  ssize_t n;
  do n = ::write(fd, line.data(), line.size());
  while (n < 0 && errno == EINTR);
}

std::string log_path(const std::string& dir, const std::string& key) {
  return (fs::path(dir) / "logs" / (key + ".log")).string();
}

/// Where a run's child leaves the HBM calibrations it made, for its worker to keep.
std::string memo_path(const std::string& dir, const std::string& key) {
  return (fs::path(dir) / "logs" / (key + ".hbm_calibrations.json")).string();
}

/// The last non-empty line of a file (a failed run's stderr), at most 400 characters.
std::string last_line(const std::string& path) {
  std::string text;
  try {
    text = read_text(path);
  } catch (const Error&) { return ""; }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const size_t nl = text.rfind('\n');
  std::string line = nl == std::string::npos ? text : text.substr(nl + 1);
  if (line.size() > 400) line = line.substr(0, 400) + "...";
  return line;
}

RunResult base_result(const PlannedRun& run) {
  RunResult r;
  r.key = run.key;
  r.run = run.index;
  r.host = host_name();
  return r;
}

/// In the child: elaborate, simulate, write the report and the result. Exit code 0 when the
/// result is written, 3 when it could not be (the reason is on stderr).
int simulate(const std::string& dir, const SweepPlan& plan, const PlannedRun& run, const RunConfig& cfg,
             const CompiledWorkload& w, double compile_s) {
  const double t0 = now_s();
  RunResult r = base_result(run);
  r.compile_s = compile_s;
  const size_t memo_mark = HbmCalibrationMemo::instance().size();
  try {
    Platform platform(cfg);
    platform.load(w.program, w.fills);
    const RunOutcome out = platform.run();
    r.wall_s = now_s() - t0;
    const nlohmann::json report =
        make_run_report(platform, out, w, cfg, plan.workloads[run.workload].spec.file, r.wall_s).to_json();
    r.status = run_status_name(out.status);
    r.error = out.message;
    for (const auto& m : plan.metrics) r.metrics[m.name] = metric_value(report, m.path);
    write_atomic(report_path(dir, run.key), report.dump(1) + "\n");
    r.has_report = true;
  } catch (const Error& e) {
    r.status = "error";
    r.error = e.what();
  } catch (const std::exception& e) {
    r.status = "error";
    r.error = std::string("internal error: ") + e.what();
  }
  r.wall_s = now_s() - t0;
  r.finished_at = utc_now();
  // Calibrations this run made go to the worker, which hands them to its next runs.
  if (HbmCalibrationMemo::instance().size() > memo_mark) {
    try {
      write_atomic(memo_path(dir, run.key), HbmCalibrationMemo::instance().to_json(memo_mark).dump());
    } catch (const Error&) {
      // Only speed is lost.
    }
  }
  try {
    write_atomic(result_path(dir, run.key), r.to_json().dump() + "\n");
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
  return 0;
}

/// Runs `run` in a child process and waits for it, at most `timeout_s`. Returns the result the
/// child wrote, or the one this process records for it (timeout, crashed).
void run_isolated(const std::string& dir, const SweepPlan& plan, const PlannedRun& run, const RunConfig& cfg,
                  const CompiledWorkload& w, double compile_s) {
  const std::string log = log_path(dir, run.key);
  const pid_t parent = ::getpid();
  const double t0 = now_s();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(4);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (devnull >= 0) ::dup2(devnull, 1);
    if (err >= 0) ::dup2(err, 2);
    ::_exit(simulate(dir, plan, run, cfg, w, compile_s));
  }
  // SIGCHLD is blocked in the worker: wait for it with a deadline.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  const double deadline = t0 + plan.timeout_s;
  int status = 0;
  bool timed_out = false;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    const double left = deadline - now_s();
    if (left <= 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    timespec ts{time_t(left), long((left - double(time_t(left))) * 1e9)};
    ::sigtimedwait(&chld, nullptr, &ts);
  }
  const bool clean = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (fs::exists(memo_path(dir, run.key))) {  // the calibrations the child made
    try {
      if (clean) HbmCalibrationMemo::instance().merge(read_json(memo_path(dir, run.key)));
    } catch (const Error&) {}
    std::error_code ec;
    fs::remove(memo_path(dir, run.key), ec);
  }
  if (clean && fs::exists(result_path(dir, run.key))) {
    std::error_code ec;
    fs::remove(log, ec);
    return;
  }
  // Exit status 3: the child could not write its result (a full disk); writing the record below
  // then fails the same way and stops the sweep with the reason.
  RunResult r = base_result(run);
  r.compile_s = compile_s;
  r.wall_s = now_s() - t0;
  r.finished_at = utc_now();
  const std::string tail = last_line(log);
  if (timed_out) {
    r.status = "timeout";
    r.error = fmt::format("did not finish within timeout_s = {} s", plan.timeout_s);
  } else {
    r.status = "crashed";
    r.error = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                        strsignal(WTERMSIG(status)) + ")"
                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
    if (!tail.empty()) r.error += ": " + tail;
  }
  write_atomic(result_path(dir, run.key), r.to_json().dump() + "\n");
}

}  // namespace

std::vector<uint64_t> parse_index_list(const std::string& text, uint64_t limit) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t dash = part.find('-');
    auto num = [&](const std::string& s) {
      if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
        throw Error("bad run list entry '" + part + "'");
      const uint64_t v = std::stoull(s);
      if (v >= limit) throw Error("run " + s + " is not in the plan (" + std::to_string(limit) + " runs)");
      return v;
    };
    const uint64_t a = num(dash == std::string::npos ? part : part.substr(0, dash));
    const uint64_t b = dash == std::string::npos ? a : num(part.substr(dash + 1));
    if (b < a) throw Error("bad run list entry '" + part + "'");
    for (uint64_t i = a; i <= b; ++i) out.push_back(i);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) throw Error("empty run list");
  return out;
}

std::string format_index_list(const std::vector<uint64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : "");
    i = j + 1;
  }
  return out;
}

int run_worker(const SweepPlan& plan, const WorkerOptions& o) {
  // The HBM fast-forward's calibrations depend only on the HBM configuration and the stream
  // (models/hbm/hbm_calibration.h): a worker starts with those of the workers before it in this
  // sweep (DIR/cache, cleared by the front end when it starts) and leaves its own there.
  HbmCalibrationMemo& memo = HbmCalibrationMemo::instance();
  memo.enable(true);
  const fs::path cache = fs::path(o.dir) / "cache";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache, ec)) {
    if (e.path().extension() != ".json") continue;
    try {
      memo.merge(read_json(e.path().string()));
    } catch (const Error&) {
      // A damaged file costs only speed.
    }
  }
  const size_t loaded = memo.size();
  struct SaveMemo {
    const fs::path& cache;
    const size_t& loaded;
    ~SaveMemo() {
      HbmCalibrationMemo& m = HbmCalibrationMemo::instance();
      if (m.size() == loaded) return;
      std::error_code e;
      fs::create_directories(cache, e);
      try {
        write_atomic((cache / ("hbm_calibrations_" + std::to_string(::getpid()) + ".json")).string(),
                     m.to_json(loaded).dump());
      } catch (const Error&) {}
    }
  } save{cache, loaded};
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  // The lowering group compiled last: its program, or the error compiling it gave.
  std::string group;
  std::unique_ptr<CompiledWorkload> compiled;
  std::string compile_error;
  double compile_s = 0;
  std::map<uint32_t, bool> content_ok;  // workload index -> its file still has the planned content
  auto unchanged = [&](uint32_t w) {
    auto it = content_ok.find(w);
    if (it == content_ok.end()) {
      bool ok = false;
      try {
        ok = sha256_file(plan.workloads[w].spec.file) == plan.workloads[w].content_sha;
      } catch (const Error&) {}
      it = content_ok.emplace(w, ok).first;
    }
    return it->second;
  };
  for (uint64_t idx : o.runs) {
    const PlannedRun& run = plan.runs.at(idx);
    notify(o.notify_fd, "start", idx);
    if (fs::exists(result_path(o.dir, run.key))) {  // finished by an earlier attempt
      notify(o.notify_fd, "done", idx);
      continue;
    }
    const PlannedWorkload& pw = plan.workloads[run.workload];
    std::string error;
    RunConfig cfg;
    try {
      cfg = load_run_config(plan.base_config, run.sets);
      if (run_key(config_json(cfg), pw) != run.key || !unchanged(run.workload))
        throw Error(
            "the base configuration or the workload file changed since the sweep was planned; "
            "plan it again (photon sweep SPEC --resume)");
    } catch (const Error& e) { error = e.what(); }
    if (error.empty() && run.group != group) {
      group = run.group;
      compiled.reset();
      compile_error.clear();
      const double t0 = now_s();
      try {
        CompileOptions copts;
        for (const auto& s : pw.spec.shapes) copts.shapes.insert(parse_shape_arg(s));
        compiled = std::make_unique<CompiledWorkload>(compile_workload(pw.spec.file, cfg, copts));
      } catch (const Error& e) { compile_error = e.what(); }
      compile_s = now_s() - t0;
    }
    if (error.empty()) error = compile_error;
    if (!error.empty()) {
      RunResult r = base_result(run);
      r.status = "error";
      r.error = error;
      r.compile_s = compile_s;
      r.finished_at = utc_now();
      write_atomic(result_path(o.dir, run.key), r.to_json().dump() + "\n");
    } else {
      run_isolated(o.dir, plan, run, cfg, *compiled, compile_s);
    }
    notify(o.notify_fd, "done", idx);
  }
  return 0;
}

}  // namespace photon::sweep

// The local backend (sweep/backend.h): worker processes on this machine.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <set>

#include "base/error.h"
#include "sweep/backend.h"
#include "sweep/files.h"
#include "sweep/run_result.h"
#include "sweep/worker.h"

extern char** environ;

namespace photon::sweep {

namespace fs = std::filesystem;

namespace {

/// Exit status of a worker that could not go on (it says why on its stderr, the log).
constexpr int kWorkerFatal = 2;

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buf, log;
  std::string fatal;  ///< the worker's "fatal MESSAGE" line: why it cannot go on
  std::vector<uint64_t> batch;
  std::set<uint64_t> started, done;
};

std::string last_log_line(const std::string& path) {
  std::string text;
  try {
    text = read_text(path);
  } catch (const Error&) { return ""; }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

Worker spawn(const LocalOptions& o, const std::vector<uint64_t>& batch, unsigned serial) {
  Worker w;
  w.batch = batch;
  w.log = (fs::path(o.dir) / "logs" / ("worker-" + std::to_string(serial) + ".log")).string();
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const std::string list = format_index_list(batch);
  std::vector<std::string> args = {o.photon_exe, "sweep", "worker", o.dir, "--runs", list, "--notify"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, w.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: Ctrl-C reaches the front end only
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int rc = posix_spawn(&w.pid, o.photon_exe.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(p[1]);
  if (rc != 0) {
    ::close(p[0]);
    throw Error(std::string("cannot start a worker: ") + std::strerror(rc)).with_context(o.photon_exe);
  }
  w.fd = p[0];
  return w;
}

void stop_all(std::vector<Worker>& ws) {
  for (auto& w : ws) ::kill(-w.pid, SIGTERM);  // the worker and its child
  for (auto& w : ws) {
    int st;
    for (int i = 0; i < 200 && ::waitpid(w.pid, &st, WNOHANG) == 0; ++i) ::usleep(10000);
    if (::waitpid(w.pid, &st, WNOHANG) == 0) {
      ::kill(-w.pid, SIGKILL);
      ::waitpid(w.pid, &st, 0);
    }
    if (w.fd >= 0) ::close(w.fd);
  }
  ws.clear();
}

}  // namespace

void run_local(const SweepPlan& plan, const std::vector<uint64_t>& todo, const LocalOptions& o,
               const BackendEvents& ev) {
  if (todo.empty()) return;
  const unsigned jobs = std::max(1u, o.jobs);
  // Batches in plan order; about two per worker so that the workers finish together while each
  // keeps its compiled programs and HBM calibrations over many runs.
  const size_t per = std::max<size_t>(1, std::min<size_t>(256, (todo.size() + 2 * jobs - 1) / (2 * jobs)));
  std::deque<std::vector<uint64_t>> queue;
  for (size_t i = 0; i < todo.size(); i += per)
    queue.emplace_back(todo.begin() + long(i), todo.begin() + long(std::min(todo.size(), i + per)));
  std::map<uint64_t, int> deaths;  // run -> workers that died while running it
  std::vector<Worker> ws;
  unsigned serial = 0;
  try {
    while (!queue.empty() || !ws.empty()) {
      if (ev.interrupted && ev.interrupted()) {
        stop_all(ws);
        return;
      }
      while (ws.size() < jobs && !queue.empty()) {
        ws.push_back(spawn(o, queue.front(), serial++));
        queue.pop_front();
      }
      std::vector<pollfd> fds;
      for (const auto& w : ws) fds.push_back({w.fd, POLLIN, 0});
      const int n = ::poll(fds.data(), fds.size(), 250);
      if (n < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
      uint64_t running = 0;
      for (const auto& w : ws) running += w.started.size() - w.done.size();
      if (ev.tick) ev.tick(running);
      if (n <= 0) continue;
      for (size_t i = ws.size(); i-- > 0;) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Worker& w = ws[i];
        char buf[4096];
        const ssize_t got = ::read(w.fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got > 0) {
          w.buf.append(buf, size_t(got));
          size_t nl;
          while ((nl = w.buf.find('\n')) != std::string::npos) {
            const std::string line = w.buf.substr(0, nl);
            w.buf.erase(0, nl + 1);
            const size_t sp = line.find(' ');
            if (sp == std::string::npos) continue;
            if (line.compare(0, sp, "fatal") == 0) {
              w.fatal = line.substr(sp + 1);
              continue;
            }
            const uint64_t run = std::stoull(line.substr(sp + 1));
            if (line.compare(0, sp, "start") == 0) {
              w.started.insert(run);
              if (ev.started) ev.started(run);
            } else if (line.compare(0, sp, "done") == 0) {
              w.done.insert(run);
              if (ev.finished) ev.finished(run);
            }
          }
          continue;
        }
        // End of output: the worker has exited.
        ::close(w.fd);
        w.fd = -1;
        int st = 0;
        ::waitpid(w.pid, &st, 0);
        Worker dead = std::move(w);
        ws.erase(ws.begin() + long(i));
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) continue;
        if (WIFEXITED(st) && WEXITSTATUS(st) == kWorkerFatal) {
          const std::string why = !dead.fatal.empty() ? dead.fatal : last_log_line(dead.log);
          stop_all(ws);
          throw Error(why.empty() ? "a worker stopped (see " + dead.log + ")" : why);
        }
        // Died: the run in flight is retried once, the rest of the batch is queued again.
        std::vector<uint64_t> again;
        for (uint64_t run : dead.batch) {
          if (dead.done.count(run)) continue;
          const std::string& key = plan.runs[run].key;
          if (fs::exists(result_path(o.dir, key))) {
            if (ev.finished) ev.finished(run);
            continue;
          }
          if (dead.started.count(run) && ++deaths[run] >= 2) {
            RunResult r;
            r.key = key;
            r.run = run;
            r.status = "crashed";
            r.error = WIFSIGNALED(st)
                          ? "its worker was killed by signal " + std::to_string(WTERMSIG(st)) + " (" +
                                strsignal(WTERMSIG(st)) + "), twice"
                          : "its worker exited with status " + std::to_string(WEXITSTATUS(st)) + ", twice";
            r.host = host_name();
            r.finished_at = utc_now();
            write_atomic(result_path(o.dir, key), r.to_json().dump() + "\n");
            if (ev.finished) ev.finished(run);
            continue;
          }
          again.push_back(run);
        }
        if (!again.empty()) queue.push_front(again);
      }
    }
  } catch (...) {
    stop_all(ws);
    throw;
  }
}

}  // namespace photon::sweep

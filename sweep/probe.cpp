#include "sweep/probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "soc/platform.h"
#include "workloads/config/run_config.h"
#include "workloads/driver/run_report.h"
#include "workloads/driver/workload.h"

namespace photon::sweep {

nlohmann::json probe_report(const std::string& base_config, const std::vector<std::string>& sets, bool fhe) {
  int p[2];
  if (::pipe(p) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(p[0]);
    std::string out;
    int code = 0;
    try {
      const RunConfig cfg = load_run_config(base_config, sets);
      CompiledWorkload w;
      w.frontend = fhe ? "heir" : "pcs";
      w.program.commands.push_back(pcs::make_end());
      Platform platform(cfg);
      platform.load(w.program, w.fills);
      const RunOutcome o = platform.run();
      out = make_run_report(platform, o, w, cfg, "probe", 0.0).to_json().dump();
    } catch (const std::exception& e) {
      out = e.what();
      code = 1;
    }
    size_t off = 0;
    while (off < out.size()) {
      const ssize_t n = ::write(p[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    ::_exit(code);
  }
  ::close(p[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buf, size_t(n));
  ::close(p[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    throw Error(text.empty() ? "the base platform does not elaborate" : text).with_context(base_config);
  return nlohmann::json::parse(text);
}

}  // namespace photon::sweep

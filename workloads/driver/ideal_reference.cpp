#include "workloads/driver/ideal_reference.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

#include "base/error.h"
#include "soc/platform.h"
#include "workloads/fallback/host_calls.h"

namespace photon {

namespace {

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    ssize_t k = ::write(fd, c, n);
    if (k <= 0) return false;
    c += k;
    n -= size_t(k);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n) {
    ssize_t k = ::read(fd, c, n);
    if (k <= 0) return false;
    c += k;
    n -= size_t(k);
  }
  return true;
}

size_t numel(const std::vector<int64_t>& s) {
  size_t n = 1;
  for (auto d : s) n *= size_t(d);
  return n;
}

}  // namespace

TensorValues run_ideal_outputs(const CompiledWorkload& w, RunConfig cfg, const TensorValues& inputs) {
  cfg.optical_gemm.numerics = Numerics::Ideal;
  int fds[2];
  if (::pipe(fds) != 0) throw Error("ideal reference run: cannot create a pipe");
  pid_t pid = ::fork();
  if (pid < 0) throw Error("ideal reference run: cannot fork");
  if (pid == 0) {
    ::close(fds[0]);
    int code = 1;
    try {
      Platform plat(cfg);
      plat.load(w.program, w.fills);
      if (w.host_calls) fallback::serve_host_calls(plat, *w.host_calls);
      for (const auto& in : w.inputs) {
        auto it = inputs.find(in.name);
        if (it != inputs.end()) plat.write(in.address, it->second.data(), it->second.size() * 4);
      }
      if (plat.run().status == RunOutcome::Status::Done) {
        code = 0;
        for (const auto& o : w.outputs) {
          std::vector<float> v(numel(o.shape));
          plat.read(o.address, v.data(), v.size() * 4);
          if (!write_all(fds[1], v.data(), v.size() * 4)) code = 1;
        }
      }
    } catch (...) { code = 1; }
    ::close(fds[1]);
    ::_exit(code);
  }
  ::close(fds[1]);
  TensorValues out;
  bool ok = true;
  for (const auto& o : w.outputs) {
    std::vector<float> v(numel(o.shape));
    ok = ok && read_all(fds[0], v.data(), v.size() * 4);
    out[o.name] = std::move(v);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("the ideal-numerics reference run failed");
  return out;
}

nlohmann::json output_error(const TensorValues& physical, const TensorValues& ideal) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, p] : physical) {
    auto it = ideal.find(name);
    if (it == ideal.end() || it->second.size() != p.size()) continue;
    double max_abs = 0, se = 0, si = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      double d = double(p[i]) - double(it->second[i]);
      max_abs = std::max(max_abs, std::abs(d));
      se += d * d;
      si += double(it->second[i]) * double(it->second[i]);
    }
    const double n = p.empty() ? 1.0 : double(p.size());
    const double rms_e = std::sqrt(se / n), rms_i = std::sqrt(si / n);
    j[name] = {{"max_abs_error", max_abs},
               {"rms_error", rms_e},
               {"rms_ideal", rms_i},
               {"relative_rms_error", rms_i > 0 ? rms_e / rms_i : 0.0},
               {"snr_db", rms_e > 0 && rms_i > 0 ? 20.0 * std::log10(rms_i / rms_e) : 0.0}};
  }
  return j;
}

}  // namespace photon

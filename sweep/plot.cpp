#include "sweep/plot.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/error.h"
#include "sweep/files.h"
#include "sweep/roofline.h"
#include "sweep/subprocess.h"

#ifndef PHOTON_PLOT_SCRIPT
#define PHOTON_PLOT_SCRIPT "sweep/plot/photon_plot.py"
#endif

namespace photon::sweep {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

void run_script(const std::vector<std::string>& args) {
  const std::string script = plot_script();
  std::error_code ec;
  if (!fs::is_regular_file(script, ec)) throw Error("the plotting script is missing").with_context(script);
  if (::access(kPython, X_OK) != 0) throw Error(std::string(kPython) + " is missing (Debian: python3)");
  std::vector<std::string> argv = {kPython, script};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult r = run_command(argv);
  if (!r.out.empty()) std::fputs(r.out.c_str(), stdout);
  if (r.status != 0) {
    std::string msg = r.err;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    const size_t nl = msg.rfind('\n');
    throw Error("plotting failed: " + (nl == std::string::npos ? msg : msg.substr(nl + 1)));
  }
}

}  // namespace

std::string plot_script() {
  if (const char* env = std::getenv("PHOTON_PLOT_SCRIPT"); env && *env) return env;
  return PHOTON_PLOT_SCRIPT;
}

int plot_sweep(const std::string& dir, const std::string& out) {
  std::error_code ec;
  const fs::path db = fs::path(dir) / "results.sqlite";
  if (!fs::exists(db, ec)) throw Error("no results database").with_context(dir);
  const std::string o = out.empty() ? (fs::path(dir) / "plots").string() : out;
  fs::create_directories(o, ec);
  if (ec) throw Error("cannot create the directory: " + ec.message()).with_context(o);
  run_script({"sweep", db.string(), o});
  return 0;
}

int plot_roofline(const std::string& report, const std::string& prefix) {
  const nlohmann::json r = read_json(report);
  const nlohmann::json data = with_error_context(report, [&] { return roofline_data(r); });
  std::string p = prefix;
  if (p.empty()) {
    p = report;
    if (p.size() > 5 && p.compare(p.size() - 5, 5, ".json") == 0) p.resize(p.size() - 5);
    p += "_roofline";
  }
  const std::string tmp = p + ".data.json";
  write_atomic(tmp, data.dump(1) + "\n");
  try {
    run_script({"roofline", tmp, p});
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::remove(tmp.c_str());
  return 0;
}

}  // namespace photon::sweep

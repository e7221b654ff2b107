// photon hbm: replay a DRAMsim3-format trace through the HBM model alone.
#include <cstdio>

#include "base/text.h"
#include "base/error.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "models/hbm/hbm_trace.h"

namespace photon::cli {

void add_hbm_command(CLI::App& app, int& status) {
  struct Opts {
    ConfigOptions config;
    std::string trace, report;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub =
      app.add_subcommand("hbm", "replay a DRAMsim3-format trace (0xADDR READ|WRITE CYCLE) on the HBM model");
  o->config.add_to(*sub);
  sub->add_option("--trace", o->trace, "trace file")->required();
  sub->add_option("--report", o->report, "write the report JSON here");
  sub->callback([o, &status] {
    RunConfig cfg = o->config.load();
    // As for run and fhe, a key that would have no effect is an error: no RTL block runs here.
    if (!cfg.cosim.waveform.empty())
      throw Error("cosim.waveform: photon hbm runs the HBM model alone, no RTL block to trace (unset it)");
    if (!o->report.empty()) check_output_path(o->report);
    nlohmann::json r = run_hbm_trace(cfg.hbm, o->trace);
    r["config"] = config_json(cfg)["hbm"];
    r["trace"] = o->trace;
    if (!o->report.empty()) write_json_atomic(o->report, r);
    std::printf("%s\n", dump_json(r, 1).c_str());
    status = 0;
  });
}

}  // namespace photon::cli

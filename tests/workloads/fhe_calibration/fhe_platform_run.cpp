#include "tests/workloads/fhe_calibration/fhe_platform_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "soc/platform.h"
#include "tests/support/forked.h"

namespace photon::fhe {

PlatformFheRun run_on_platform(const pcs::Program& program, const RunConfig& cfg) {
  const std::string out = photon_test::run_forked([&] {
    Platform platform(cfg);
    platform.load(program);
    const RunOutcome o = platform.run();
    if (o.status != RunOutcome::Status::Done) throw Error("run did not finish: " + o.message);
    const PlatformReport rep = platform.report(o);
    const double ghz = cfg.ntt.clock_ghz;
    nlohmann::json r = {
        {"cycles", o.simulated_time_ns * ghz},
        {"ntt_counters", rep.unit("ntt").counters},
        {"ntt_energy_pj", rep.unit("ntt").energy_pj},
        {"hbm_busy_cycles", rep.unit("hbm").busy_ns * ghz},
        {"dma_busy_cycles", rep.unit("dma").busy_ns * ghz},
        {"hbm_bytes", rep.hbm["bytes_read"].get<double>() + rep.hbm["bytes_written"].get<double>()}};
    nlohmann::json ops = nlohmann::json::array();
    for (const OpRow& row : rep.ops) ops.push_back({row.start_ns * ghz, row.end_ns * ghz});
    r["ops"] = ops;
    return r.dump();
  });
  PlatformFheRun run;
  const nlohmann::json r = nlohmann::json::parse(out, nullptr, false);
  if (r.is_discarded() || !r.is_object()) {
    ADD_FAILURE() << "platform run: " << out;
    return run;
  }
  run.cycles = r["cycles"];
  run.ntt_counters = r["ntt_counters"].get<std::map<std::string, double>>();
  run.ntt_energy_pj = r["ntt_energy_pj"];
  run.hbm_busy_cycles = r["hbm_busy_cycles"];
  run.dma_busy_cycles = r["dma_busy_cycles"];
  run.hbm_bytes = r["hbm_bytes"];
  for (const auto& op : r["ops"]) run.op_cycles.push_back({op[0].get<double>(), op[1].get<double>()});
  return run;
}

}  // namespace photon::fhe

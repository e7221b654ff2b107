// photon fhe: run one CKKS scheme operation on the platform and print its cycles and breakdown.
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "soc/calibration_cache.h"
#include "soc/platform.h"
#include "workloads/driver/fhe_summary.h"
#include "workloads/fhe/fhe_lowering.h"

namespace photon::cli {

void add_fhe_command(CLI::App& app, int& status) {
  struct Opts {
    ConfigOptions config;
    std::string op, report, mode;
    uint64_t ring_degree = 65536;
    uint32_t max_level = 35, level = 35, alpha = 12;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "fhe", "run one FHE scheme op (hmult, hmult_rescale, hrot, rescale, padd, pmult, hadd, bootstrap)");
  o->config.add_to(*sub);
  sub->add_option("--op", o->op, "hmult | hmult_rescale | hrot | rescale | padd | pmult | hadd | bootstrap")
      ->required();
  sub->add_option("--ring-degree", o->ring_degree, "ring degree N (power of two, 2^10..2^17)")->required();
  sub->add_option("--max-level", o->max_level, "L: Q limbs - 1")->required();
  sub->add_option("--level", o->level, "l: the ciphertext's level (active Q limbs - 1)")->required();
  sub->add_option("--alpha", o->alpha, "P limbs (special primes); dnum = ceil((L+1)/alpha)")->required();
  sub->add_option("--report", o->report, "write the report JSON here");
  sub->add_option("--mode", o->mode, "timing (no arithmetic) or functional")
      ->check(CLI::IsMember({"timing", "functional"}));
  sub->callback([o, &status] {
    std::vector<std::string> sets = o->config.sets;
    if (!o->mode.empty()) sets.push_back("sim.mode=" + o->mode);
    RunConfig cfg = load_run_config(o->config.file, sets);
    // Every output is checked before the simulation and removed if the command fails.
    OutputFiles outputs;
    outputs.add("--report", o->report);
    outputs.add("cosim.waveform", cfg.cosim.waveform);
    outputs.check();
    uint64_t n = o->ring_degree;
    if (n < 1024 || n > 131072 || (n & (n - 1)))
      throw Error("--ring-degree " + std::to_string(n) + ": expected a power of two in [1024, 131072]");
    const uint32_t log_n = uint32_t(std::log2(double(n)));
    pcs::Program prog = fhe::make_single_op_program(o->op, log_n, o->max_level, o->level, o->alpha, cfg);
    use_calibration_cache();  // wall time only: results are those without it
    Platform platform(cfg);
    platform.load(prog);
    RunOutcome out = platform.run();
    if (out.status != RunOutcome::Status::Done) throw Error(out.message);
    const PlatformReport rep = platform.report(out);
    const double ghz = cfg.ntt.clock_ghz;
    nlohmann::json r = {{"op", o->op},
                        {"ring_degree", n},
                        {"max_level", o->max_level},
                        {"level", o->level},
                        {"alpha", o->alpha},
                        {"dnum", (o->max_level + o->alpha) / o->alpha},
                        {"cycles", std::llround(out.simulated_time_ns * ghz)},
                        {"simulated_time_ns", out.simulated_time_ns},
                        {"commands", prog.commands.size()}};
    nlohmann::json breakdown = nlohmann::json::object();
    const UnitRow& ntt = rep.unit("ntt");
    for (const auto& [k, v] : ntt.counters)
      if (k.rfind("busy_cycles", 0) == 0) breakdown[k] = v;
    breakdown["hbm_busy_cycles"] = std::llround(rep.unit("hbm").busy_ns * ghz);
    breakdown["dma_busy_cycles"] = std::llround(rep.unit("dma").busy_ns * ghz);
    r["breakdown"] = breakdown;
    r["ntt_counters"] = ntt.counters;
    // Which implementation each unit ran (units.<unit>.impl, as in photon run's report).
    for (const UnitRow& u : rep.units)
      if (!u.impl.empty()) r["units"][u.name]["impl"] = u.impl;
    r["hbm"] = rep.hbm;
    // The op rows (latency, detail, memory plan: bytes by class and peak scratchpad) and their sums.
    nlohmann::json rows = nlohmann::json::array();
    for (const OpRow& row : rep.ops) {
      nlohmann::json x = {{"name", row.name}, {"kind", row.kind}, {"latency_ns", row.latency_ns}};
      if (!row.detail.empty()) x["detail"] = row.detail;
      if (!row.memory.empty()) x["memory"] = row.memory_json();
      rows.push_back(x);
    }
    r["ops"] = rows;
    r["fhe"] = fhe_summary(rep.ops).total.to_json();
    r["mode"] = sim_mode_table().name(cfg.sim.mode);
    if (cfg.sim.mode == SimMode::Functional) r["functional"] = platform.memory_digest().to_json();
    if (!o->report.empty()) write_json_atomic(o->report, r);
    outputs.keep();
    std::printf("%s\n", dump_json(r, 1).c_str());
    status = 0;
  });
}

}  // namespace photon::cli

// Same stream, same answers: one command stream on the whole platform with ntt.impl=tlm and
// ntt.impl=rtl (the verilated 64-lane core of configs/default.yaml) gives the same residues in
// functional mode (every scratchpad byte, and the results the stream stores to HBM) and the same
// report: simulated time, the NTT unit's busy time and per-engine busy cycles, energy. Streams:
// examples/ntt.pasm, a `photon fhe` HMult at N = 2^12, and HEIR's ckks_to_openfhe_zoo.mlir
// (N = 2^10). For the FHE streams the scratchpad's data buffers start with random reduced
// residues, so every transform works on real data. Also: the configuration and program errors of
// ntt.impl=rtl at start, and a modulus wider than the datapath at run time.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "isa/assembler.h"
#include "soc/platform.h"
#include "tests/support/forked.h"
#include "workloads/config/run_config.h"
#include "workloads/driver/workload.h"
#include "workloads/fhe/fhe_lowering.h"

namespace {

using nlohmann::json;
using photon::RunConfig;

const std::string kSrc = PHOTON_SOURCE_DIR;
const std::string kShared = PHOTON_SHARED_DIR;

uint64_t fnv1a(const std::vector<uint8_t>& b) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t x : b) h = (h ^ x) * 1099511628211ull;
  return h;
}

enum class Stream { NttExample, FheHmult, Heir };

/// Runs `stream` functionally with ntt.impl=`impl` in a child; returns the facts to compare.
json run(Stream stream, const std::string& impl, const std::vector<std::string>& extra = {}) {
  const std::string out = photon_test::run_forked([&]() -> std::string {
    std::vector<std::string> sets = {"sim.mode=functional", "ntt.impl=" + impl, "scratchpad.size_kib=65536"};
    sets.insert(sets.end(), extra.begin(), extra.end());
    RunConfig cfg = photon::load_run_config(kSrc + "/configs/default.yaml", sets);
    photon::pcs::Program prog;
    std::vector<photon::FloatFill> fills;
    bool fill_random = false;
    switch (stream) {
      case Stream::NttExample: prog = photon::pcs::assemble_file(kSrc + "/examples/ntt.pasm"); break;
      case Stream::FheHmult:
        prog = photon::fhe::make_single_op_program("hmult", 12, 5, 5, 2, cfg);
        fill_random = true;
        break;
      case Stream::Heir: {
        photon::CompiledWorkload w =
            photon::compile_workload(kShared + "/inputs/heir/ckks_to_openfhe_zoo.mlir", cfg);
        prog = w.program;
        fills = w.fills;
        fill_random = true;
        break;
      }
    }
    photon::Platform plat(cfg);
    plat.load(prog, fills);
    const uint64_t spm = cfg.noc.scratchpad_base, spm_bytes = cfg.scratchpad.size_bytes();
    if (fill_random) {
      // Residues below 2^59 are reduced for every 60-bit prime of the chain; the moduli tables
      // (the first 64 KiB, loaded by the program) stay as they are.
      std::mt19937_64 rng(7);
      std::vector<uint64_t> words((spm_bytes - 65536) / 8);
      for (uint64_t& w : words) w = rng() >> 5;
      plat.write(spm + 65536, words.data(), words.size() * 8);
    }
    const photon::RunOutcome o = plat.run();
    json rep = plat.report(o).to_json();
    std::vector<uint8_t> bytes(spm_bytes);
    plat.read(spm, bytes.data(), bytes.size());
    json r;
    r["status"] = int(o.status);
    r["message"] = o.message;
    r["simulated_time_ns"] = o.simulated_time_ns;
    r["ntt"] = rep["units"]["ntt"];
    r["energy_pj"] = rep["energy_pj"];
    r["spm_digest"] = fnv1a(bytes);
    if (stream == Stream::NttExample) {  // the results the stream stores to HBM 0x10000
      std::vector<uint64_t> res(18432 / 8);
      plat.read(0x10000, res.data(), 18432);
      r["results"] = res;
    }
    return r.dump();
  });
  return json::parse(out, nullptr, false);
}

void expect_same(const json& tlm, const json& rtl) {
  ASSERT_FALSE(tlm.is_discarded());
  ASSERT_FALSE(rtl.is_discarded());
  EXPECT_EQ(tlm["status"], 0) << tlm["message"];
  EXPECT_EQ(rtl["status"], 0) << rtl["message"];
  EXPECT_EQ(tlm["ntt"]["impl"], "tlm");
  EXPECT_EQ(rtl["ntt"]["impl"], "rtl");
  EXPECT_EQ(tlm["spm_digest"], rtl["spm_digest"]) << "scratchpad contents differ";
  EXPECT_EQ(tlm["simulated_time_ns"], rtl["simulated_time_ns"]);
  EXPECT_EQ(tlm["ntt"]["busy_ns"], rtl["ntt"]["busy_ns"]);
  EXPECT_EQ(tlm["ntt"]["commands"], rtl["ntt"]["commands"]);
  EXPECT_EQ(tlm["energy_pj"], rtl["energy_pj"]);
  json a = tlm["ntt"]["counters"], b = rtl["ntt"]["counters"];
  // The core's clock ran exactly for the NTT unit's NTT busy cycles.
  EXPECT_EQ(b.value("rtl_clocked_cycles", 0.0), b["busy_cycles.ntt"].get<double>());
  b.erase("rtl_clocked_cycles");
  EXPECT_EQ(a, b);
  EXPECT_GT(a["transforms"].get<double>(), 0);
}

TEST(NttRtlPlatform, NttExampleSameResiduesAndCycles) {
  const json tlm = run(Stream::NttExample, "tlm"), rtl = run(Stream::NttExample, "rtl");
  expect_same(tlm, rtl);
  ASSERT_TRUE(tlm["results"].is_array());
  EXPECT_EQ(tlm["results"], rtl["results"]);
  size_t nonzero = 0;
  for (const auto& w : tlm["results"]) nonzero += w.get<uint64_t>() != 0;
  EXPECT_GT(nonzero, 2000u);  // C = a * b, D, E, F, G: real residues, not zeros
}

TEST(NttRtlPlatform, FheHmultAtN4096SameResiduesAndCycles) {
  expect_same(run(Stream::FheHmult, "tlm"), run(Stream::FheHmult, "rtl"));
}

TEST(NttRtlPlatform, HeirProgramAtN1024SameResiduesAndCycles) {
  expect_same(run(Stream::Heir, "tlm"), run(Stream::Heir, "rtl"));
}

// ---- errors ------------------------------------------------------------------------------

std::string error_of(const std::function<void()>& f) {
  return photon_test::run_forked([&]() -> std::string {
    try {
      f();
    } catch (const photon::Error& e) { return e.what(); }
    return "no error";
  });
}

TEST(NttRtlPlatform, UnbuiltCoreIsAConfigErrorNamingTheKeys) {
  const std::string e = error_of([] {
    photon::Platform p(photon::load_platform_config("", {"ntt.impl=rtl", "ntt.lanes=128"}));
  });
  EXPECT_NE(e.find("ntt.impl=rtl: no verilated NTT core with ntt.lanes=128"), std::string::npos) << e;
  EXPECT_NE(e.find("built: lanes=4 word_bits=64"), std::string::npos) << e;
}

TEST(NttRtlPlatform, FourStepTransposesAreAConfigError) {
  const std::string e = error_of([] {
    photon::Platform p(photon::load_platform_config("", {"ntt.impl=rtl", "ntt.transpose_cycles=272"}));
  });
  EXPECT_NE(e.find("ntt.transpose_cycles: 272 with ntt.impl=rtl"), std::string::npos) << e;
}

TEST(NttRtlPlatform, ClockPeriodOffThePicosecondGridIsAConfigError) {
  const std::string e = error_of([] {
    photon::Platform p(photon::load_platform_config("", {"ntt.impl=rtl", "ntt.clock_ghz=1.5"}));
  });
  EXPECT_NE(e.find("ntt.clock_ghz: "), std::string::npos) << e;
}

TEST(NttRtlPlatform, WaveformWithoutRtlIsAConfigError) {
  const std::string e = error_of([] { photon::load_platform_config("", {"cosim.waveform=/tmp/x.fst"}); });
  EXPECT_NE(e.find("cosim.waveform: no unit runs RTL"), std::string::npos) << e;
}

TEST(NttRtlPlatform, NAboveTheCoresMemoryIsAnErrorAtLoad) {
  const std::string e = error_of([] {
    RunConfig cfg = photon::load_run_config("", {"ntt.impl=rtl"});
    photon::pcs::Ntt n;
    n.op = photon::pcs::Ntt::kForward;
    n.log_n = 17;
    n.limbs = 1;
    photon::pcs::Program prog;
    prog.commands = {photon::pcs::make_ntt(n), photon::pcs::make_end()};
    photon::Platform p(cfg);
    p.load(prog);
  });
  EXPECT_NE(e.find("ntt.impl=rtl: command 0 (ntt forward, log_n 17): the RTL core"), std::string::npos) << e;
  EXPECT_NE(e.find("2^16, its memories hold no more"), std::string::npos) << e;
}

TEST(NttRtlPlatform, ModulusWiderThanTheDatapathIsAUnitErrorNamingTheCommand) {
  // examples/ntt.pasm's moduli are 51-bit; the 8-lane core has a 36-bit datapath.
  const json r = run(Stream::NttExample, "rtl",
                     {"ntt.lanes=8", "ntt.word_bits=36", "ntt.pipeline_depth=10", "ntt.limb_interleave=1"});
  EXPECT_EQ(r["status"], int(photon::RunOutcome::Status::UnitError));
  const std::string m = r["message"];
  EXPECT_NE(
      m.find(
          "command 4: ntt: ntt: modulus 0 = 1125899915231233 is wider than the RTL core's 36-bit datapath"),
      std::string::npos)
      << m;
}

}  // namespace

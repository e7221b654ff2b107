// ntt.impl=rtl through the real CLI: bad waveform paths, outputs left behind on errors, moduli
// wider than ntt.word_bits, waveform windows the core never runs in. Each error is one stderr
// line naming the key or option, exit non-zero, and no new output file.
#include <sys/stat.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.h"

namespace {

using photon_test::count_lines;
using photon_test::photon;
using photon_test::src;
using photon_test::temp_path;

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

const std::string kRun = "run --config " + src("configs/default.yaml") + " --workload " +
                         src("examples/ntt.pasm") + " -q --set ntt.impl=rtl";
const std::string kCore36 =
    " --set ntt.lanes=8 --set ntt.word_bits=36 --set ntt.pipeline_depth=10 --set ntt.limb_interleave=1";

TEST(NttRtlCli, WaveformOnAVirtualFileSystemIsOneErrorAndNoOutput) {
  for (const std::string fst : {"/proc/w.fst", "/sys/w.fst"}) {
    const std::string rep = temp_path("d1.json");
    const auto r = photon(kRun + " --set cosim.waveform=" + fst + " --report " + rep);
    EXPECT_NE(r.status, 0) << fst;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("cosim.waveform: " + fst + ": cannot be created: "), std::string::npos) << r.err;
    EXPECT_FALSE(exists(fst));
    EXPECT_FALSE(exists(rep));
  }
}

TEST(NttRtlCli, UnwritableTraceIsCheckedBeforeTheRunAndLeavesNoWaveform) {
  const std::string fst = temp_path("d2.fst"), rep = temp_path("d2.json");
  const auto r = photon(kRun + " --set cosim.waveform=" + fst + " --trace /proc/t.json --report " + rep);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--trace: /proc/t.json: cannot be created"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(fst));
  EXPECT_FALSE(exists(rep));
}

TEST(NttRtlCli, WaveformNamingTheReportIsAnError) {
  const std::string rep = temp_path("same.fst");
  const auto r = photon(kRun + " --set cosim.waveform=" + rep + " --report " + rep);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--report and cosim.waveform name the same file"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(rep));
}

// examples/ntt.pasm loads 51-bit moduli; ntt.word_bits=36: refused at load with either
// implementation and in either mode, before any output is written.
TEST(NttRtlCli, ModulusWiderThanTheWordIsOneErrorBeforeTheRun) {
  for (const std::string impl : {"rtl", "tlm"})
    for (const std::string mode : {"functional", "timing"}) {
      const std::string fst = temp_path("d3.fst"), rep = temp_path("d3.json"), tr = temp_path("d3t.json");
      std::string args = "run --config " + src("configs/default.yaml") + " --workload " +
                         src("examples/ntt.pasm") + " -q --set ntt.impl=" + impl + kCore36 + " --mode " + mode +
                         " --report " + rep + " --trace " + tr;
      if (impl == "rtl") args += " --set cosim.waveform=" + fst;
      const auto r = photon(args);
      EXPECT_EQ(r.status, 1) << impl << " " << mode;
      EXPECT_EQ(count_lines(r.err), 1) << r.err;
      EXPECT_EQ(r.err,
                "photon: error: command 4: ntt: modulus 0 = 1125899915231233 (51 bits) is not below "
                "2^ntt.word_bits = 2^36 (the unit's modular word width)\n")
          << impl << " " << mode;
      EXPECT_FALSE(exists(fst));
      EXPECT_FALSE(exists(rep));
      EXPECT_FALSE(exists(tr));
    }
}

TEST(NttRtlCli, WaveformWindowAfterTheRunWarnsAndWritesNoFile) {
  const std::string fst = temp_path("d6.fst");
  photon_test::write_text(fst, "an earlier run's waveform");
  const auto r = photon(kRun + " --set cosim.waveform=" + fst + " --set cosim.waveform_start_ns=1000000");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("photon: warning: cosim.waveform_start_ns = 1000000.000 lies after the end of the run at "),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(exists(fst));
}

TEST(NttRtlCli, WaveformKeysAreCheckedAsAWhole) {
  auto r = photon(kRun + " --set cosim.waveform=" + temp_path("w.vcd"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cosim.waveform: " + temp_path("w.vcd") + ": the waveform is an FST file"), std::string::npos)
      << r.err;
  r = photon(kRun + " --set cosim.waveform_start_ns=10");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cosim.waveform_start_ns, cosim.waveform_end_ns: a waveform window without cosim.waveform"),
            std::string::npos)
      << r.err;
  const std::string trace = temp_path("hbm.trace");
  photon_test::write_text(trace, "0x0 READ 0\n");
  r = photon("hbm --config " + src("configs/default.yaml") + " --trace " + trace +
             " --set ntt.impl=rtl --set cosim.waveform=" + temp_path("h.fst"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cosim.waveform: photon hbm runs the HBM model alone"), std::string::npos) << r.err;
}

TEST(NttRtlCli, ReportsAndSummaryNameTheImplementation) {
  // A stream without NTT commands never clocks the core: rtl_clocked_cycles is 0, not absent.
  const std::string pasm = temp_path("end.pasm"), rep = temp_path("end.json");
  photon_test::write_text(pasm, "end\n");
  auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm +
                  " --set ntt.impl=rtl --report " + rep);
  EXPECT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(photon_test::slurp(rep));
  EXPECT_EQ(j["units"]["ntt"]["counters"]["rtl_clocked_cycles"], 0.0);
  EXPECT_NE(r.out.find("utilization   0.0 % (rtl)"), std::string::npos) << r.out;
  std::remove(pasm.c_str());
  std::remove(rep.c_str());
  r = photon("fhe --config " + src("configs/default.yaml") +
             " --set ntt.impl=rtl --op hadd --ring-degree 1024 --max-level 2 --level 2 --alpha 1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["units"]["ntt"]["impl"], "rtl");
}

TEST(NttRtlCli, HeirFallbackInFunctionalModeNamesTheOpAndItsLocation) {
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " +
                        photon_test::shared("inputs/heir/openfhe_rotations.mlir") + " -q --mode functional");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.find("node ''"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("functional mode cannot compute openfhe.decode_ckks at "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("openfhe_rotations.mlir:68:10 (client-side decoding)"), std::string::npos) << r.err;
}

}  // namespace

// ntt.impl=rtl through the real CLI: bad waveform paths, outputs left behind on errors, moduli
// wider than ntt.word_bits, waveform windows the core never runs in. Each error is one stderr
// line naming the key or option, exit non-zero, and no new output file.
#include <sys/stat.h>

#include <string>

#include <gtest/gtest.h>

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

}  // namespace

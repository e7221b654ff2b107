// Comparing ntt.impl=tlm and ntt.impl=rtl from the CLI (docs/cosim.md, "Comparing two runs"):
// the report's functional.memory_digest and --dump-memory's raw bytes. The oracle for the digest
// is FNV-1a computed here over the dumped scratchpad; the oracle for "different" is the same
// stream with one input coefficient changed.
#include <cstdint>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.h"

namespace {

using nlohmann::json;
using photon_test::photon;
using photon_test::slurp;
using photon_test::src;
using photon_test::temp_path;

uint64_t fnv1a(const std::string& b) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char x : b) h = (h ^ x) * 1099511628211ull;
  return h;
}

struct RunResult {
  json report;
  std::string results, spm;  // HBM 0x10000 (the stream's stored results), the whole scratchpad
};

RunResult run_cli(const std::string& workload, const std::string& impl, const std::string& tag) {
  const std::string rep = temp_path(tag + ".json"), res = temp_path(tag + ".res"), spm = temp_path(tag + ".spm");
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + workload +
                        " -q --mode functional --set ntt.impl=" + impl + " --set scratchpad.size_kib=64" +
                        " --report " + rep + " --dump-memory hbm:0x10000:18432=" + res +
                        " --dump-memory spm:0:65536=" + spm);
  EXPECT_EQ(r.status, 0) << r.err;
  RunResult out{json::parse(slurp(rep), nullptr, false), slurp(res), slurp(spm)};
  for (const std::string& f : {rep, res, spm}) std::remove(f.c_str());
  return out;
}

TEST(NttRtlDigest, TlmAndRtlLeaveTheSameMemoryAndADifferentInputDoesNot) {
  const RunResult tlm = run_cli(src("examples/ntt.pasm"), "tlm", "tlm"), rtl = run_cli(src("examples/ntt.pasm"), "rtl", "rtl");
  ASSERT_FALSE(tlm.report.is_discarded());
  ASSERT_FALSE(rtl.report.is_discarded());
  ASSERT_EQ(tlm.results.size(), 18432u);
  ASSERT_EQ(tlm.spm.size(), 65536u);
  EXPECT_EQ(tlm.results, rtl.results);
  EXPECT_EQ(tlm.spm, rtl.spm);
  const std::string d = tlm.report["functional"]["memory_digest"];
  EXPECT_EQ(d, rtl.report["functional"]["memory_digest"].get<std::string>());
  EXPECT_EQ(tlm.report["functional"]["hbm_digest"], rtl.report["functional"]["hbm_digest"]);
  char want[32];
  std::snprintf(want, sizeof want, "fnv1a64:%016llx", static_cast<unsigned long long>(fnv1a(tlm.spm)));
  EXPECT_EQ(tlm.report["functional"]["scratchpad_digest"], want);
  EXPECT_EQ(tlm.report["units"]["ntt"]["impl"], "tlm");
  EXPECT_EQ(rtl.report["units"]["ntt"]["impl"], "rtl");

  // The same stream with a's first coefficient changed (0x20b269f767c45 -> 0x20b269f767c46).
  std::string text = slurp(src("examples/ntt.pasm"));
  const size_t at = text.find("0x20b269f767c45");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "0x20b269f767c46");
  const std::string other = temp_path("ntt_other.pasm");
  photon_test::write_text(other, text);
  const RunResult changed = run_cli(other, "rtl", "changed");
  std::remove(other.c_str());
  EXPECT_NE(changed.report["functional"]["memory_digest"].get<std::string>(), d);
  EXPECT_NE(changed.results, rtl.results);
}

TEST(NttRtlDigest, DumpMemoryOutsideTheRegionIsAnErrorBeforeTheRun) {
  const std::string f = temp_path("bad.bin");
  const auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/ntt.pasm") +
                        " -q --mode functional --set scratchpad.size_kib=64 --dump-memory spm:0xff00:512=" + f);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--dump-memory spm:0xff00:512=" + f + ": [65280, +512) is empty or outside spm (65536 bytes)"),
            std::string::npos)
      << r.err;
  const auto t = photon("run --config " + src("configs/default.yaml") + " --workload " + src("examples/ntt.pasm") +
                        " -q --dump-memory spm:0:8=" + f);
  EXPECT_NE(t.err.find("need --mode functional"), std::string::npos) << t.err;
}

}  // namespace

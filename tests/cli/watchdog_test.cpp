// The watchdog (sim.max_time_ns, sim.max_wall_s) through the CLI on a minimal command stream
// written for this test: two 8 MiB copies (about 72 us each on hbm2) stopped at 10 us simulated,
// or at once by a wall-clock limit below any run's wall time. A stopped run ends with status
// timeout, one error line and exit status 1, and still writes its report and trace, with busy
// times counted up to the stop.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"

namespace photon_test {
namespace {

const char* kLong =
    "dma src=0x0 dst=0x10000000 inner_bytes=8388608\n"
    "dma src=0x0 dst=0x20000000 inner_bytes=8388608\n"
    "end\n";

TEST(Watchdog, SimulatedTimeLimitEndsTheRunWithItsReport) {
  const std::string pasm = temp_path("long.pasm"), report = temp_path("wd.json"),
                    trace = temp_path("wdt.json");
  write_text(pasm, kLong);
  const CliResult r = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm +
                             " --set sim.max_time_ns=10000 --report " + report + " --trace " + trace);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(
      r.err,
      "photon: error: timeout: simulated time reached the limit sim.max_time_ns = 10000 ns before the END "
      "command\n");
  const auto j = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(j["status"], "timeout");
  EXPECT_DOUBLE_EQ(j["simulated_time_ns"].get<double>(), 10000.0);
  EXPECT_EQ(j["config"]["sim"]["max_time_ns"], 10000.0);
  for (const auto& [name, u] : j["units"].items()) EXPECT_LE(u["busy_ns"].get<double>(), 10000.0) << name;
  // The DMA was busy from its first command (after the firmware's dispatch) up to the stop.
  EXPECT_GT(j["units"]["dma"]["busy_ns"].get<double>(), 9000.0);
  EXPECT_FALSE(nlohmann::json::parse(slurp(trace))["traceEvents"].empty());
  // Without the limit the same stream finishes.
  const CliResult ok = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm + " -q");
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(Watchdog, WallClockLimitEndsTheRun) {
  const std::string pasm = temp_path("long2.pasm"), report = temp_path("wd2.json");
  write_text(pasm, kLong);
  const CliResult r = photon("run --config " + src("configs/default.yaml") + " --workload " + pasm +
                             " --set sim.max_wall_s=1e-9 --report " + report);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("timeout: wall-clock limit sim.max_wall_s = 1e-09 s reached"), std::string::npos)
      << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(report))["status"], "timeout");
}

TEST(Watchdog, LimitsAreCheckedKeys) {
  const CliResult r = photon("config --set sim.max_time_ns=-1");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("sim.max_time_ns"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace photon_test

// The photon command's contract (../shared/DESIGN.md "Contracts"): options, exit status, one-line
// errors, report and trace files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_util.h"

using namespace photon_test;
using ::testing::HasSubstr;

TEST(Cli, VersionAndHelp) {
  auto v = photon("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_THAT(v.out, HasSubstr("photon "));
  auto h = photon("run --help");
  EXPECT_EQ(h.status, 0);
  EXPECT_THAT(h.out, HasSubstr("--workload"));
  EXPECT_THAT(h.out, HasSubstr("--dump-outputs"));
}

TEST(Cli, UnknownConfigKeyIsOneLineNamingTheKey) {
  auto r = photon("run --config " + src("configs/default.yaml") + " --set no.such.key=1 --workload " +
                  src("examples/gemm.pasm"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("no.such.key"));
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(Cli, BadYamlGivesItsLineNumber) {
  std::string cfg = temp_path("bad.yaml");
  write_text(cfg, "hbm:\n  tRCD: 14\n  tRP: : 3\n");
  auto r = photon("config --config " + cfg);
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr(cfg + ":3:"));
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(Cli, UnknownWorkloadTypeAndMissingFile) {
  auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + src("README.md"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("unknown workload type"));
  auto m = photon("run --workload /nonexistent/model.onnx");
  EXPECT_NE(m.status, 0);
  EXPECT_THAT(m.err, HasSubstr("/nonexistent/model.onnx"));
}

TEST(Cli, RunWritesReportAndTraceWithContractFields) {
  std::string pcs = temp_path("gemm.pcs"), rep = temp_path("rep.json"), tr = temp_path("trace.json");
  ASSERT_EQ(photon("asm " + src("examples/gemm.pasm") + " -o " + pcs).status, 0);
  auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + pcs + " --report " + rep +
                  " --trace " + tr + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(rep));
  for (const char* k : {"simulated_time_ns", "wall_time_s", "workload", "config", "units", "hbm", "energy_pj",
                        "ops", "unsupported"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GT(j["simulated_time_ns"].get<double>(), 0);
  for (const char* u : {"dma", "optical_gemm", "ntt", "vector", "hbm", "scratchpad"}) {
    ASSERT_TRUE(j["units"].contains(u)) << u;
    EXPECT_TRUE(j["units"][u].contains("busy_ns"));
    EXPECT_TRUE(j["units"][u].contains("utilization"));
  }
  EXPECT_GT(j["units"]["optical_gemm"]["busy_ns"].get<double>(), 0);
  for (const char* k : {"bytes_read", "bytes_written", "avg_bandwidth_gbps", "row_hit_rate"})
    EXPECT_TRUE(j["hbm"].contains(k)) << k;
  EXPECT_TRUE(j["energy_pj"].contains("total"));
  EXPECT_EQ(j["config"]["hbm"]["tRCD"], 14);
  ASSERT_EQ(j["ops"].size(), 3u);
  EXPECT_EQ(j["ops"][1]["name"], "gemm");
  EXPECT_LE(j["ops"][1]["start_ns"].get<double>(), j["ops"][1]["end_ns"].get<double>());
  auto t = nlohmann::json::parse(slurp(tr));
  ASSERT_TRUE(t.contains("traceEvents"));
  bool gemm_track = false, x_event = false;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["args"]["name"] == "queue.optical_gemm") gemm_track = true;
    if (e["ph"] == "X") x_event = e.contains("ts") && e.contains("dur");
  }
  EXPECT_TRUE(gemm_track);
  EXPECT_TRUE(x_event);
}

TEST(Cli, SetOverridesReachTheResolvedConfig) {
  std::string pcs = temp_path("gemm2.pcs"), rep = temp_path("rep2.json");
  ASSERT_EQ(photon("asm " + src("examples/gemm.pasm") + " -o " + pcs).status, 0);
  auto r = photon("run --config " + src("configs/default.yaml") + " --workload " + pcs +
                  " --set hbm.tRCD=20 --set optical_gemm.rows=16 --report " + rep + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(rep));
  EXPECT_EQ(j["config"]["hbm"]["tRCD"], 20);
  EXPECT_EQ(j["config"]["optical_gemm"]["rows"], 16);
}

// Sweep plans (sweep/plan.h): every point checked through the configuration registry, the
// constraints against a brute-force count, stable keys, lowering groups.
#include <gtest/gtest.h>

#include <set>

#include "sweep/metrics.h"
#include "sweep/plan.h"
#include "tests/sweep/sweep_test_util.h"
#include "workloads/config/run_config.h"

namespace photon::sweep {
namespace {

using photon_test::parse;

SweepPlan plan(const std::string& body) { return make_plan(parse(body), default_metrics({"dma"})); }

std::string plan_error(const std::string& body) {
  try {
    plan(body);
  } catch (const Error& e) { return e.what(); }
  return "no error";
}

TEST(SweepPlan, ConstraintsKeepExactlyThePointsThatSatisfyThem) {
  const SweepPlan p = plan(
      "grid:\n  optical_gemm.rows: {from: 8, to: 256, factor: 2}\n  optical_gemm.cols: {from: 8, to: 256, "
      "factor: 2}\n"
      "constraints: ['optical_gemm.rows * optical_gemm.cols <= 4096', 'optical_gemm.rows >= "
      "optical_gemm.cols / 4']\n");
  int expect = 0;
  for (int r = 8; r <= 256; r *= 2)
    for (int c = 8; c <= 256; c *= 2) expect += (r * c <= 4096 && r >= c / 4.0);
  EXPECT_EQ(p.runs.size(), size_t(expect));
  EXPECT_EQ(p.design_points, 36u);
  EXPECT_EQ(p.skipped, 36u - size_t(expect));
  for (const auto& r : p.runs) {
    const int rows = r.params["optical_gemm.rows"], cols = r.params["optical_gemm.cols"];
    EXPECT_LE(rows * cols, 4096);
    EXPECT_GE(rows, cols / 4.0);
  }
}

TEST(SweepPlan, ConstraintsSeeKeysTheSweepDoesNotSet) {
  // The base has 32 rows; only the cols axis is swept.
  const SweepPlan p = plan(
      "grid:\n  optical_gemm.cols: [16, 32, 64, 128]\nconstraints: optical_gemm.rows * optical_gemm.cols <= "
      "2048\n");
  EXPECT_EQ(p.runs.size(), 3u);
}

TEST(SweepPlan, BadValuesAreOneErrorNamingThePointAndTheKey) {
  const std::string f = photon_test::spec_path();
  EXPECT_EQ(plan_error("grid:\n  optical_gemm.rows: [16, 8192]\n  optical_gemm.cols: [32]\n"),
            f + ": point 1 (optical_gemm.rows=8192, optical_gemm.cols=32): optical_gemm.rows: value 8192 out "
                "of range "
                "[1, 4096]");
  EXPECT_EQ(plan_error("points:\n  - {optical_gemm.weight_mode: sideways}\n"),
            f + ": point 0 (optical_gemm.weight_mode=sideways): optical_gemm.weight_mode: 'sideways' is not "
                "one of: "
                "stationary, streamed");
  EXPECT_EQ(plan_error("grid:\n  hbm.channels: [3]\n"),
            f + ": point 0 (hbm.channels=3): hbm.channels: 3 is not a power of two");
  EXPECT_EQ(plan_error("grid:\n  optical_gemm.rows: [16]\nconstraints: [optical_gemm.rows > 32]\n"),
            f + ": the constraints reject all 1 points");
  EXPECT_EQ(plan_error("grid:\n  optical_gemm.rows: [16]\nconstraints: [optical_gemm.rowz > 32]\n"),
            f + ": constraints: 'optical_gemm.rowz > 32': unknown configuration key 'optical_gemm.rowz'");
  EXPECT_EQ(
      plan_error("grid:\n  optical_gemm.rows: [16]\nconstraints: [optical_gemm.weight_mode > 32]\n"),
      f + ": point 0 (optical_gemm.rows=16): constraints: 'optical_gemm.weight_mode > 32': '>' compares text "
          "'stationary' with a number");
}

TEST(SweepPlan, ConstraintsKeepOutPointsTheConfigurationRefuses) {
  // With 2 or 4 channels HBM holds 2 or 4 GiB: the command ring at 4 GiB lies outside it.
  const std::string grid = "grid:\n  hbm.channels: [2, 4, 8, 16]\n";
  EXPECT_EQ(plan_error(grid),
            photon_test::spec_path() +
                ": point 0 (hbm.channels=2): cpu.ring_base: command ring lies outside HBM capacity "
                "(2147483648 bytes)");
  const SweepPlan p = plan(grid + "constraints: hbm.channels >= 8\n");
  ASSERT_EQ(p.runs.size(), 2u);
  EXPECT_EQ(p.skipped, 2u);
  EXPECT_EQ(p.runs[0].params["hbm.channels"], 8);
}

TEST(SweepPlan, KeysAreStableAndTellConfigurationsApart) {
  const std::string body = "grid:\n  hbm.tRCD: [12, 14, 16]\n  vector.lanes: [32, 64]\n";
  const SweepPlan a = plan(body), b = plan(body);
  std::set<std::string> keys;
  ASSERT_EQ(a.runs.size(), 6u);
  for (size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(a.runs[i].key, b.runs[i].key);
    EXPECT_EQ(a.runs[i].key.size(), 64u);
    keys.insert(a.runs[i].key);
  }
  EXPECT_EQ(keys.size(), 6u);
  // The key is the hash of the resolved configuration: a point equal to the base has the key of
  // a run of the base itself.
  const RunConfig base = load_run_config(std::string(PHOTON_SOURCE_DIR) + "/configs/default.yaml", {});
  const SweepPlan same = plan("points:\n  - {hbm.tRCD: 14}\n");  // the default tRCD
  EXPECT_EQ(same.runs[0].key, run_key(config_json(base), same.workloads[0]));
}

TEST(SweepPlan, RepeatedPointsRunOnce) {
  const SweepPlan p = plan("points:\n  - {hbm.tRCD: 12}\n  - {hbm.tRCD: 12}\n  - {hbm.tRCD: 13}\n");
  EXPECT_EQ(p.runs.size(), 2u);
  EXPECT_EQ(p.duplicates, 1u);
}

TEST(SweepPlan, KeysLeaveOutWhatChangesTheWallTimeOnly) {
  // sim.helper_threads never changes a report's figures: its points are one run.
  const SweepPlan p = plan("points:\n  - {sim.helper_threads: 0}\n  - {sim.helper_threads: 3}\n");
  EXPECT_EQ(p.runs.size(), 1u);
  EXPECT_EQ(p.duplicates, 1u);
  const RunConfig base = load_run_config(std::string(PHOTON_SOURCE_DIR) + "/configs/default.yaml", {});
  EXPECT_EQ(p.runs[0].key, run_key(config_json(base), p.workloads[0]));
  // A key that does change them still tells runs apart.
  EXPECT_EQ(plan("points:\n  - {sim.helper_threads: 0, hbm.tRCD: 12}\n  - {sim.helper_threads: 3}\n").runs.size(),
            2u);
}

TEST(SweepPlan, IdentityIgnoresTheValuesButNotTheBase) {
  const SweepPlan a = plan("grid:\n  hbm.tRCD: [12, 14]\n");
  const SweepPlan extended = plan("grid:\n  hbm.tRCD: [12, 14, 16, 18]\n");
  const SweepPlan other_base = plan("set: {vector.lanes: 16}\ngrid:\n  hbm.tRCD: [12, 14]\n");
  const SweepPlan other_key = plan("grid:\n  hbm.tRP: [12, 14]\n");
  EXPECT_EQ(a.identity, extended.identity);
  EXPECT_NE(a.identity, other_base.identity);
  EXPECT_NE(a.identity, other_key.identity);
  EXPECT_EQ(a.runs[1].key, extended.runs[1].key);
}

TEST(SweepPlan, LoweringGroupsFollowTheKeysTheLoweringReads) {
  const std::string onnx = std::string(PHOTON_SHARED_DIR) + "/inputs/onnx/lenet5_weights.onnx";
  auto groups = [&](const std::string& grid) {
    const SweepSpec s = parse_sweep_spec_text("base: ../../configs/default.yaml\nworkloads: [" + onnx +
                                                  ", ../../examples/gemm.pasm]\ngrid:\n" + grid,
                                              photon_test::spec_path());
    std::map<uint32_t, std::set<std::string>> g;
    for (const auto& r : make_plan(s, default_metrics({})).runs) g[r.workload].insert(r.group);
    return g;
  };
  // The vector unit's lanes and HBM timing do not change how a model is lowered.
  auto g = groups("  vector.lanes: [32, 64, 128]\n  hbm.tRCD: [12, 16]\n");
  EXPECT_EQ(g[0].size(), 1u);
  EXPECT_EQ(g[1].size(), 1u);
  // The optical array's shape does, for the ONNX model; a command stream is never lowered.
  g = groups("  optical_gemm.rows: [16, 32, 64]\n  vector.lanes: [32, 64]\n");
  EXPECT_EQ(g[0].size(), 3u);
  EXPECT_EQ(g[1].size(), 1u);
}

TEST(SweepPlan, RoundTripsThroughJson) {
  const SweepPlan p =
      plan("grid:\n  hbm.tRCD: [12, 14]\n  optical_gemm.weight_mode: [stationary, streamed]\n");
  const SweepPlan q = SweepPlan::from_json(p.to_json());
  EXPECT_EQ(q.to_json(), p.to_json());
  ASSERT_EQ(q.params.size(), 2u);
  EXPECT_EQ(q.params[0].sql_type, "INTEGER");
  EXPECT_EQ(q.params[1].sql_type, "TEXT");
}

}  // namespace
}  // namespace photon::sweep

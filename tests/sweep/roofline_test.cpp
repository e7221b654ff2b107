// Roofline data (sweep/roofline.h): ceilings from the configuration's formulas, points from ops.
#include <gtest/gtest.h>

#include "sweep/roofline.h"
#include "workloads/config/run_config.h"

namespace photon::sweep {
namespace {

TEST(Roofline, CeilingsAndPointsOfAnAiReport) {
  RunConfig c;  // 32 x 32 array, 8 wavelengths at 5 GHz; 64 vector lanes at 1 GHz; HBM2
  nlohmann::json report = {
      {"config", config_json(c)}, {"workload", "m.onnx"}, {"workload_info", {{"frontend", "onnx"}}}};
  report["ops"] = nlohmann::json::array(
      {{{"name", "conv"},
        {"kind", "Conv"},
        {"latency_ns", 1000.0},
        {"work",
         {{"gemm_macs", 1000000},
          {"vector_elements", 1000},
          {"hbm_read_bytes", 40000},
          {"hbm_write_bytes", 10000}}}},
       {{"name", "relu"},
        {"kind", "Relu"},
        {"latency_ns", 100.0},
        {"work", {{"vector_elements", 6400}, {"hbm_read_bytes", 25600}, {"hbm_write_bytes", 25600}}}},
       {{"name", "view"}, {"kind", "Flatten"}, {"latency_ns", 0.0}, {"work", {{"commands", 0}}}}});
  const nlohmann::json d = roofline_data(report);
  EXPECT_DOUBLE_EQ(d["hbm_gbps"].get<double>(), c.hbm.peak_bandwidth_gbps());
  EXPECT_DOUBLE_EQ(d["hbm_gbps"].get<double>(), 8 * 64 / 2.0);  // 8 channels x 64 B per 2 tCK of 1 ns
  ASSERT_EQ(d["ceilings"].size(), 2u);
  EXPECT_DOUBLE_EQ(d["ceilings"][0]["gops"].get<double>(), 2.0 * 32 * 32 * 8 * 5);
  EXPECT_DOUBLE_EQ(d["ceilings"][1]["gops"].get<double>(), 64);
  ASSERT_EQ(d["ops"].size(), 2u);  // the view has no work
  const auto& conv = d["ops"][0];
  EXPECT_EQ(conv["unit"], "optical_gemm");
  EXPECT_DOUBLE_EQ(conv["ops"].get<double>(), 2e6 + 1000);
  EXPECT_DOUBLE_EQ(conv["intensity"].get<double>(), (2e6 + 1000) / 50000);
  EXPECT_DOUBLE_EQ(conv["gops"].get<double>(), (2e6 + 1000) / 1000);
  EXPECT_EQ(conv["bound"], "memory");  // 40 ops/B < 81920 / 256 = 320
  const auto& relu = d["ops"][1];
  EXPECT_EQ(relu["unit"], "vector");
  EXPECT_DOUBLE_EQ(relu["intensity"].get<double>(), 6400.0 / 51200);
  EXPECT_EQ(relu["bound"], "memory");  // 0.125 < 64 / 256
}

TEST(Roofline, FheOpsCountButterfliesFromTheRingDegree) {
  RunConfig c;
  nlohmann::json report = {{"config", config_json(c)}, {"workload_info", {{"frontend", "heir"}}}};
  report["ops"] = nlohmann::json::array(
      {{{"name", "mul"},
        {"kind", "hmult"},
        {"latency_ns", 500.0},
        {"detail", "N=2^13 l=5 L=5"},
        {"work",
         {{"ntt_limb_transforms", 4}, {"modmul_words", 1000}, {"bconv_macs", 100}, {"hbm_read_bytes", 0}}}}});
  const nlohmann::json d = roofline_data(report);
  ASSERT_EQ(d["ceilings"].size(), 1u);
  EXPECT_DOUBLE_EQ(d["ceilings"][0]["gops"].get<double>(), (64 + 64 + 64 + 64) * 1.0);
  const double ops = 4 * 8192 / 2 * 13 + 1000 + 100;
  EXPECT_DOUBLE_EQ(d["ops"][0]["ops"].get<double>(), ops);
  EXPECT_TRUE(d["ops"][0]["intensity"].is_null());  // no HBM traffic
  EXPECT_EQ(d["ops"][0]["bound"], "compute");
}

}  // namespace
}  // namespace photon::sweep

// Functional runs with physical optical numerics report their output error against an ideal run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_util.h"

using namespace photon_test;

namespace {
nlohmann::json run_lenet(const std::string& name, const std::string& sets) {
  std::string rep = temp_path(name + ".json");
  auto r = photon("run --config " + src("configs/default.yaml") + " --workload " +
                  shared("inputs/onnx/lenet5_weights.onnx") + " --mode functional --input input=" +
                  shared("inputs/onnx/lenet5_weights_input_0.pb") + " " + sets + " --report " + rep + " -q");
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(slurp(rep));
}
}  // namespace

TEST(NumericsError, PhysicalNumericsReportErrorAgainstIdeal) {
  auto noisy = run_lenet("noisy", "--set optical_gemm.numerics=physical --set optical_gemm.noise_std=0.02");
  ASSERT_TRUE(noisy.contains("numerics_error"));
  double rel = noisy["numerics_error"]["output"]["relative_rms_error"].get<double>();
  EXPECT_GT(rel, 1e-3);  // 8-bit converters and 2 % noise are visible
  EXPECT_LT(rel, 1.0);
  // 16-bit converters without noise: the error is quantisation only, 2^-15 of full scale per
  // dot product, far below 1e-2 of the output's RMS.
  auto fine = run_lenet("fine",
                        "--set optical_gemm.numerics=physical --set optical_gemm.noise_std=0 "
                        "--set optical_gemm.dac_bits=16 --set optical_gemm.weight_bits=16 "
                        "--set optical_gemm.adc_bits=16");
  double rel_fine = fine["numerics_error"]["output"]["relative_rms_error"].get<double>();
  EXPECT_LT(rel_fine, 1e-2);
  EXPECT_LT(rel_fine, rel);
  // Ideal numerics: no comparison is made.
  auto ideal = run_lenet("ideal", "");
  EXPECT_FALSE(ideal.contains("numerics_error"));
}

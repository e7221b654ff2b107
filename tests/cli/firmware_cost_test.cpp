// The native firmware model's cost parameters are measured on the rv32 ISS: the defaults of
// cpu.dispatch_cycles and cpu.irq_latency_cycles are what the ISS measures (firmware.measured,
// models/rv32/README.md "Firmware cost"), and with them the two CPU models give the same
// simulated time to within 5 % on an ONNX model and a HEIR program.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli_util.h"
#include "soc/platform_config.h"

namespace {

using photon_test::photon;
using photon_test::slurp;
using photon_test::src;
using photon_test::temp_path;

nlohmann::json run(const std::string& config, const std::string& workload, const std::string& model) {
  const std::string report = temp_path("cost_" + model + ".json");
  const auto r = photon("run --config " + src(config) + " --workload " + workload +
                        " --set cpu.model=" + model + " --report " + report + " --quiet");
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(report);
  std::remove(report.c_str());
  return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
}

TEST(FirmwareCost, NativeDefaultsAreWhatTheIssMeasures) {
  // light_squeezenet (602 commands, 10 wake-ups) stands in for light_resnet50, on which the
  // defaults were measured (410 and 88 cycles).
  const auto rep =
      run("configs/default.yaml", photon_test::shared("inputs/onnx/light_squeezenet.onnx"), "rv32");
  const auto& m = rep["firmware"]["measured"];
  const photon::CpuConfig defaults;
  ASSERT_TRUE(m.contains("dispatch_cycles") && m.contains("irq_latency_cycles")) << m;
  EXPECT_NEAR(m["dispatch_cycles"].get<double>(), defaults.dispatch_cycles, 0.02 * defaults.dispatch_cycles);
  EXPECT_NEAR(m["irq_latency_cycles"].get<double>(), defaults.irq_latency_cycles,
              0.05 * defaults.irq_latency_cycles);
}

TEST(FirmwareCost, NativeAndRv32AgreeInSimulatedTime) {
  struct Case {
    const char* config;
    std::string workload;
  } cases[] = {{"configs/default.yaml", photon_test::shared("inputs/onnx/light_squeezenet.onnx")},
               {"configs/sharp_like.yaml", photon_test::shared("inputs/heir/orion_mlp_ckks.mlir")}};
  for (const auto& c : cases) {
    const double native = run(c.config, c.workload, "native")["simulated_time_ns"].get<double>();
    const double rv32 = run(c.config, c.workload, "rv32")["simulated_time_ns"].get<double>();
    EXPECT_LT(std::abs(rv32 - native) / native, 0.05)
        << c.workload << ": native " << native << " ns, rv32 " << rv32;
  }
}

}  // namespace

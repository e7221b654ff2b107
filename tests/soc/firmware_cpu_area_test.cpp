// Firmware CPU area (platform/firmware_cpu_area.h): Ibex "small", 26.60 kGE at 0.199 um2/GE.
#include <gtest/gtest.h>

#include "soc/firmware_cpu_area.h"

namespace photon {
namespace {

TEST(FirmwareCpuArea, IbexSmallInGateEquivalents) {
  EXPECT_NEAR(firmware_cpu_area(CpuConfig{}).total_mm2(), 26600 * 0.199e-6, 1e-15);
}

}  // namespace
}  // namespace photon

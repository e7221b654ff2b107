// HBM PHY area (models/hbm/hbm_area.h): F1's two HBM2 PHYs in 29.80 mm2.
#include <gtest/gtest.h>

#include "models/hbm/hbm_area.h"

namespace photon {
namespace {

TEST(HbmArea, OnePhyPerThousandTwentyFourBitStack) {
  HbmConfig c;
  c.apply_preset("hbm2");  // 8 channels x 128 bits: one stack
  EXPECT_EQ(uint64_t(c.units()) * c.bus_width_bits, 1024u);
  EXPECT_NEAR(hbm_area(c).total_mm2(), 29.80 / 2, 1e-12);
  c.channels = 16;  // two stacks
  EXPECT_NEAR(hbm_area(c).total_mm2(), 29.80, 1e-12);
  c.apply_preset("hbm3");
  EXPECT_NEAR(hbm_area(c).total_mm2(), double(c.units()) * c.bus_width_bits / 1024 * 14.9, 1e-12);
}

}  // namespace
}  // namespace photon

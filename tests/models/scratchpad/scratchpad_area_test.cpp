// Scratchpad area (models/scratchpad/scratchpad_area.h): F1's 64 MiB in 48.09 mm2.
#include <gtest/gtest.h>

#include "models/scratchpad/scratchpad_area.h"

namespace photon {
namespace {

TEST(ScratchpadArea, CapacityTimesF1Density) {
  ScratchpadConfig c;
  c.size_kib = 64 * 1024;
  EXPECT_NEAR(scratchpad_area(c).total_mm2(), 48.09, 1e-12);
  c.size_kib = 8192;
  EXPECT_NEAR(scratchpad_area(c).total_mm2(), 48.09 / 8, 1e-12);
}

}  // namespace
}  // namespace photon

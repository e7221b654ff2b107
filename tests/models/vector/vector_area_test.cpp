// Vector unit area (models/vector/vector_area.h): Horowitz's fp32 adder and multiplier.
#include <gtest/gtest.h>

#include "models/vector/vector_area.h"

namespace photon {
namespace {

TEST(VectorArea, LanesTimesFp32AddAndMultiply) {
  VectorConfig c;
  c.lanes = 64;
  EXPECT_NEAR(vector_area(c).total_mm2(), 64 * (4184 + 7700) * (14.0 / 45) * (14.0 / 45) * 1e-6, 1e-12);
  c.lanes = 128;
  EXPECT_NEAR(vector_area(c).total_mm2(), 2 * 64 * (4184 + 7700) * 0.0967901234567901 * 1e-6, 1e-9);
}

}  // namespace
}  // namespace photon

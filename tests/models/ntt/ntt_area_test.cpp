// NTT unit area (models/ntt/ntt_area.h) from F1's functional units (MICRO 2021, Table 3).
#include <gtest/gtest.h>

#include "models/ntt/ntt_area.h"

namespace photon {
namespace {

TEST(NttArea, F1UnitsAtThirtyTwoBitWords) {
  NttConfig c;
  c.word_bits = 32;
  c.lanes = 448;  // F1's NTT FU: a 128-point NTT per cycle
  c.modmul_lanes = 128;
  c.bconv_macs = 128;
  c.automorph_lanes = 128;
  const UnitArea a = ntt_area(c);
  ASSERT_EQ(a.parts.size(), 4u);
  EXPECT_NEAR(a.parts[0].second, 2.27, 1e-12);         // F1's NTT FU
  EXPECT_NEAR(a.parts[1].second, 0.25 + 0.03, 1e-12);  // multiply FU + add FU
  EXPECT_NEAR(a.parts[2].second, 0.25 + 0.03, 1e-12);  // as many MACs
  EXPECT_NEAR(a.parts[3].second, 0.58, 1e-12);         // automorphism FU
}

TEST(NttArea, WordWidthScalesMultipliersQuadraticallyAndAddersLinearly) {
  NttConfig c;  // 64 lanes of each kind, 64-bit words
  const UnitArea a = ntt_area(c);
  EXPECT_NEAR(a.parts[0].second, 64 * 2.27 / 448 * 4, 1e-12);
  EXPECT_NEAR(a.parts[1].second, 64 * (0.25 / 128 * 4 + 0.03 / 128 * 2), 1e-12);
  EXPECT_NEAR(a.parts[3].second, 64 * 0.58 / 128 * 2, 1e-12);
  EXPECT_NEAR(a.total_mm2(), 1.2971428571 + 0.53 + 0.53 + 0.58, 1e-9);
}

}  // namespace
}  // namespace photon

// Optical GEMM area (models/optical_gemm/optical_gemm_area.h) against the formula worked by hand
// from the published footprints (Lightening-Transformer's device table, HPCA 2024).
#include <gtest/gtest.h>

#include "models/optical_gemm/optical_gemm_area.h"

namespace photon {
namespace {

double part(const UnitArea& a, const std::string& name) {
  for (const auto& [p, mm2] : a.parts)
    if (p == name) return mm2;
  ADD_FAILURE() << "no part " << name;
  return 0;
}

TEST(OpticalGemmArea, ConvertersScaleByBitsAndRate) {
  EXPECT_NEAR(adc_area_mm2(8, 10), 2850e-6, 1e-15);           // the reference design
  EXPECT_NEAR(adc_area_mm2(8, 5), 2850e-6, 1e-15);            // one channel below its rate
  EXPECT_NEAR(adc_area_mm2(10, 20), 2850e-6 * 4 * 2, 1e-15);  // 2 more bits, 2 interleaved
  EXPECT_NEAR(adc_area_mm2(6, 10), 2850e-6 / 4, 1e-15);
  EXPECT_NEAR(dac_area_mm2(8, 14), 11000e-6, 1e-15);
  EXPECT_NEAR(dac_area_mm2(4, 28), 11000e-6 / 16 * 2, 1e-15);
}

TEST(OpticalGemmArea, DefaultStationaryEngine) {
  OpticalGemmConfig c;  // 32 x 32, 8 wavelengths, 5 GHz, 8-bit converters, 10 ns programming
  const UnitArea a = optical_gemm_area(c);
  EXPECT_NEAR(part(a, "weight_cells"), 1024 * 180 * 100e-6, 1e-12);
  EXPECT_NEAR(part(a, "modulators"), 32 * 8 * 260 * 20e-6, 1e-12);
  EXPECT_NEAR(part(a, "microrings"), 64 * 8 * 2 * 4.8 * 4.8e-6, 1e-12);
  EXPECT_NEAR(part(a, "detectors"), 32 * 8 * (40 + 50) * 1e-6, 1e-12);
  // 256 input DACs at 5 GS/s and 1024 weight DACs at 0.1 GS/s, one 8-bit channel each.
  EXPECT_NEAR(part(a, "dacs"), (256 + 1024) * 11000e-6, 1e-12);
  EXPECT_NEAR(part(a, "adcs"), 256 * 2850e-6, 1e-12);
  EXPECT_NEAR(part(a, "laser"), (400 * 300 + 1184.0 * 1184) * 1e-6, 1e-12);
  double sum = 0;
  for (const auto& p : a.parts) sum += p.second;
  EXPECT_DOUBLE_EQ(a.total_mm2(), sum);
  EXPECT_NEAR(a.total_mm2(), 18.432 + 1.3312 + 0.0235929 + 0.02304 + 14.08 + 0.7296 + 1.521856, 1e-6);
}

TEST(OpticalGemmArea, StreamedEngineAndOneWavelength) {
  OpticalGemmConfig c;
  c.weight_mode = WeightMode::Streamed;
  c.wavelengths = 1;
  c.modulation_ghz = 20;
  c.adc_bits = 6;
  const UnitArea a = optical_gemm_area(c);
  EXPECT_NEAR(part(a, "weight_cells"), 1024 * (147.05 * 66.8) * 1e-6, 1e-9);
  EXPECT_NEAR(part(a, "modulators"), 64 * 260 * 20e-6, 1e-12);
  // 64 DACs at 20 GS/s: 20/14 interleaved channels each.
  EXPECT_NEAR(part(a, "dacs"), 64 * 11000e-6 * 20 / 14, 1e-12);
  EXPECT_NEAR(part(a, "adcs"), 32 * 2850e-6 / 4 * 2, 1e-12);
  EXPECT_NEAR(part(a, "laser"), 400 * 300e-6, 1e-12);  // no comb for one wavelength
}

}  // namespace
}  // namespace photon

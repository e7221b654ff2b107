#include "models/optical_gemm/optical_gemm_area.h"

#include <algorithm>
#include <cmath>

namespace photon {

namespace {

constexpr double kUm2 = 1e-6;  // mm2 per um2
// Device footprints, um2 (Lightening-Transformer's device table, see the header).
constexpr double kMziUm2 = 180.0 * 100.0;
constexpr double kModulatorUm2 = 260.0 * 20.0;
constexpr double kMicroringUm2 = 4.8 * 4.8;
constexpr double kDetectorUm2 = 4.0 * 10.0;
constexpr double kTiaUm2 = 50.0;
constexpr double kCrossbarNodeUm2 = (1.8 + 100.0 + 5.25 + 10.0 + 30.0) * (1.8 + 45.0 + 20.0);
constexpr double kLaserUm2 = 400.0 * 300.0;
constexpr double kCombUm2 = 1184.0 * 1184.0;
// Reference converters.
constexpr double kAdcRefUm2 = 2850, kAdcRefBits = 8, kAdcRefGsps = 10;
constexpr double kDacRefUm2 = 11000, kDacRefBits = 8, kDacRefGsps = 14;

double converter_mm2(double ref_um2, double ref_bits, double ref_gsps, uint32_t bits, double gsps) {
  return ref_um2 * std::ldexp(1.0, int(bits) - int(ref_bits)) * std::max(1.0, gsps / ref_gsps) * kUm2;
}

}  // namespace

double adc_area_mm2(uint32_t bits, double gsps) {
  return converter_mm2(kAdcRefUm2, kAdcRefBits, kAdcRefGsps, bits, gsps);
}

double dac_area_mm2(uint32_t bits, double gsps) {
  return converter_mm2(kDacRefUm2, kDacRefBits, kDacRefGsps, bits, gsps);
}

UnitArea optical_gemm_area(const OpticalGemmConfig& c) {
  const double rows = c.rows, cols = c.cols, w = c.wavelengths, f = c.modulation_ghz;
  const bool stationary = c.weight_mode == WeightMode::Stationary;
  UnitArea a;
  if (stationary) {
    a.add("weight_cells", rows * cols * kMziUm2 * kUm2);
    a.add("modulators", cols * w * kModulatorUm2 * kUm2);
    a.add("microrings", (rows + cols) * w * 2 * kMicroringUm2 * kUm2);
    a.add("detectors", rows * w * (kDetectorUm2 + kTiaUm2) * kUm2);
    const double program_gsps = c.weight_program_ns > 0 ? 1.0 / c.weight_program_ns : kDacRefGsps;
    a.add("dacs",
          cols * w * dac_area_mm2(c.dac_bits, f) + rows * cols * dac_area_mm2(c.weight_bits, program_gsps));
  } else {
    a.add("weight_cells", rows * cols * kCrossbarNodeUm2 * kUm2);
    a.add("modulators", (rows + cols) * w * kModulatorUm2 * kUm2);
    a.add("microrings", (rows + cols) * w * 2 * kMicroringUm2 * kUm2);
    a.add("detectors", rows * w * kTiaUm2 * kUm2);
    a.add("dacs", cols * w * dac_area_mm2(c.dac_bits, f) + rows * w * dac_area_mm2(c.weight_bits, f));
  }
  a.add("adcs", rows * w * adc_area_mm2(c.adc_bits, f));
  a.add("laser", (kLaserUm2 + (c.wavelengths > 1 ? kCombUm2 : 0.0)) * kUm2);
  return a;
}

}  // namespace photon

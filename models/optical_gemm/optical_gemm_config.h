// Optical (photonic) GEMM engine configuration.
// Parameter ranges follow published photonic tensor cores (Lightening-Transformer, HPCA 2024;
// torchonn device models): tens of rows/columns, a few to tens of WDM wavelengths, 5-10 GHz
// modulation, 4-8 bit DAC/ADC.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

/// Weight operand: stationary in the array (reprogrammed per tile, weight_program_ns) or streamed
/// with the inputs (both operands modulated every pass).
enum class WeightMode { Stationary, Streamed };
inline const EnumTable<WeightMode>& weight_mode_table() {
  static const EnumTable<WeightMode> t{{WeightMode::Stationary, "stationary"},
                                       {WeightMode::Streamed, "streamed"}};
  return t;
}
/// Functional numerics: exact fp32 (ideal) or the hardware's (DAC/weight quantisation, noise, ADC).
enum class Numerics { Ideal, Physical };
inline const EnumTable<Numerics>& numerics_table() {
  static const EnumTable<Numerics> t{{Numerics::Ideal, "ideal"}, {Numerics::Physical, "physical"}};
  return t;
}

struct OpticalGemmConfig {
  uint32_t rows = 32;                  ///< array rows (output features produced in parallel)
  uint32_t cols = 32;                  ///< array columns (reduction length per optical dot product)
  uint32_t wavelengths = 8;            ///< WDM channels (input vectors in flight at once)
  double modulation_ghz = 5.0;         ///< modulator symbol rate, GHz
  double clock_ghz = 1.0;              ///< electronic control/accumulation clock, GHz
  uint32_t dac_bits = 8;               ///< input (activation) DAC resolution, bits
  uint32_t weight_bits = 8;            ///< weight encoding resolution, bits
  uint32_t adc_bits = 8;               ///< output ADC resolution, bits
  double conversion_latency_ns = 1.0;  ///< DAC + ADC conversion latency added once per pass, ns
  WeightMode weight_mode = WeightMode::Stationary;  ///< stationary | streamed
  double weight_program_ns = 10.0;         ///< stationary: reprogramming a weight tile, ns (EO ~ns, TO ~us)
  uint32_t pipeline_depth = 4;             ///< pipeline stages, cycles of clock_ghz
  Numerics numerics = Numerics::Ideal;     ///< ideal | physical
  double noise_std = 0.01;                 ///< Gaussian noise std, fraction of output full scale
  uint64_t seed = 1;                       ///< noise RNG seed
  double modulation_energy_pj = 1.0;       ///< per modulated symbol, pJ
  double dac_energy_pj = 0.5;              ///< per DAC conversion, pJ
  double adc_energy_pj = 1.0;              ///< per ADC conversion, pJ
  double laser_power_mw = 100.0;           ///< laser wall-plug power while busy, mW (= pJ/ns)
  double weight_program_energy_pj = 10.0;  ///< per weight cell programmed, pJ

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".rows", &rows, 1, 4096, "array rows");
    ps.add_uint(p + ".cols", &cols, 1, 4096, "array columns");
    ps.add_uint(p + ".wavelengths", &wavelengths, 1, 256, "WDM wavelengths");
    ps.add_double(p + ".modulation_ghz", &modulation_ghz, 0.01, 1000, "modulation rate, GHz");
    ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 100, "electronic clock, GHz");
    ps.add_uint(p + ".dac_bits", &dac_bits, 1, 16, "DAC bits");
    ps.add_uint(p + ".weight_bits", &weight_bits, 1, 16, "weight bits");
    ps.add_uint(p + ".adc_bits", &adc_bits, 1, 16, "ADC bits");
    ps.add_double(p + ".conversion_latency_ns", &conversion_latency_ns, 0, 1e6, "DAC+ADC latency, ns");
    ps.add_enum(p + ".weight_mode", &weight_mode, weight_mode_table(), "weight operand mode");
    ps.add_double(p + ".weight_program_ns", &weight_program_ns, 0, 1e9,
                  "weight tile reprogramming latency, ns");
    ps.add_uint(p + ".pipeline_depth", &pipeline_depth, 0, 1024, "pipeline depth, cycles");
    ps.add_enum(p + ".numerics", &numerics, numerics_table(), "functional numerics");
    ps.add_double(p + ".noise_std", &noise_std, 0, 1, "noise std as a fraction of full scale");
    ps.add_uint(p + ".seed", &seed, 0, ~uint64_t(0) >> 1, "noise RNG seed");
    ps.add_double(p + ".modulation_energy_pj", &modulation_energy_pj, 0, 1e6,
                  "energy per modulated symbol, pJ");
    ps.add_double(p + ".dac_energy_pj", &dac_energy_pj, 0, 1e6, "energy per DAC conversion, pJ");
    ps.add_double(p + ".adc_energy_pj", &adc_energy_pj, 0, 1e6, "energy per ADC conversion, pJ");
    ps.add_double(p + ".laser_power_mw", &laser_power_mw, 0, 1e6, "laser power while busy, mW");
    ps.add_double(p + ".weight_program_energy_pj", &weight_program_energy_pj, 0, 1e6,
                  "energy per weight cell programmed, pJ");
  }
};

}  // namespace photon

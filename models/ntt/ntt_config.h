// NTT unit configuration.
#pragma once

#include <cstdint>
#include <string>

#include "platform/config/param_set.h"

namespace photon {

struct NttConfig {
  uint32_t lanes = 64;               ///< butterfly lanes (butterflies per cycle)
  uint32_t word_bits = 64;           ///< modular word width, bits
  uint32_t pipeline_depth = 20;      ///< butterfly pipeline depth, cycles
  double clock_ghz = 1.0;            ///< clock, GHz
  std::string twiddle_source = "on_the_fly";  ///< on_the_fly | memory
  uint32_t modmul_lanes = 64;        ///< element-wise modular multipliers per cycle
  uint32_t bconv_macs = 64;          ///< base-conversion multiply-accumulates per cycle
  uint32_t automorph_lanes = 64;     ///< automorphism elements permuted per cycle
  uint32_t transpose_cycles = 0;     ///< per-transform transpose overhead (4-step NTT), cycles
  double butterfly_energy_pj = 3.0;  ///< one modular butterfly, pJ
  double modmul_energy_pj = 2.0;     ///< one modular multiply, pJ
  double modadd_energy_pj = 0.3;     ///< one modular add, pJ

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".lanes", &lanes, 1, 65536, "butterflies per cycle");
    ps.add_uint(p + ".word_bits", &word_bits, 16, 64, "modular word width, bits");
    ps.add_uint(p + ".pipeline_depth", &pipeline_depth, 0, 10000, "pipeline depth, cycles");
    ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 100, "clock, GHz");
    ps.add_choice(p + ".twiddle_source", &twiddle_source, {"on_the_fly", "memory"}, "twiddle factor source");
    ps.add_uint(p + ".modmul_lanes", &modmul_lanes, 1, 65536, "modular multiplies per cycle");
    ps.add_uint(p + ".bconv_macs", &bconv_macs, 1, 1u << 20, "base-conversion MACs per cycle");
    ps.add_uint(p + ".automorph_lanes", &automorph_lanes, 1, 65536, "automorphism elements per cycle");
    ps.add_uint(p + ".transpose_cycles", &transpose_cycles, 0, 1u << 24, "transpose overhead per transform, cycles");
    ps.add_double(p + ".butterfly_energy_pj", &butterfly_energy_pj, 0, 1e6, "energy per butterfly, pJ");
    ps.add_double(p + ".modmul_energy_pj", &modmul_energy_pj, 0, 1e6, "energy per modular multiply, pJ");
    ps.add_double(p + ".modadd_energy_pj", &modadd_energy_pj, 0, 1e6, "energy per modular add, pJ");
  }
};

}  // namespace photon

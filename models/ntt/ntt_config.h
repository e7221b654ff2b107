// NTT unit configuration. The timing formulas that use these keys are in models/ntt/README.md and
// models/ntt/ntt_engine.h. Defaults: a generic 64-lane unit at 1 GHz; configs/sharp_like.yaml
// sets a SHARP-like machine (SHARP, ISCA 2023; Homulator config_4.cfg).
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

/// Where twiddle factors come from: generated on the fly, or read from memory.
enum class TwiddleSource { OnTheFly, Memory };
inline const EnumTable<TwiddleSource>& twiddle_source_table() {
  static const EnumTable<TwiddleSource> t{{TwiddleSource::OnTheFly, "on_the_fly"},
                                          {TwiddleSource::Memory, "memory"}};
  return t;
}

struct NttConfig {
  uint32_t lanes = 64;      ///< butterfly lanes (butterflies per cycle)
  uint32_t word_bits = 64;  ///< modular word width, bits
  uint32_t pipeline_depth =
      20;  ///< butterfly pipeline depth: a row's issue to its result being readable, cycles
  uint32_t limb_interleave = 2;  ///< limbs the butterflies interleave stage by stage (hides pipeline_depth)
  double clock_ghz = 1.0;        ///< clock, GHz
  TwiddleSource twiddle_source = TwiddleSource::OnTheFly;  ///< on_the_fly | memory
  uint32_t modmul_lanes = 64;                              ///< element-wise modular multipliers per cycle
  uint32_t bconv_macs = 64;                                ///< base-conversion multiply-accumulates per cycle
  uint32_t automorph_lanes = 64;                           ///< automorphism elements permuted per cycle
  uint32_t transpose_cycles = 0;           ///< transpose fill per NTT/INTT command (4-step NTT), cycles
  uint32_t bconv_latency_cycles = 24;      ///< BConv pipeline fill (Homulator: 20-cycle MAC + 4-cycle FIFO)
  uint32_t ewe_latency_cycles = 4;         ///< element-wise pipeline fill (Homulator: 4-cycle multiplier)
  uint32_t automorph_latency_cycles = 36;  ///< automorphism network fill (Homulator: 6 stages x 6 cycles)
  uint32_t spm_words_per_cycle = 0;  ///< scratchpad words (64-bit) the unit moves per cycle; 0 = no bound
  double butterfly_energy_pj = 3.0;  ///< one modular butterfly, pJ
  double modmul_energy_pj = 2.0;     ///< one modular multiply, pJ
  double modadd_energy_pj = 0.3;     ///< one modular add, pJ
  double automorph_energy_pj = 0.2;  ///< one element through the automorphism network, pJ
  /// tlm: the C++ model; rtl: NTT and INTT on the verilated core of cosim/ntt (the other
  /// operations stay on the model), docs/cosim.md.

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".lanes", &lanes, 1, 65536, "butterflies per cycle");
    ps.add_uint(p + ".word_bits", &word_bits, 16, 64, "modular word width, bits");
    ps.add_uint(p + ".pipeline_depth", &pipeline_depth, 0, 10000,
                "butterfly pipeline depth (issue to result readable), cycles");
    ps.add_uint(p + ".limb_interleave", &limb_interleave, 1, 4096,
                "limbs interleaved stage by stage in the NTT pipeline");
    ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 100, "clock, GHz");
    ps.add_enum(p + ".twiddle_source", &twiddle_source, twiddle_source_table(), "twiddle factor source");
    ps.add_uint(p + ".modmul_lanes", &modmul_lanes, 1, 65536, "modular multiplies per cycle");
    ps.add_uint(p + ".bconv_macs", &bconv_macs, 1, 1u << 20, "base-conversion MACs per cycle");
    ps.add_uint(p + ".automorph_lanes", &automorph_lanes, 1, 65536, "automorphism elements per cycle");
    ps.add_uint(p + ".transpose_cycles", &transpose_cycles, 0, 1u << 24,
                "transpose fill per NTT/INTT command, cycles");
    ps.add_uint(p + ".bconv_latency_cycles", &bconv_latency_cycles, 0, 1u << 20,
                "base-conversion pipeline fill per command, cycles");
    ps.add_uint(p + ".ewe_latency_cycles", &ewe_latency_cycles, 0, 1u << 20,
                "element-wise pipeline fill per command, cycles");
    ps.add_uint(p + ".automorph_latency_cycles", &automorph_latency_cycles, 0, 1u << 20,
                "automorphism pipeline fill per command, cycles");
    ps.add_uint(p + ".spm_words_per_cycle", &spm_words_per_cycle, 0, 1u << 20,
                "scratchpad 64-bit words read+written per cycle (0: unbounded)");
    ps.add_double(p + ".butterfly_energy_pj", &butterfly_energy_pj, 0, 1e6, "energy per butterfly, pJ");
    ps.add_double(p + ".modmul_energy_pj", &modmul_energy_pj, 0, 1e6, "energy per modular multiply, pJ");
    ps.add_double(p + ".modadd_energy_pj", &modadd_energy_pj, 0, 1e6, "energy per modular add, pJ");
    ps.add_double(p + ".automorph_energy_pj", &automorph_energy_pj, 0, 1e6,
                  "energy per automorphism element, pJ");
  }
};

}  // namespace photon

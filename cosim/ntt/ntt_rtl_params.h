// NttRtlParams: the elaboration parameters of one verilated ntt_core (cosim/ntt/rtl/ntt_core.sv)
// and the facts the transactor derives from them. Pure C++.
#pragma once

#include <cstdint>
#include <string>

namespace photon::cosim {

struct NttRtlParams {
  uint32_t lanes = 4;           ///< butterflies per cycle (power of two >= 2)
  uint32_t width = 64;          ///< modulus and coefficient width, bits (16..64)
  uint32_t log_n_max = 16;      ///< largest log2 N the core's memories hold
  uint32_t pipeline_depth = 8;  ///< cycles from a row's issue until it can be read back
  uint32_t group = 2;           ///< limbs interleaved stage by stage

  uint32_t log_lanes() const;
  /// Smallest log2 N the core takes: each half of a limb needs two rows of `lanes` words.
  uint32_t log_n_min() const { return log_lanes() + 2; }
  /// Rows of `lanes` butterflies per stage: T = N / (2 lanes).
  uint64_t rows(uint32_t log_n) const { return (uint64_t(1) << log_n) / (2 * lanes); }
  /// Cycles after which the transactor gives up on a command (no done): four times the cycles of
  /// the command with no interleaving and a full stall between every two stages (the slowest the
  /// core is at full stream rates), plus 1000 for the stimulus' gaps in tests.
  uint64_t watchdog_cycles(uint32_t log_n, uint32_t limbs) const;
  /// "lanes=64 word_bits=64 pipeline_depth=20 limb_interleave=2 log_n_max=16"
  std::string describe() const;
};

}  // namespace photon::cosim

// Scratchpad bank-conflict timing (pure C++).
//
// Addresses interleave across `banks` banks every `bank_width_bytes` bytes (word w lives in bank
// w mod banks). One port moves at most one word per bank per cycle, so an access touching words
// [w0, w1] needs as many cycles as the most-loaded bank holds words of it:
//   cycles = ceil((w1 - w0 + 1) / banks)        (contiguous range; equal per-bank load +-1)
// and a strided access (row of `row_bytes` every `stride` bytes, `rows` rows) needs
//   cycles = max over banks of the words of all rows that fall in that bank
// which counts the bank conflicts a power-of-two stride causes. Source: the standard
// low-order-interleaved banked SRAM model (e.g. Hennessy & Patterson, "Memory banks").
#pragma once

#include <cstdint>

#include "models/scratchpad/scratchpad_config.h"

namespace photon {

class ScratchpadTiming {
 public:
  explicit ScratchpadTiming(const ScratchpadConfig& cfg) : cfg_(cfg) {}

  /// Cycles for one port to move bytes [offset, offset+bytes) (0 bytes -> 0 cycles).
  uint64_t contiguous_cycles(uint64_t offset, uint64_t bytes) const;
  /// Cycles for `rows` rows of `row_bytes` bytes, `stride` bytes apart, starting at `offset`.
  uint64_t strided_cycles(uint64_t offset, uint64_t row_bytes, uint64_t stride, uint64_t rows) const;

 private:
  ScratchpadConfig cfg_;
};

}  // namespace photon

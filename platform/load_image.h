// LoadImage: what the memories hold when a command issues, as far as the command stream itself
// says, known before the run. Pure C++ (no SystemC).
//
// It starts from the program's data segments and constant fills (the bytes the host places in
// HBM or the scratchpad before the doorbell) and follows, in stream order, the DMA copies
// (a copy from known bytes makes its destination known, a copy from unknown bytes makes it
// unknown) and the NTT commands' destinations (computed at run time: unknown). Writes by GEMM and
// vector commands are not followed. A unit's check_command() reads it to refuse, before the
// simulation, operands that are data in memory, such as the NTT unit's moduli table
// (models/ntt/README.md). Stream order is the order the stream's semaphores give its commands;
// a stream that races a copy against its reader without a semaphore is not modelled.
//
// Cost: one interval per contiguous piece of known bytes; a copy costs O(log pieces) per row
// (a DMA of n1 x n2 rows). Bytes are not copied: a piece points at the segment it came from.
#pragma once

#include <cstdint>
#include <map>

#include "isa/program.h"

namespace photon {

class LoadImage {
 public:
  /// Addresses are data-NoC addresses (bytes); the scratchpad window starts at `scratchpad_base`
  /// (NTT, GEMM and vector operands are offsets into it).
  explicit LoadImage(uint64_t scratchpad_base) : spm_base_(scratchpad_base) {}

  /// `bytes` bytes at `address` are known before the run; `data` must outlive the image.
  void add_bytes(uint64_t address, const uint8_t* data, uint64_t bytes);
  /// `count` fp32 copies of `value` at `address` (a constant fill).
  void add_fill(uint64_t address, uint64_t count, float value);
  /// Follows command `c`'s writes (call in stream order, after checking `c`).
  void apply(const pcs::Command& c);

  /// Copies [address, +bytes) into `dst` and returns true if every byte is known.
  bool read(uint64_t address, void* dst, uint64_t bytes) const;
  /// read() at a scratchpad byte offset.
  bool read_scratchpad(uint64_t offset, void* dst, uint64_t bytes) const {
    return read(spm_base_ + offset, dst, bytes);
  }
  /// Contiguous pieces of known bytes (for tests and cost checks).
  size_t pieces() const { return pieces_.size(); }

 private:
  struct Piece {
    uint64_t hi = 0;                ///< one past the last byte
    const uint8_t* data = nullptr;  ///< byte at address a: data[a - lo]; nullptr: a fill
    uint64_t fill_origin = 0;       ///< a fill's first address (its fp32 phase)
    uint32_t fill_bits = 0;         ///< a fill's fp32 value
  };
  /// Cuts pieces at `a` so that no piece straddles it.
  void split(uint64_t a);
  /// True if some byte of [lo, hi) is known.
  bool any_known(uint64_t lo, uint64_t hi) const;
  /// Forgets [lo, hi).
  void erase(uint64_t lo, uint64_t hi);
  /// Copies what is known of [src, src+bytes) to dst (the rest of dst becomes unknown).
  void copy(uint64_t src, uint64_t dst, uint64_t bytes);

  uint64_t spm_base_;
  std::map<uint64_t, Piece> pieces_;  ///< by first address; disjoint
};

}  // namespace photon

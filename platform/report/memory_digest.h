// MemoryDigest: fingerprints of what a functional run left in memory, so that two runs of one
// stream (e.g. ntt.impl=tlm and ntt.impl=rtl) can be compared from their reports alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace photon {

/// 64-bit FNV-1a (Fowler, Noll, Vo; IETF draft-eastlake-fnv): h = (h xor byte) * 1099511628211,
/// from the offset basis 14695981039346656037. Not cryptographic: it tells equal memories from
/// different ones, which is all a comparison of two runs needs.
class Fnv1a64 {
 public:
  void add(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 1099511628211ull;
  }
  void add_u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      const uint8_t b = uint8_t(v >> (8 * i));
      add(&b, 1);
    }
  }
  uint64_t value() const { return h_; }
  /// "fnv1a64:" and 16 lower-case hex digits.
  std::string text() const;

 private:
  uint64_t h_ = 14695981039346656037ull;
};

/// The report's `functional` section: `scratchpad_digest` (every scratchpad byte, in address
/// order), `hbm_digest` (every HBM page of 1 MiB that holds a non-zero byte: its index, then its
/// bytes, in address order), and `memory_digest` (the two together).
struct MemoryDigest {
  std::string scratchpad, hbm, memory;
  nlohmann::json to_json() const {
    return {{"memory_digest", memory}, {"scratchpad_digest", scratchpad}, {"hbm_digest", hbm}};
  }
};

}  // namespace photon

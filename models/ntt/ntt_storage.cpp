#include "models/ntt/ntt_storage.h"

#include <cstring>

namespace photon::ntt {

void unpack_residues(const uint8_t* src, size_t count, uint32_t bits, uint64_t* out) {
  if (bits == 64) {
    std::memcpy(out, src, count * 8);
    return;
  }
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t bit = 0;
  for (size_t i = 0; i < count; ++i, bit += bits) {
    const size_t byte = size_t(bit / 8);
    const uint32_t shift = uint32_t(bit % 8);
    // A residue spans at most 9 bytes (64 bits at a shift of up to 7).
    const uint32_t span = (shift + bits + 7) / 8;
    unsigned __int128 v = 0;
    for (uint32_t b = 0; b < span; ++b) v |= static_cast<unsigned __int128>(src[byte + b]) << (8 * b);
    out[i] = uint64_t(v >> shift) & mask;
  }
}

void pack_residues(const uint64_t* in, size_t count, uint32_t bits, uint8_t* dst) {
  if (bits == 64) {
    std::memcpy(dst, in, count * 8);
    return;
  }
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t bit = 0;
  for (size_t i = 0; i < count; ++i, bit += bits) {
    const size_t byte = size_t(bit / 8);
    const uint32_t shift = uint32_t(bit % 8);
    const uint32_t span = (shift + bits + 7) / 8;
    unsigned __int128 word = 0, keep = 0;
    for (uint32_t b = 0; b < span; ++b) word |= static_cast<unsigned __int128>(dst[byte + b]) << (8 * b);
    keep = ~(static_cast<unsigned __int128>(mask) << shift);
    word = (word & keep) | (static_cast<unsigned __int128>(in[i] & mask) << shift);
    for (uint32_t b = 0; b < span; ++b) dst[byte + b] = uint8_t(word >> (8 * b));
  }
}

}  // namespace photon::ntt

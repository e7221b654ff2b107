// Packed residue storage: how the NTT unit reads and writes residues that occupy `bits` bits
// each in the scratchpad (ntt.storage_bits; models/ntt/README.md "Packed words").
//
// Layout: residue i of a run occupies bits [i*bits, (i+1)*bits) of the run's bytes, least
// significant bit first (little-endian bit order, as a 36-bit-word SRAM row of SHARP holds
// consecutive words). A limb of N residues takes N*bits/8 bytes; bits = 64 is one uint64 per
// residue, byte for byte the unpacked layout.
#pragma once

#include <cstddef>
#include <cstdint>

namespace photon::ntt {

/// Reads `count` residues of `bits` bits (16..64) from `src` into `out`.
void unpack_residues(const uint8_t* src, size_t count, uint32_t bits, uint64_t* out);
/// Writes `count` residues (each below 2^bits) into `dst` at `bits` bits each. Bits of `dst`
/// outside the written residues are kept.
void pack_residues(const uint64_t* in, size_t count, uint32_t bits, uint8_t* dst);

}  // namespace photon::ntt

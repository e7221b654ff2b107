// Where an FHE program's data lives (docs/fhe.md, "Data placement and dependencies").
//
// Scratchpad (offsets from the scratchpad's start; cfg.noc.scratchpad_base is added only in DMA
// addresses): kFheTablesBytes of moduli tables at 0, then the ciphertext and temporary buffers
// (sized for the largest N, L, alpha, dnum of the program, in chain slots: Q limbs at 0..L,
// P limbs at L+1..), then whole-key slots up to the scratchpad's end. HBM (offsets from
// cfg.noc.hbm_base): the moduli tables at kFheTablesHbmOffset; keys in the larger of the gaps
// [1 MiB, cpu.ring_base) and [cpu.ring_base + 256 MiB, capacity).
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/config/run_config.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

/// Scratchpad bytes reserved at offset 0 for moduli tables (the chain, then BConv tables).
constexpr uint64_t kFheTablesBytes = 64 * 1024;
/// HBM offset (from cfg.noc.hbm_base) of the moduli tables.
constexpr uint64_t kFheTablesHbmOffset = 0x0;

struct FheMemoryPlan {
  // Chain geometry: the maxima over the program's ops.
  uint32_t log_n_max = 0, l_max = 0, a_max = 0, dnum_max = 0;
  uint32_t q_slots = 0;         ///< L_max + 1 Q chain slots
  uint32_t ext_slots = 0;       ///< q_slots + alpha_max (Q and P)
  uint64_t lb_max = 0;          ///< bytes of one limb at N_max (N_max * ntt.storage_bits / 8)
  bool any_key = false;         ///< some op key-switches: key-switch buffers and key slots exist
  std::vector<uint64_t> chain;  ///< the moduli q_0..q_Lmax, p_0..p_{amax-1} (ntt.word_bits primes)

  // Scratchpad buffers (bytes from the scratchpad's start).
  uint64_t cur = 0;            ///< the current ciphertext (2 polys of q_slots limbs)
  uint64_t opb = 0;            ///< the second operand / plaintext (2 polys)
  uint64_t d2 = 0;             ///< the degree-2 component of a tensor product
  uint64_t rot[2] = {0, 0};    ///< an automorphism's output polys
  uint64_t konst = 0;          ///< constants (P^-1, q_l^-1, zero)
  uint64_t coeff = 0;          ///< the ModUp input in coefficient form
  uint64_t tmp[2] = {0, 0};    ///< ModDown / rescale temporaries
  uint64_t acc[2] = {0, 0};    ///< inner-product accumulators over Q and P (ext_slots limbs)
  std::vector<uint64_t> ext;   ///< per digit: the ModUp output (ext_slots limbs)
  std::vector<uint64_t> rext;  ///< per digit: its rotated copy (hoisted rotations only)
  uint64_t keys_base = 0;      ///< first key slot (= end of the buffers)
  uint64_t slot_bytes = 0;     ///< one key slot: 2 * dnum_max * ext_slots limbs
  uint32_t slots = 0;          ///< key slots that fit (0 without key switching)
  uint64_t spm_bytes = 0;      ///< usable scratchpad: min(scratchpad.size_kib, 4 GiB)
  /// The resident layout fits: buffers plus one key slot if any op key-switches (otherwise the
  /// program is streamed, fhe_stream_internal.h).
  bool fits = false;

  // HBM key region (offsets from cfg.noc.hbm_base).
  uint64_t key_hbm_base = 0, key_region_bytes = 0;

  /// Scratchpad offset of polynomial k of the ciphertext buffer at `ct`.
  uint64_t poly(uint64_t ct, int k) const { return ct + uint64_t(k) * q_slots * lb_max; }
  /// Scratchpad offset of key slot `slot`.
  uint64_t key_slot(int slot) const { return keys_base + uint64_t(slot) * slot_bytes; }
};

/// Plans the program's resident memory (ops already checked): `fits` says whether the buffers (plus
/// one key slot if any op key-switches) fit the scratchpad. Throws Error naming "ntt.word_bits"
/// when the chain's primes cannot be generated.
FheMemoryPlan plan_fhe_memory(const std::vector<FheOp>& ops, const RunConfig& cfg);

}  // namespace photon::fhe

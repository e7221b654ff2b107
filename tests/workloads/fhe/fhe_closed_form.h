// Test oracle: the work of each FheOp in closed form (docs/fhe.md, "Op expansion", derives every
// line), written apart from the lowering so that the tests can compare the commands the lowering
// emits with it.
#pragma once

#include <cstdint>

#include "workloads/config/fhe_config.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

/// Work of one FheOp, for a cold key cache.
struct FheOpCounts {
  uint64_t ntt = 0;              ///< limb-transforms (NTT + INTT), N/2*log2 N butterflies each
  uint64_t bconv_macs = 0;       ///< base-conversion multiply-accumulates
  uint64_t modmuls = 0;          ///< element-wise modular multiplies (MulMod, MulAccMod), words
  uint64_t modadds = 0;          ///< element-wise modular adds/subs (incl. MulAccMod's add), words
  uint64_t automorph_elems = 0;  ///< words through the automorphism unit
  uint64_t key_switches = 0;     ///< inner products with an evaluation key
  uint64_t keys = 0;             ///< distinct evaluation keys the op reads
  uint64_t key_bytes = 0;        ///< key bytes loaded from HBM with a cold key cache
  uint64_t hbm_bytes = 0;        ///< all HBM traffic of the op, bytes (= key_bytes: data stays on chip)
  FheOpCounts& operator+=(const FheOpCounts& o);
};

/// The closed-form cost of one op (Bootstrap: the sum over bootstrap_sequence(), with key bytes
/// for its distinct keys), residues stored at `storage_bits` (ntt.storage_bits).
FheOpCounts count_fhe_op(const FheOp& op, const FheConfig& fc, uint32_t storage_bits = 64);

}  // namespace photon::fhe

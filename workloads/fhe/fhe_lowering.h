// FHE lowering: scheme-level FheOps -> NTT-unit and DMA commands (pcs::Program).
//
// Every FheOp becomes one op-table entry (tag, kind, detail "N=2^16 l=35 L=35 alpha=12 dnum=3 ...")
// and a short run of multi-limb pcs::Ntt commands (one command covers many limbs) plus the DMA
// commands that bring evaluation keys from HBM. The expansion, with its formulas and sources
// (hybrid key switching of Han and Ki, CT-RSA 2020; ARK, MICRO 2022; SHARP, ISCA 2023), is in
// docs/fhe.md. In short, for a ciphertext at level l (K = l+1 Q limbs), alpha P limbs,
// beta = ceil(K/alpha) digits of sizes d_j:
//   ModUp     INTT K limbs; per digit BConv d_j -> K+alpha-d_j limbs, NTT those limbs
//   inner     2*beta*(K+alpha) limb products with the key (MulMod, then MulAccMod)
//   ModDown   per output poly: INTT alpha, BConv alpha -> K, NTT K, sub, multiply by P^-1
// Keys (2*dnum polynomials of L+1+alpha limbs, 2*dnum*(L+1+alpha)*N*word_bytes bytes) live in
// HBM and are kept in the scratchpad's key region by an LRU of whole keys.
//
// Data placement: ciphertexts, plaintext operands and temporaries stay in the scratchpad (a
// SHARP-like machine with a large on-chip memory); the program is a dependency chain through a
// "current ciphertext" buffer, since FheProgram carries no operand names. Scratchpad offsets are
// relative to the scratchpad (cfg.noc.scratchpad_base is added only in DMA addresses).
// Synchronisation: semaphore kSemInit (moduli tables loaded), kSemKeyReady (a key DMA done, DMA ->
// NTT queue) and kSemSlotFree (the NTT queue no longer reads a key slot about to be reloaded).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/program.h"
#include "workloads/config/run_config.h"
#include "workloads/fhe/fhe_program.h"

namespace photon {

constexpr uint32_t kSemInit = 0;
constexpr uint32_t kSemKeyReady = 1;
constexpr uint32_t kSemSlotFree = 2;
/// HBM placement (offsets from cfg.noc.hbm_base): moduli tables at 0; keys in the larger of the
/// gaps [1 MiB, cpu.ring_base) and [cpu.ring_base + 256 MiB, capacity). When the distinct keys
/// outnumber that region, later keys reuse earlier keys' addresses (the setup op's detail says
/// so; traffic and timing are unchanged, contents are not meaningful in an FHE timing run).
constexpr uint64_t kFheTablesHbmOffset = 0x0;

/// Work of one FheOp in closed form (docs/fhe.md), for a cold key cache.
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

/// Bytes of one evaluation key: 2 * dnum * (L+1+alpha) * N * word_bytes.
uint64_t fhe_key_bytes(const FheOp& op, const FheConfig& fc);
/// beta = ceil((level+1)/alpha): digits the key switch decomposes a level-l polynomial into.
uint32_t fhe_digits(const FheOp& op);
/// The closed-form cost of one op (Bootstrap: the sum over bootstrap_sequence(), with key bytes
/// for its distinct keys).
FheOpCounts count_fhe_op(const FheOp& op, const FheConfig& fc);
/// The Bootstrap op with the chain it runs on: max_level raised to cts + evalmod + stc levels when
/// the program's L is smaller (the bootstrapping levels sit above the levels the program uses,
/// as in OpenFHE's level budget), dnum raised to cover it.
FheOp bootstrap_chain(FheOp op, const FheConfig& fc);
/// The sub-ops a Bootstrap expands into (on bootstrap_chain(op)): ModRaise to L, CoeffToSlot (per level: r
/// rotations, r plaintext products, r additions, a rescale), a conjugation + addition, EvalMod
/// (bootstrap_evalmod_hmults products + relinearizations spread over bootstrap_evalmod_levels,
/// a rescale per level), SlotToCoeff like CoeffToSlot. Throws Error if N/2 cannot hold the rotations.
std::vector<FheOp> bootstrap_sequence(const FheOp& op, const FheConfig& fc);
/// Galois element of a rotation by r slots: 5^r mod 2N (r < 0: 5^(r mod N/2)).
uint32_t rotation_galois(int64_t r, uint32_t log_n);
/// True for a Rotate whose shift is a multiple of the N/2 slots (Galois element 1): the identity,
/// lowered to no command and counted as zero work (no key, no key switch).
bool fhe_rotation_is_identity(const FheOp& op);

/// Lowers a whole program. Throws Error naming the problem (op and location, or the config key
/// "scratchpad.size_kib" when the working set does not fit).
pcs::Program lower_fhe(const FheProgram& prog, const RunConfig& cfg);

/// The FheProgram of one op (hmult = Mul + Relinearize, hrot, rescale, padd, hadd, pmult,
/// bootstrap), lowered. dnum = cfg.fhe.dnum or ceil((L+1)/alpha). Bad arguments throw Error
/// naming the flag (--op, --ring-degree, --max-level, --level, --alpha).
FheProgram make_single_op_fhe_program(const std::string& op, uint32_t log_n, uint32_t max_level,
                                      uint32_t level, uint32_t alpha, const RunConfig& cfg);
pcs::Program make_single_op_program(const std::string& op, uint32_t log_n, uint32_t max_level, uint32_t level,
                                    uint32_t alpha, const RunConfig& cfg);

}  // namespace photon

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
// The parts: the op table (fhe_op_traits.h: per op its keys, checks, emitter), memory
// (fhe_memory_plan.h), key management (fhe_key_cache.h), key switching (fhe_key_switch.cpp),
// the other emitters (fhe_op_emitters.cpp), dispatch (fhe_lowering.cpp).
//
// Data placement: ciphertexts, plaintext operands and temporaries stay in the scratchpad (a
// SHARP-like machine with a large on-chip memory); the program is a dependency chain through a
// "current ciphertext" buffer, since FheProgram carries no operand names.
// Synchronisation: semaphore kSemInit (moduli tables loaded), kSemKeyReady (a key DMA done, DMA ->
// NTT queue) and kSemSlotFree (the NTT queue no longer reads a key slot about to be reloaded).
#pragma once

#include <cstdint>
#include <string>

#include "isa/program.h"
#include "workloads/config/run_config.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

constexpr uint32_t kSemInit = 0;
constexpr uint32_t kSemKeyReady = 1;
constexpr uint32_t kSemSlotFree = 2;

/// Lowers a whole program. Throws Error naming the problem (op and location, or the config key
/// "scratchpad.size_kib" when the working set does not fit).
pcs::Program lower_fhe(const FheProgram& prog, const RunConfig& cfg);

/// The FheProgram of one op (hmult = Mul + Relinearize, hmult_rescale = hmult + Rescale as
/// SimFHE's HMult, hrot, rescale, padd, hadd, pmult, bootstrap), lowered. dnum = cfg.fhe.dnum or
/// ceil((L+1)/alpha). Bad arguments throw Error naming the flag (--op, --ring-degree, --max-level, --level,
/// --alpha).
FheProgram make_single_op_fhe_program(const std::string& op, uint32_t log_n, uint32_t max_level,
                                      uint32_t level, uint32_t alpha, const RunConfig& cfg);
pcs::Program make_single_op_program(const std::string& op, uint32_t log_n, uint32_t max_level, uint32_t level,
                                    uint32_t alpha, const RunConfig& cfg);

}  // namespace photon::fhe

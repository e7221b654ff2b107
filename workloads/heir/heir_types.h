// RNS parameters read off HEIR types and module attributes (docs/heir.md, "Derivation rules").
//
// A HEIR ciphertext type `!lwe.lwe_ciphertext<..., ciphertext_space = <ring = #polynomial.ring<
// coefficientType = !rns.rns<q0, ..., ql>, polynomialModulus = <1 + x**N>>, size = s>,
// modulus_chain = #lwe.modulus_chain<elements = <q0, ..., qL>, current = l>>` carries the ring
// degree N, the active limbs (l + 1), the chain (L + 1 primes) and the polynomial count s
// (2 for a fresh ciphertext, 3 after a tensor product). Source: HEIR lwe dialect
// (google/heir lib/Dialect/LWE/IR/LWEAttributes.td, LWETypes.td).
#pragma once

#include <cstdint>
#include <string>

#include "workloads/heir/mlir_parser.h"

namespace photon::heir {

/// What a type says about a ciphertext/plaintext; -1 = not stated by the type.
struct CtTypeInfo {
  bool is_ciphertext = false;
  bool is_plaintext = false;
  int log_n = -1;        ///< log2 of the ring degree N from `polynomialModulus = <1 + x**N>`
  int limbs = -1;        ///< active Q limbs: entries of the rns coefficientType
  int chain_len = -1;    ///< primes in the modulus_chain (L + 1)
  int current = -1;      ///< modulus_chain `current` (= level l)
  int size = 2;          ///< ciphertext_space `size` (polynomials; degree = size - 1)
  int64_t elements = 1;  ///< ciphertexts in a `tensor<d1 x ... x !ct>` (1 for a plain type)

  /// Level l (active limbs - 1): modulus_chain current, else rns limbs - 1, else -1.
  int level() const { return current >= 0 ? current : limbs >= 0 ? limbs - 1 : -1; }
};

/// Reads a type tree. Works for lwe.lwe_ciphertext / lwe.new_lwe_ciphertext / lwe plaintexts,
/// openfhe/lattigo ciphertext types (no RNS data: only the flags are set) and tensor<...x!ct>.
CtTypeInfo ct_type_info(const mlir::Attr& type);

/// log2(N) from a `1 + x**N` polynomial text; -1 if absent or N is not a power of two.
int log_n_from_polynomial(const std::string& text);

/// Ring degrees the platform runs: N = 2^10 .. 2^17. Upper bound: the NTT unit's twiddle tables
/// (models/ntt/ntt_core.h, NttTables: log_n in [1, 17]); lower bound: the smallest ring of the
/// HomomorphicEncryption.org security standard tables (n = 1024).
constexpr int kMinLogN = 10;
constexpr int kMaxLogN = 17;

/// Checks every `#polynomial.ring` of the module that has a polynomialModulus: it must be the
/// cyclotomic x**N + 1 (HEIR prints `<1 + x**N>`) with N a power of two in [2^kMinLogN,
/// 2^kMaxLogN]. Throws photon::Error "file:line:col: ring #name: ..." at the first bad ring.
void check_rings(const mlir::Module& m);

/// Module scheme parameters: `ckks.schemeParam` / `bgv.schemeParam` / `bfv.schemeParam`
/// (`#ckks.scheme_param<logN = 13, Q = [...], P = [...], logDefaultScale = 45>`).
struct SchemeParam {
  bool present = false;
  std::string key;  ///< attribute name, e.g. "ckks.schemeParam"
  int log_n = -1;
  int q_count = -1;  ///< |Q| = L + 1
  int p_count = -1;  ///< |P| = alpha
};

SchemeParam scheme_param(const mlir::Module& m);

/// OpenFHE's default key-switching digit count when numLargeDigits is not set:
/// multDepth > 3 -> 3, multDepth > 0 -> 2, else 1.
/// Source: openfhe-development src/pke/include/scheme/scheme-utils.h, ComputeNumLargeDigits.
int openfhe_default_dnum(int mult_depth);

}  // namespace photon::heir

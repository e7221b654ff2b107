// ntt_core: the NTT unit's arithmetic, pure C++ (no SystemC).
//
// Residues are uint64_t words in [0, q) for word-size primes q < 2^62 (the Shoup products below
// need q < 2^63; 2^62 leaves headroom for lazy additions). Polynomials live in
// Z_q[X]/(X^N + 1), N = 2^log_n, coefficient vectors of N words.
//
// Sources of the algorithms:
// - Negacyclic NTT with the 2N-th root psi merged into the twiddles (no pre/post scaling):
//   Longa and Naehrig, "Speeding up the Number Theoretic Transform for Faster Ideal
//   Lattice-Based Cryptography", CANS 2016 (Algorithms 1 and 2: Cooley-Tukey forward producing
//   bit-reversed order, Gentleman-Sande inverse taking bit-reversed order).
// - Twiddle multiplication with a precomputed quotient: V. Shoup, NTL (MulModPrecon); Harvey,
//   "Faster arithmetic for number-theoretic transforms", J. Symb. Comp. 2014.
// - Fast base conversion: Bajard, Eynard, Hasan, Zucca (BEHZ), SAC 2016, and Halevi, Polyakov,
//   Shoup (HPS), CT-RSA 2019: y_j = sum_i [x_i * qhat_i^{-1}]_{q_i} * qhat_i mod p_j, which
//   equals (x + u*Q) mod p_j for some 0 <= u < limbs (no correction of the u*Q overflow).
// - Automorphism sigma_g: a(X) -> a(X^g) for odd g, X^N = -1 (e.g. Halevi and Shoup, "Faster
//   homomorphic linear transformations in HElib", CRYPTO 2018).
#pragma once

#include <cstdint>
#include <vector>

#include "base/modular.h"

namespace photon::ntt {

// Scalar modular arithmetic and NTT-friendly primes (base/modular.h), under their usual names.
using modular::add_mod;
using modular::bit_reverse;
using modular::generate_ntt_primes;
using modular::inv_mod;
using modular::is_prime;
using modular::mul_mod;
using modular::mul_mod_shoup;
using modular::pow_mod;
using modular::primitive_2n_root;
using modular::shoup_quotient;
using modular::sub_mod;

// ---- Transforms ----------------------------------------------------------------------------

/// Precomputed tables of one (q, N): psi^brev(i) and psi^-brev(i) with Shoup quotients.
/// forward(): coefficient order in, bit-reversed evaluation order out: A[brev(i)] = a(psi^(2i+1)).
/// inverse(): the exact inverse (including the 1/N scaling). Cost: N/2 * log2(N) butterflies each.
class NttTables {
 public:
  /// q prime, q = 1 mod 2N, q < 2^62; log_n in [1, 17]. Throws photon::Error otherwise.
  NttTables(uint64_t q, uint32_t log_n);
  uint64_t modulus() const { return q_; }
  uint32_t log_n() const { return log_n_; }
  uint32_t n() const { return 1u << log_n_; }
  uint64_t psi() const { return psi_; }
  void forward(uint64_t* a) const;
  void inverse(uint64_t* a) const;

 private:
  uint64_t q_, psi_;
  uint32_t log_n_;
  std::vector<uint64_t> w_, w_shoup_, iw_, iw_shoup_;
  uint64_t n_inv_, n_inv_shoup_;
};

// ---- Element-wise and permutation kernels (n words each, values in [0, q)) -----------------

void mul_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q);
void add_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q);
void sub_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q);
/// out += a * b mod q.
void mul_acc_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q);

/// Coefficient-form automorphism: out(X) = a(X^g) mod (X^N + 1), g odd, 0 < g < 2N.
/// Coefficient i goes to k = i*g mod 2N, negated when k >= N. `out` must not alias `a`.
void automorph_coeff(const uint64_t* a, uint64_t* out, uint32_t log_n, uint32_t g, uint64_t q);
/// The same automorphism on NttTables::forward() output (bit-reversed evaluation order): a pure
/// permutation, out[brev(i)] = A at the point psi^((2i+1)*g). `out` must not alias `a`.
void automorph_ntt(const uint64_t* a, uint64_t* out, uint32_t log_n, uint32_t g);

/// Precomputed constants of a fast base conversion from {q_i} to {p_j}.
class BaseConverter {
 public:
  /// Moduli < 2^62, the q_i pairwise coprime; at most 64 source moduli.
  BaseConverter(std::vector<uint64_t> from, std::vector<uint64_t> to);
  /// in: from.size() limbs of n words (limb-major); out: to.size() limbs of n words.
  /// out may not alias in. MACs: from.size() * to.size() * n.
  void convert(const uint64_t* in, uint64_t* out, uint32_t n) const;
  const std::vector<uint64_t>& from() const { return from_; }
  const std::vector<uint64_t>& to() const { return to_; }

 private:
  std::vector<uint64_t> from_, to_;
  std::vector<uint64_t> qhat_inv_, qhat_inv_shoup_;  // [qhat_i^{-1}]_{q_i}
  std::vector<uint64_t> qhat_mod_p_;                 // [j * from + i] = qhat_i mod p_j
};

}  // namespace photon::ntt

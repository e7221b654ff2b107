// Evaluation keys and the key-switch decomposition (hybrid key switching, Han and Ki, CT-RSA
// 2020; docs/fhe.md "Hybrid key switching"): which key an op reads, its size, the digits.
#pragma once

#include <cstdint>
#include <tuple>

#include "workloads/config/fhe_config.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

/// An evaluation key: its Galois element (0, 4, 8, ...: relinearization keys of s^2, s^3, ...;
/// 2: the generic key-switching key; odd: a rotation or conjugation key) and the parameters
/// that fix its shape.
struct KeyId {
  uint32_t galois, log_n, max_level, alpha, dnum;
  bool operator<(const KeyId& o) const {
    return std::tie(galois, log_n, max_level, alpha, dnum) <
           std::tie(o.galois, o.log_n, o.max_level, o.alpha, o.dnum);
  }
  bool operator==(const KeyId& o) const { return !(*this < o) && !(o < *this); }
};

/// The key of `op`'s shape (N, L, alpha, dnum) with Galois element `galois`.
inline KeyId fhe_key_id(const FheOp& op, uint32_t galois) {
  return {galois, op.log_n, op.max_level, op.alpha, op.dnum};
}
/// Bytes of one evaluation key: 2 * dnum * (L+1+alpha) * N * storage_bits / 8 (dnum digits of two
/// polynomials over Q_L and P, residues of `storage_bits` bits: ntt.storage_bits).
uint64_t fhe_key_bytes(const KeyId& key, uint32_t storage_bits);
/// The same for a key of `op`'s shape.
uint64_t fhe_key_bytes(const FheOp& op, uint32_t storage_bits);
/// beta = ceil(q_limbs/alpha): digits a key switch decomposes a polynomial of q_limbs Q limbs into.
uint32_t fhe_digits(uint32_t q_limbs, uint32_t alpha);
/// The same for `op`: beta = ceil((level+1)/alpha).
uint32_t fhe_digits(const FheOp& op);
/// Galois element of a rotation by r slots: 5^r mod 2N (r < 0: 5^(r mod N/2)).
uint32_t rotation_galois(int64_t r, uint32_t log_n);
/// Galois element of the conjugation X -> X^(2N-1).
inline uint32_t conjugation_galois(uint32_t log_n) { return uint32_t((uint64_t(2) << log_n) - 1); }
/// True for a Rotate whose shift is a multiple of the N/2 slots (Galois element 1): the identity,
/// lowered to no command and counted as zero work (no key, no key switch).
bool fhe_rotation_is_identity(const FheOp& op);

}  // namespace photon::fhe

// Modular arithmetic on 64-bit words and NTT-friendly primes: what the NTT unit's arithmetic
// (models/ntt/ntt_core.h) and the FHE lowering's choice of moduli (workloads/fhe) share.
// Sources: Shoup's precomputed-quotient multiplication (V. Shoup, NTL MulModPrecon; D. Harvey,
// "Faster arithmetic for number-theoretic transforms", J. Symb. Comp. 2014); deterministic
// Miller-Rabin with the first twelve prime bases (exact for n < 3.3e24, Sorenson and Webster 2015).
#pragma once

#include <cstdint>
#include <vector>

namespace photon::modular {

// ---- Scalar modular arithmetic -------------------------------------------------------------

/// a * b mod q via a 128-bit product (any q < 2^64).
inline uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) % q);
}
/// a + b mod q for a, b in [0, q), q < 2^63.
inline uint64_t add_mod(uint64_t a, uint64_t b, uint64_t q) {
  uint64_t s = a + b;
  return s >= q ? s - q : s;
}
/// a - b mod q for a, b in [0, q).
inline uint64_t sub_mod(uint64_t a, uint64_t b, uint64_t q) { return a >= b ? a - b : a + q - b; }
/// Shoup quotient floor(w * 2^64 / q) for a fixed multiplicand w < q.
inline uint64_t shoup_quotient(uint64_t w, uint64_t q) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 64) / q);
}
/// x * w mod q with w' = shoup_quotient(w, q); x < 2^64, q < 2^63. Result in [0, q).
inline uint64_t mul_mod_shoup(uint64_t x, uint64_t w, uint64_t w_shoup, uint64_t q) {
  uint64_t hi = static_cast<uint64_t>((static_cast<unsigned __int128>(x) * w_shoup) >> 64);
  uint64_t r = x * w - hi * q;  // in [0, 2q)
  return r >= q ? r - q : r;
}
/// base^exp mod q by square-and-multiply (any q < 2^64).
uint64_t pow_mod(uint64_t base, uint64_t exp, uint64_t q);
/// Inverse of a mod q (q prime, a != 0 mod q), by Fermat.
uint64_t inv_mod(uint64_t a, uint64_t q);
/// Deterministic Miller-Rabin for 64-bit n (bases 2..37 suffice for n < 3.3e24).
bool is_prime(uint64_t n);

// ---- Primes and roots ----------------------------------------------------------------------

/// `count` distinct primes q < 2^bits with q = 1 mod 2N (N = 2^log_n), largest first.
/// bits in [log_n + 2, 62]. Throws photon::Error if not enough primes exist.
std::vector<uint64_t> generate_ntt_primes(uint32_t bits, uint32_t log_n, uint32_t count);
/// A primitive 2N-th root of unity mod q (requires q = 1 mod 2N); the smallest one found from
/// generator candidates 2, 3, ... so results are reproducible.
uint64_t primitive_2n_root(uint64_t q, uint32_t log_n);
/// Reverses the low `bits` bits of x.
uint32_t bit_reverse(uint32_t x, uint32_t bits);

}  // namespace photon::modular

#include "base/modular.h"

#include <string>

#include "base/error.h"

namespace photon::modular {

uint64_t pow_mod(uint64_t base, uint64_t exp, uint64_t q) {
  uint64_t r = 1 % q, b = base % q;
  while (exp) {
    if (exp & 1) r = mul_mod(r, b, q);
    b = mul_mod(b, b, q);
    exp >>= 1;
  }
  return r;
}

uint64_t inv_mod(uint64_t a, uint64_t q) {
  if (a % q == 0) throw Error("inv_mod: " + std::to_string(a) + " has no inverse mod " + std::to_string(q));
  return pow_mod(a, q - 2, q);
}

bool is_prime(uint64_t n) {
  if (n < 2) return false;
  static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (uint64_t p : bases) {
    if (n % p == 0) return n == p;
  }
  uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  for (uint64_t a : bases) {
    uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int r = 1; r < s; ++r) {
      x = mul_mod(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

std::vector<uint64_t> generate_ntt_primes(uint32_t bits, uint32_t log_n, uint32_t count) {
  if (log_n < 1 || log_n > 30 || bits < log_n + 2 || bits > 62)
    throw Error("generate_ntt_primes: bits " + std::to_string(bits) + " must lie in [log_n + 2, 62] (log_n " +
                std::to_string(log_n) + ")");
  const uint64_t step = uint64_t(2) << log_n;  // 2N
  std::vector<uint64_t> out;
  // Largest candidate below 2^bits with q = 1 mod 2N.
  for (uint64_t q = ((uint64_t(1) << bits) - 1) / step * step + 1; q > step && out.size() < count;
       q -= step) {
    if (q < (uint64_t(1) << bits) && is_prime(q)) out.push_back(q);
  }
  if (out.size() < count)
    throw Error("generate_ntt_primes: only " + std::to_string(out.size()) + " primes q = 1 mod 2^" +
                std::to_string(log_n + 1) + " below 2^" + std::to_string(bits) + ", need " +
                std::to_string(count));
  return out;
}

uint64_t primitive_2n_root(uint64_t q, uint32_t log_n) {
  const uint64_t two_n = uint64_t(2) << log_n;
  if ((q - 1) % two_n != 0)
    throw Error("modulus " + std::to_string(q) + " is not 1 mod 2N (N = 2^" + std::to_string(log_n) + ")");
  for (uint64_t g = 2; g < 1000; ++g) {
    uint64_t x = pow_mod(g, (q - 1) / two_n, q);
    // x has order dividing 2N; it is primitive iff x^N = -1.
    if (pow_mod(x, two_n / 2, q) == q - 1) return x;
  }
  throw Error("no primitive 2N-th root found mod " + std::to_string(q) + " (not prime?)");
}

uint32_t bit_reverse(uint32_t x, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < bits; ++i) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
}

}  // namespace photon::modular

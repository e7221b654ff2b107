#include "cosim/ntt/ntt_rtl_layout.h"

#include "models/ntt/ntt_core.h"

namespace photon::cosim {

uint64_t mont_q_inv(uint64_t q, uint32_t width) {
  uint64_t x = q;                              // q^-1 mod 2^3
  for (int i = 0; i < 6; ++i) x *= 2 - q * x;  // 3, 6, 12, 24, 48, 96 bits
  const uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  return (0 - x) & mask;
}

uint64_t to_mont(uint64_t a, uint64_t q, uint32_t width) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) << width) % q);
}

std::vector<uint64_t> twiddle_table(uint64_t q, uint32_t log_n, uint32_t width) {
  const uint64_t psi = ntt::primitive_2n_root(q, log_n);
  const uint32_t n = 1u << log_n;
  std::vector<uint64_t> pw(n);
  uint64_t p = 1;
  for (uint32_t i = 0; i < n; ++i) {
    pw[i] = p;
    p = ntt::mul_mod(p, psi, q);
  }
  std::vector<uint64_t> w(n);
  for (uint32_t j = 0; j < n; ++j) w[j] = to_mont(pw[ntt::bit_reverse(j, log_n)], q, width);
  return w;
}

}  // namespace photon::cosim

#include "models/ntt/ntt_core.h"

#include <string>

#include "base/error.h"

namespace photon::ntt {

NttTables::NttTables(uint64_t q, uint32_t log_n) : q_(q), log_n_(log_n) {
  if (log_n < 1 || log_n > 17) throw Error("NTT log_n " + std::to_string(log_n) + " outside [1, 17]");
  if (q >= (uint64_t(1) << 62) || !is_prime(q))
    throw Error("NTT modulus " + std::to_string(q) + " is not a prime below 2^62");
  psi_ = primitive_2n_root(q, log_n);
  const uint32_t n = 1u << log_n;
  const uint64_t psi_inv = inv_mod(psi_, q);
  w_.resize(n);
  iw_.resize(n);
  w_shoup_.resize(n);
  iw_shoup_.resize(n);
  uint64_t p = 1, pi = 1;
  std::vector<uint64_t> pw(n), piw(n);
  for (uint32_t i = 0; i < n; ++i) {
    pw[i] = p;
    piw[i] = pi;
    p = mul_mod(p, psi_, q);
    pi = mul_mod(pi, psi_inv, q);
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t r = bit_reverse(i, log_n);
    w_[i] = pw[r];
    iw_[i] = piw[r];
    w_shoup_[i] = shoup_quotient(w_[i], q);
    iw_shoup_[i] = shoup_quotient(iw_[i], q);
  }
  n_inv_ = inv_mod(n, q);
  n_inv_shoup_ = shoup_quotient(n_inv_, q);
}

void NttTables::forward(uint64_t* a) const {
  const uint32_t n = 1u << log_n_;
  const uint64_t q = q_;
  uint32_t t = n;
  for (uint32_t m = 1; m < n; m <<= 1) {
    t >>= 1;
    for (uint32_t i = 0; i < m; ++i) {
      const uint64_t s = w_[m + i], ss = w_shoup_[m + i];
      uint64_t* x = a + 2 * i * t;
      uint64_t* y = x + t;
      for (uint32_t j = 0; j < t; ++j) {
        uint64_t u = x[j];
        uint64_t v = mul_mod_shoup(y[j], s, ss, q);
        x[j] = add_mod(u, v, q);
        y[j] = sub_mod(u, v, q);
      }
    }
  }
}

void NttTables::inverse(uint64_t* a) const {
  const uint32_t n = 1u << log_n_;
  const uint64_t q = q_;
  uint32_t t = 1;
  for (uint32_t m = n; m > 1; m >>= 1) {
    const uint32_t h = m >> 1;
    for (uint32_t i = 0; i < h; ++i) {
      const uint64_t s = iw_[h + i], ss = iw_shoup_[h + i];
      uint64_t* x = a + 2 * i * t;
      uint64_t* y = x + t;
      for (uint32_t j = 0; j < t; ++j) {
        uint64_t u = x[j], v = y[j];
        x[j] = add_mod(u, v, q);
        y[j] = mul_mod_shoup(sub_mod(u, v, q), s, ss, q);
      }
    }
    t <<= 1;
  }
  for (uint32_t j = 0; j < n; ++j) a[j] = mul_mod_shoup(a[j], n_inv_, n_inv_shoup_, q);
}

void mul_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q) {
  for (uint32_t i = 0; i < n; ++i) out[i] = mul_mod(a[i], b[i], q);
}
void add_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q) {
  for (uint32_t i = 0; i < n; ++i) out[i] = add_mod(a[i], b[i], q);
}
void sub_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q) {
  for (uint32_t i = 0; i < n; ++i) out[i] = sub_mod(a[i], b[i], q);
}
void mul_acc_vec(const uint64_t* a, const uint64_t* b, uint64_t* out, uint32_t n, uint64_t q) {
  for (uint32_t i = 0; i < n; ++i) out[i] = add_mod(out[i], mul_mod(a[i], b[i], q), q);
}

void automorph_coeff(const uint64_t* a, uint64_t* out, uint32_t log_n, uint32_t g, uint64_t q) {
  const uint64_t n = uint64_t(1) << log_n, mask = 2 * n - 1;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t k = (i * g) & mask;
    if (k < n)
      out[k] = a[i];
    else
      out[k - n] = a[i] == 0 ? 0 : q - a[i];
  }
}

void automorph_ntt(const uint64_t* a, uint64_t* out, uint32_t log_n, uint32_t g) {
  const uint64_t n = uint64_t(1) << log_n, mask = 2 * n - 1;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t j = ((((2 * i + 1) * g) & mask) - 1) >> 1;
    out[bit_reverse(static_cast<uint32_t>(i), log_n)] = a[bit_reverse(static_cast<uint32_t>(j), log_n)];
  }
}

BaseConverter::BaseConverter(std::vector<uint64_t> from, std::vector<uint64_t> to)
    : from_(std::move(from)), to_(std::move(to)) {
  if (from_.empty() || from_.size() > 64) throw Error("BaseConverter: 1..64 source moduli required");
  const size_t k = from_.size();
  qhat_inv_.resize(k);
  qhat_inv_shoup_.resize(k);
  for (size_t i = 0; i < k; ++i) {
    const uint64_t qi = from_[i];
    uint64_t h = 1 % qi;
    for (size_t m = 0; m < k; ++m)
      if (m != i) h = mul_mod(h, from_[m] % qi, qi);
    qhat_inv_[i] = inv_mod(h, qi);
    qhat_inv_shoup_[i] = shoup_quotient(qhat_inv_[i], qi);
  }
  qhat_mod_p_.resize(to_.size() * k);
  for (size_t j = 0; j < to_.size(); ++j) {
    const uint64_t p = to_[j];
    for (size_t i = 0; i < k; ++i) {
      uint64_t h = 1 % p;
      for (size_t m = 0; m < k; ++m)
        if (m != i) h = mul_mod(h, from_[m] % p, p);
      qhat_mod_p_[j * k + i] = h;
    }
  }
}

void BaseConverter::convert(const uint64_t* in, uint64_t* out, uint32_t n) const {
  const size_t k = from_.size();
  std::vector<uint64_t> v(k);
  for (uint32_t c = 0; c < n; ++c) {
    for (size_t i = 0; i < k; ++i)
      v[i] = mul_mod_shoup(in[i * n + c], qhat_inv_[i], qhat_inv_shoup_[i], from_[i]);
    for (size_t j = 0; j < to_.size(); ++j) {
      // Products are below 2^124: reducing after every 8 keeps the 128-bit sum from overflowing.
      unsigned __int128 acc = 0;
      const uint64_t* h = &qhat_mod_p_[j * k];
      for (size_t i = 0; i < k; ++i) {
        acc += static_cast<unsigned __int128>(v[i]) * h[i];
        if ((i & 7) == 7) acc %= to_[j];
      }
      out[j * n + c] = static_cast<uint64_t>(acc % to_[j]);
    }
  }
}

}  // namespace photon::ntt

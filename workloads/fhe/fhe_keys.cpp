#include "workloads/fhe/fhe_keys.h"

namespace photon::fhe {

uint64_t fhe_key_bytes(const KeyId& key, uint32_t storage_bits) {
  const uint64_t limb = (uint64_t(storage_bits) << key.log_n) / 8;
  return 2ull * key.dnum * (key.max_level + 1ull + key.alpha) * limb;
}

uint64_t fhe_key_bytes(const FheOp& op, uint32_t storage_bits) {
  return fhe_key_bytes(fhe_key_id(op, 0), storage_bits);
}

uint32_t fhe_digits(uint32_t q_limbs, uint32_t alpha) { return (q_limbs + alpha - 1) / alpha; }

uint32_t fhe_digits(const FheOp& op) { return fhe_digits(op.level + 1, op.alpha); }

uint32_t rotation_galois(int64_t r, uint32_t log_n) {
  const int64_t slots = int64_t(1) << (log_n - 1);  // N/2: the order of 5 mod 2N
  int64_t e = r % slots;
  if (e < 0) e += slots;
  // 5^e mod 2N by square-and-multiply (2N <= 2^32, so products fit in 64 bits).
  const uint64_t m = uint64_t(2) << log_n;
  uint64_t g = 1, b = 5 % m;
  for (uint64_t k = uint64_t(e); k > 0; k >>= 1, b = b * b % m)
    if (k & 1) g = g * b % m;
  return uint32_t(g);
}

bool fhe_rotation_is_identity(const FheOp& op) {
  return op.kind == FheOpKind::Rotate && op.log_n >= 1 && op.rotation % (int64_t(1) << (op.log_n - 1)) == 0;
}

}  // namespace photon::fhe

#include "workloads/fhe/fhe_key_cache.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"

namespace photon::fhe {

FheKeyCache::FheKeyCache(uint32_t slots, uint64_t region_bytes, uint32_t storage_bits)
    : storage_bits_(storage_bits),
      region_bytes_(region_bytes),
      key_(slots),
      limbs_(slots, 0),
      used_(slots, 0),
      pending_(slots, false) {}

void FheKeyCache::warm(const std::vector<KeyId>& keys) {
  uint32_t s = 0;
  for (const KeyId& k : keys) {
    bool held = false;
    for (uint32_t i = 0; i < s && !held; ++i) held = *key_[i] == k;
    if (held || s == key_.size()) continue;
    key_[s] = k;
    limbs_[s] = k.max_level + 1;
    used_[s] = 0;
    ++s;
  }
}

uint64_t FheKeyCache::hbm_offset(const KeyId& key) {
  auto it = hbm_.find(key);
  if (it != hbm_.end()) return it->second;
  const uint64_t bytes = (fhe_key_bytes(key, storage_bits_) + 4095) / 4096 * 4096;
  if (next_hbm_ + bytes > region_bytes_) {  // HBM full: later keys share addresses
    next_hbm_ = 0;
    ++aliased_;
  }
  if (bytes > region_bytes_)
    throw Error(
        fmt::format("hbm: a {:.1f} MiB evaluation key does not fit in the {:.1f} MiB of HBM free for keys",
                    bytes / 1048576.0, region_bytes_ / 1048576.0));
  hbm_.emplace(key, next_hbm_);
  const uint64_t at = next_hbm_;
  next_hbm_ += bytes;
  return at;
}

FheKeyCache::Grant FheKeyCache::acquire(const KeyId& key, uint32_t q_limbs) {
  ++clock_;
  const uint32_t whole = key.max_level + 1;
  const uint32_t need = q_limbs == 0 ? whole : std::min(q_limbs, whole);
  const uint32_t n = uint32_t(key_.size());
  uint32_t victim = n;
  for (uint32_t s = 0; s < n && victim == n; ++s)
    if (key_[s] && *key_[s] == key) {
      used_[s] = clock_;
      if (limbs_[s] >= need) return {int(s), false, false, 0, 0};
      victim = s;  // holds fewer limbs than this use reads: reloaded
    }
  for (uint32_t s = 0; s < n && victim == n; ++s)
    if (!key_[s]) victim = s;
  if (victim == n) {  // least recently used
    victim = 0;
    for (uint32_t s = 1; s < n; ++s)
      if (used_[s] < used_[victim]) victim = s;
  }
  Grant g{int(victim), true, key_[victim].has_value(), 0, need};
  g.hbm_offset = hbm_offset(key);
  key_[victim] = key;
  limbs_[victim] = need;
  used_[victim] = clock_;
  pending_[victim] = true;
  ++loads_;
  return g;
}

uint32_t FheKeyCache::occupied() const {
  uint32_t n = 0;
  for (const auto& k : key_) n += k.has_value();
  return n;
}

bool FheKeyCache::take_pending(int slot) {
  if (!pending_[slot]) return false;
  pending_[slot] = false;
  return true;
}

}  // namespace photon::fhe

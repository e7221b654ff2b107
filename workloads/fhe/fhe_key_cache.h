// Key management: where each evaluation key lives in HBM and which keys the scratchpad's key
// slots hold (an LRU of keys, each slot holding a key's first digits and limbs up to what its
// uses so far needed, or the whole key; docs/fhe.md "Hybrid key switching"). Pure bookkeeping: the
// caller emits the DMA and semaphore commands a grant asks for (fhe_key_switch.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "workloads/config/fhe_config.h"
#include "workloads/fhe/fhe_keys.h"

namespace photon::fhe {

class FheKeyCache {
 public:
  /// `slots` whole-key slots in the scratchpad; `region_bytes` of HBM for keys; residues of
  /// `storage_bits` bits (ntt.storage_bits).
  FheKeyCache(uint32_t slots, uint64_t region_bytes, uint32_t storage_bits);

  /// Starts the cache warm (fhe.keys_on_chip): the first distinct keys of `keys`, as many as fit.
  void warm(const std::vector<KeyId>& keys);

  /// What acquire() decided.
  struct Grant {
    int slot = 0;             ///< the key slot that holds the key
    bool load = false;        ///< the key must be copied from HBM into the slot
    bool reload = false;      ///< the slot held another key (wait until it is no longer read)
    uint64_t hbm_offset = 0;  ///< the key's offset in the HBM key region (when load)
    uint32_t q_limbs = 0;     ///< Q limbs (and their digits) to copy (when load): the use's K, or all
  };
  /// Marks `key` used by a key switch that reads its first `q_limbs` Q limbs (K = l + 1, so the
  /// first ceil(K / alpha) digits) and the P limbs; 0 = the whole key. A slot that holds the key
  /// with at least that many limbs is a hit; a slot that holds fewer is reloaded with what this
  /// use needs; otherwise the first empty slot, else the least recently used, is loaded. Places
  /// the key in HBM on first use (4 KiB aligned; when the region is full, later keys reuse
  /// addresses from its start, counted by aliased()). Throws Error naming "hbm" when one key is
  /// larger than the region.
  Grant acquire(const KeyId& key, uint32_t q_limbs = 0);
  /// True once after a slot was loaded: the NTT queue must wait for that load.
  bool take_pending(int slot);

  /// The key's offset in the HBM key region, placing it on first use (as acquire() does).
  uint64_t hbm_location(const KeyId& key) { return hbm_offset(key); }
  /// Slots that hold a key.
  uint32_t occupied() const;
  uint64_t loads() const { return loads_; }
  /// Keys placed over earlier keys' HBM addresses because the region was full.
  uint64_t aliased() const { return aliased_; }

 private:
  uint64_t hbm_offset(const KeyId& key);

  uint32_t storage_bits_;
  uint64_t region_bytes_;
  std::vector<std::optional<KeyId>> key_;
  std::vector<uint32_t> limbs_;  ///< Q limbs each slot holds
  std::vector<uint64_t> used_;
  std::vector<bool> pending_;
  uint64_t clock_ = 0;
  std::map<KeyId, uint64_t> hbm_;
  uint64_t next_hbm_ = 0, loads_ = 0, aliased_ = 0;
};

}  // namespace photon::fhe

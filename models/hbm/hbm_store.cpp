#include "models/hbm/hbm_store.h"

#include <algorithm>
#include <cstring>

namespace photon {

void HbmStore::write(uint64_t off, const uint8_t* src, uint64_t n) {
  while (n > 0) {
    const uint64_t page = off / kPageBytes, in = off % kPageBytes;
    const uint64_t k = std::min(n, kPageBytes - in);
    auto& p = pages_[page];
    if (!p) p.reset(new uint8_t[kPageBytes]());  // value-initialised: zero-filled
    std::memcpy(p.get() + in, src, k);
    off += k;
    src += k;
    n -= k;
  }
}

void HbmStore::read(uint64_t off, uint8_t* dst, uint64_t n) const {
  while (n > 0) {
    const uint64_t page = off / kPageBytes, in = off % kPageBytes;
    const uint64_t k = std::min(n, kPageBytes - in);
    auto it = pages_.find(page);
    if (it == pages_.end())
      std::memset(dst, 0, k);
    else
      std::memcpy(dst, it->second.get() + in, k);
    off += k;
    dst += k;
    n -= k;
  }
}

}  // namespace photon

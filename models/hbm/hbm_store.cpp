#include "models/hbm/hbm_store.h"

#include <algorithm>
#include <cstring>
#include <vector>

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

void HbmStore::for_each_page(const std::function<void(uint64_t, const uint8_t*)>& fn) const {
  std::vector<uint64_t> order;
  order.reserve(pages_.size());
  for (const auto& [page, bytes] : pages_) order.push_back(page);
  std::sort(order.begin(), order.end());
  for (uint64_t page : order) fn(page, pages_.at(page).get());
}

}  // namespace photon

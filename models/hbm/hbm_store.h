// Sparse byte store for the HBM's functional contents: 1 MiB pages allocated on first write,
// zero-filled; reads of pages never written return zeros without allocating. Never allocates
// the full capacity.
#pragma once

#include <cstdint>
#include <memory>
#include <functional>
#include <unordered_map>

namespace photon {

class HbmStore {
 public:
  static constexpr uint64_t kPageBytes = uint64_t(1) << 20;
  void write(uint64_t off, const uint8_t* src, uint64_t n);
  void read(uint64_t off, uint8_t* dst, uint64_t n) const;
  /// Pages allocated so far (1 MiB each).
  size_t pages() const { return pages_.size(); }
  /// Calls fn(page index, kPageBytes bytes) for every allocated page, in address order.
  void for_each_page(const std::function<void(uint64_t page, const uint8_t* bytes)>& fn) const;

 private:
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace photon

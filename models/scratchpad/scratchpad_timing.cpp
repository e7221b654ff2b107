#include "models/scratchpad/scratchpad_timing.h"

#include <algorithm>
#include <vector>

namespace photon {

uint64_t ScratchpadTiming::contiguous_cycles(uint64_t offset, uint64_t bytes) const {
  if (bytes == 0) return 0;
  const uint64_t w = cfg_.bank_width_bytes;
  const uint64_t w0 = offset / w, w1 = (offset + bytes - 1) / w;
  const uint64_t words = w1 - w0 + 1;
  return (words + cfg_.banks - 1) / cfg_.banks;
}

uint64_t ScratchpadTiming::strided_cycles(uint64_t offset, uint64_t row_bytes, uint64_t stride,
                                          uint64_t rows) const {
  if (rows == 0 || row_bytes == 0) return 0;
  if (stride == row_bytes) return contiguous_cycles(offset, row_bytes * rows);
  const uint64_t w = cfg_.bank_width_bytes, banks = cfg_.banks;
  // Per-bank word counts; rows repeat their bank pattern with period banks*w / gcd, so a
  // bounded number of rows is enough to find the per-row load, then scale.
  std::vector<uint64_t> load(banks, 0);
  const uint64_t sample = std::min<uint64_t>(rows, 4 * banks);
  for (uint64_t r = 0; r < sample; ++r) {
    uint64_t a = offset + r * stride;
    uint64_t w0 = a / w, w1 = (a + row_bytes - 1) / w;
    uint64_t n = w1 - w0 + 1;
    if (n >= banks) {
      for (auto& l : load) l += n / banks;
      n %= banks;
      w0 += (w1 - w0 + 1) - n;
    }
    for (uint64_t k = 0; k < n; ++k) load[(w0 + k) % banks]++;
  }
  uint64_t worst = *std::max_element(load.begin(), load.end());
  return (worst * rows + sample - 1) / sample;
}

}  // namespace photon

// LoadImage: the memory contents a command stream gives its commands before the run, checked
// against the bytes the stream's segments and copies place (the oracle is the copy itself).
#include "platform/load_image.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "isa/command.h"

namespace {

using photon::LoadImage;
namespace pcs = photon::pcs;

constexpr uint64_t kSpm = 0x4000000000ull;

pcs::Command dma(uint64_t src, uint64_t dst, uint32_t bytes, uint32_t n1 = 1, uint64_t ss1 = 0,
                 uint64_t ds1 = 0) {
  pcs::DmaCopy d;
  d.src = src;
  d.dst = dst;
  d.inner_bytes = bytes;
  d.n1 = n1;
  d.src_stride1 = ss1;
  d.dst_stride1 = ds1;
  return pcs::make_dma(d);
}

std::vector<uint8_t> iota(size_t n, uint8_t from) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(from + i);
  return v;
}

TEST(LoadImage, SegmentCopiedToTheScratchpadIsKnownThere) {
  const std::vector<uint8_t> seg = iota(64, 1);
  LoadImage img(kSpm);
  img.add_bytes(0x1000, seg.data(), seg.size());
  img.apply(dma(0x1010, kSpm + 0x200, 16));
  std::vector<uint8_t> got(16);
  ASSERT_TRUE(img.read_scratchpad(0x200, got.data(), 16));
  EXPECT_EQ(got, std::vector<uint8_t>(seg.begin() + 16, seg.begin() + 32));
  EXPECT_FALSE(img.read_scratchpad(0x1f8, got.data(), 16));  // 8 bytes before the copy: unknown
  EXPECT_FALSE(img.read_scratchpad(0x208, got.data(), 16));  // runs past its end
}

TEST(LoadImage, StridedCopyAndOverwriteFromUnknownBytes) {
  const std::vector<uint8_t> seg = iota(32, 100);
  LoadImage img(kSpm);
  img.add_bytes(0x0, seg.data(), seg.size());
  img.apply(dma(0x0, kSpm, 8, 4, 8, 16));  // rows of 8 bytes to every 16 bytes
  uint8_t row[8];
  for (int r = 0; r < 4; ++r) {
    ASSERT_TRUE(img.read_scratchpad(16 * r, row, 8)) << r;
    EXPECT_EQ(0, std::memcmp(row, seg.data() + 8 * r, 8)) << r;
    EXPECT_FALSE(img.read_scratchpad(16 * r + 8, row, 1)) << r;  // the gaps stay unknown
  }
  img.apply(dma(0x9000, kSpm + 16, 8));  // from bytes nobody placed: row 1 becomes unknown
  EXPECT_FALSE(img.read_scratchpad(16, row, 8));
  EXPECT_TRUE(img.read_scratchpad(32, row, 8));
}

TEST(LoadImage, FillKeepsItsFloatPhaseAndNttResultsAreUnknown) {
  LoadImage img(kSpm);
  img.add_fill(0x100, 8, 1.5f);
  img.apply(dma(0x102, kSpm + 0x40, 8));  // starts mid-float
  uint8_t got[8], want[8];
  float f = 1.5f;
  for (int i = 0; i < 8; ++i) want[i] = reinterpret_cast<uint8_t*>(&f)[(i + 2) % 4];
  ASSERT_TRUE(img.read_scratchpad(0x40, got, 8));
  EXPECT_EQ(0, std::memcmp(got, want, 8));
  pcs::Ntt n;
  n.op = pcs::Ntt::kForward;
  n.log_n = 4;
  n.limbs = 1;
  n.dst = 0x0;  // 16 words = 128 bytes over the copied bytes
  img.apply(pcs::make_ntt(n));
  EXPECT_FALSE(img.read_scratchpad(0x40, got, 8));
  EXPECT_EQ(img.pieces(), 1u);  // the fill in HBM
}

}  // namespace

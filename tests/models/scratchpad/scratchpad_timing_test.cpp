// Scratchpad bank-conflict timing against closed forms of a low-order-interleaved banked SRAM.
#include <gtest/gtest.h>

#include "models/scratchpad/scratchpad_timing.h"

namespace {
photon::ScratchpadConfig cfg(uint32_t banks, uint32_t width) {
  photon::ScratchpadConfig c;
  c.banks = banks;
  c.bank_width_bytes = width;
  return c;
}
}  // namespace

TEST(ScratchpadTiming, ContiguousAccessSpreadsOverAllBanks) {
  photon::ScratchpadTiming t(cfg(32, 64));
  EXPECT_EQ(t.contiguous_cycles(0, 0), 0u);
  EXPECT_EQ(t.contiguous_cycles(0, 64), 1u);
  EXPECT_EQ(t.contiguous_cycles(0, 32 * 64), 1u);      // one word in every bank
  EXPECT_EQ(t.contiguous_cycles(0, 32 * 64 + 1), 2u);  // one bank holds two words
  EXPECT_EQ(t.contiguous_cycles(32, 64), 1u);          // misaligned: two words, two banks
  EXPECT_EQ(t.contiguous_cycles(0, 1 << 20), (1u << 20) / (32 * 64));
}

TEST(ScratchpadTiming, PowerOfTwoStrideConflictsInOneBank) {
  photon::ScratchpadTiming t(cfg(32, 64));
  // 64 rows of one word, 32*64 bytes apart: every row lands in bank 0 -> 64 cycles.
  EXPECT_EQ(t.strided_cycles(0, 64, 32 * 64, 64), 64u);
  // Stride of one word plus one bank: rows rotate through all banks -> 2 cycles for 64 rows.
  EXPECT_EQ(t.strided_cycles(0, 64, 33 * 64, 64), 2u);
  // A stride equal to the row length is a contiguous access.
  EXPECT_EQ(t.strided_cycles(0, 256, 256, 16), t.contiguous_cycles(0, 4096));
  // Half-bank stride: rows alternate between two banks.
  EXPECT_EQ(t.strided_cycles(0, 64, 16 * 64, 64), 32u);
}

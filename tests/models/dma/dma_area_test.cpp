// DMA area (models/dma/dma_area.h): in-flight burst buffers at F1's SRAM density.
#include <gtest/gtest.h>

#include "models/dma/dma_area.h"

namespace photon {
namespace {

TEST(DmaArea, BuffersForEveryOutstandingBurst) {
  DmaConfig c;  // 2 channels x 16 outstanding x 4 KiB = 128 KiB
  EXPECT_NEAR(dma_area(c).total_mm2(), 0.125 * 48.09 / 64, 1e-12);
  c.channels = 8;
  c.burst_bytes = 256;
  EXPECT_NEAR(dma_area(c).total_mm2(), 8.0 * 16 * 256 / (1 << 20) * 48.09 / 64, 1e-12);
}

}  // namespace
}  // namespace photon

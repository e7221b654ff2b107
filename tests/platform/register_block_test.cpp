// Register blocks built from registers.yaml: offsets, reset values and access rules.
#include <gtest/gtest.h>

#include "base/error.h"
#include "photon_regs.h"
#include "platform/regs/register_block.h"

using photon::RegisterBlock;

TEST(RegisterBlock, ResetValuesAndOffsetsComeFromTheTable) {
  RegisterBlock sys("SYS");
  uint32_t v = 0;
  ASSERT_TRUE(sys.read(PHOTON_SYS_ID, v));
  EXPECT_EQ(v, 0x50484F54u);  // "PHOT", the reset value in registers.yaml
  EXPECT_EQ(sys.base(), PHOTON_SYS_BASE);
  RegisterBlock dma("DMA");
  EXPECT_EQ(dma.base(), PHOTON_QUEUE_DMA_BASE);
}

TEST(RegisterBlock, ReadOnlyWriteIsRejectedAndCounted) {
  RegisterBlock sys("SYS");
  EXPECT_FALSE(sys.write(PHOTON_SYS_ID, 1));
  EXPECT_EQ(sys.access_errors(), 1u);
  EXPECT_NE(sys.last_error().find("read-only SYS.ID"), std::string::npos);
  uint32_t v = 0;
  ASSERT_TRUE(sys.read(PHOTON_SYS_ID, v));
  EXPECT_EQ(v, PHOTON_SYS_ID_RESET);  // unchanged
}

TEST(RegisterBlock, WriteOnlyReadIsRejected) {
  RegisterBlock dma("DMA");
  uint32_t v = 0;
  EXPECT_FALSE(dma.read(PHOTON_QUEUE_PUSH, v));
  EXPECT_FALSE(dma.read(PHOTON_QUEUE_CMD(3), v));
  EXPECT_EQ(dma.access_errors(), 2u);
}

TEST(RegisterBlock, UnmappedAndMisalignedAreRejected) {
  RegisterBlock sys("SYS");
  uint32_t v = 0;
  EXPECT_FALSE(sys.read(0x800, v));
  EXPECT_FALSE(sys.read(PHOTON_SYS_STATUS + 1, v));
  EXPECT_EQ(sys.access_errors(), 2u);
}

TEST(RegisterBlock, ArrayRegistersAndHooks) {
  RegisterBlock dma("DMA");
  uint32_t pushed = 0;
  dma.on_write(photon::regs::QUEUE::PUSH, [&](uint32_t, uint32_t v) { pushed = v; });
  ASSERT_TRUE(dma.write(PHOTON_QUEUE_CMD(15), 0xABCD));
  EXPECT_EQ(dma.get(photon::regs::QUEUE::CMD, 15), 0xABCDu);
  ASSERT_TRUE(dma.write(PHOTON_QUEUE_PUSH, 7));
  EXPECT_EQ(pushed, 7u);
  RegisterBlock irq("IRQ");
  uint32_t cleared = 0;
  irq.on_write(photon::regs::IRQ::ACK, [&](uint32_t, uint32_t v) { cleared = v; });
  ASSERT_TRUE(irq.write(PHOTON_IRQ_ACK, 0x5));
  EXPECT_EQ(cleared, 0x5u);
}

TEST(RegisterBlock, UnknownInstanceIsAnError) { EXPECT_THROW(RegisterBlock("NOPE"), photon::Error); }

TEST(RegisterBlock, TypedViewAgreesWithTheFirmwareHeader) {
  // regs_view.h (models) and photon_regs.h (firmware) come from the same description.
  namespace r = photon::regs;
  EXPECT_EQ(r::QUEUE::STATUS.offset, PHOTON_QUEUE_STATUS);
  EXPECT_EQ(r::QUEUE::STATUS_FREE.mask(), PHOTON_QUEUE_STATUS_FREE_MASK);
  EXPECT_EQ(r::QUEUE::STATUS_FREE.lsb, PHOTON_QUEUE_STATUS_FREE_SHIFT);
  EXPECT_EQ(r::SYS::STATUS_CODE.put(0xAB), 0xABu << PHOTON_SYS_STATUS_CODE_SHIFT);
  EXPECT_EQ(r::SYS::STATUS_CODE.get(0xAB00u | 7u), 0xABu);
  EXPECT_EQ(r::kUnits[2].queue_base, PHOTON_QUEUE_NTT_BASE);
  EXPECT_EQ(r::kUnits[3].done_bit, PHOTON_IRQ_PENDING_VEC_DONE_SHIFT);
  EXPECT_EQ(uint32_t(r::UnitError::SEMAPHORE), PHOTON_UNIT_ERR_SEMAPHORE);
}

TEST(RegisterBlock, AnotherBlocksRegisterIsAnError) {
  RegisterBlock sys("SYS");
  EXPECT_THROW(sys.get(photon::regs::QUEUE::STATUS), photon::Error);
  RegisterBlock sem("SEM");
  EXPECT_THROW(sem.get(photon::regs::SEM::VALUE, 64), photon::Error);  // 64 semaphores: 0..63
}

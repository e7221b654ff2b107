// The unit table: one row per command-executing unit, in the queue order of registers.yaml.
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "isa/command.h"
#include "photon_regs.h"
#include "platform/regs/register_block.h"
#include "soc/platform_config.h"
#include "soc/unit_table.h"

using ::testing::HasSubstr;

TEST(UnitTable, RowsAreTheQueuesInOrderWithTheirRegistersAndInterrupts) {
  const auto& table = photon::unit_table();
  ASSERT_EQ(table.size(), PHOTON_QUEUE_COUNT);
  std::set<std::string> names;
  std::set<unsigned> bits;
  for (size_t q = 0; q < table.size(); ++q) {
    const photon::UnitDesc& u = table[q];
    EXPECT_EQ(unsigned(u.queue), q) << u.name;
    EXPECT_TRUE(names.insert(u.name).second) << u.name;
    EXPECT_FALSE(u.impls.empty()) << u.name;
    photon::RegisterBlock regs(u.hw().name);
    EXPECT_EQ(regs.base(), u.hw().queue_base) << u.name;
    EXPECT_TRUE(bits.insert(u.hw().done_bit).second && bits.insert(u.hw().err_bit).second) << u.name;
  }
  // The isa's queue ids and the firmware's routing agree with the table.
  EXPECT_EQ(table[unsigned(photon::pcs::Queue::Ntt)].name, "ntt");
  EXPECT_EQ(photon::pcs::make_vector({}).queue(), int(photon::pcs::Queue::Vector));
  EXPECT_EQ(table[PHOTON_UNIT_DMA_QUEUE].hw().opcode, PHOTON_OP_DMA);
}

TEST(UnitTable, ImplIsAConfigurationChoiceNamingTheKey) {
  photon::PlatformConfig cfg = photon::load_platform_config("", {});
  for (const auto& u : photon::unit_table()) EXPECT_EQ(cfg.impl.at(u.name), u.impls.front().name);
  try {
    photon::load_platform_config("", {"ntt.impl=verilog"});
    FAIL() << "accepted ntt.impl=verilog";
  } catch (const photon::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("ntt.impl"));
    EXPECT_THAT(e.what(), HasSubstr("tlm"));
  }
  EXPECT_THROW(photon::unit_table()[0].implementation("verilog"), photon::Error);
}

// Pure-core tests: timing state machine legality, unloaded latencies against closed forms,
// address mapping.
#include <gtest/gtest.h>

#include "base/error.h"
#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_timing.h"

namespace {

photon::HbmConfig preset(const char* name, bool refresh = false) {
  photon::HbmConfig c;
  c.apply_preset(name);
  c.refresh_enabled = refresh;
  return c;
}

TEST(HbmTiming, RejectsIllegalCommands) {
  const auto cfg = preset("hbm2");
  const photon::HbmTimingParams tp(cfg);
  photon::HbmChannelTiming t(cfg, tp);
  using photon::HbmCmd;
  EXPECT_THROW(t.issue(HbmCmd::RD, 0, 5, 0), photon::Error);  // bank closed
  t.issue(HbmCmd::ACT, 0, 5, 0);
  EXPECT_THROW(t.issue(HbmCmd::RD, 0, 5, cfg.tRCD - 1), photon::Error);  // tRCD
  EXPECT_EQ(t.ready_time(HbmCmd::RD, 0), cfg.tRCD);
  EXPECT_THROW(t.issue(HbmCmd::RD, 0, 6, cfg.tRCD), photon::Error);  // not the open row
  EXPECT_EQ(t.ready_time(HbmCmd::PRE, 0), cfg.tRAS);
  // ACT to another bank of the same group waits tRRD_L, of another group tRRD_S.
  EXPECT_EQ(t.ready_time(HbmCmd::ACT, 1), cfg.tRRD_L);
  EXPECT_EQ(t.ready_time(HbmCmd::ACT, cfg.banks_per_group), cfg.tRRD_S);
  t.issue(HbmCmd::RD, 0, 5, cfg.tRCD);
  // RD -> RD: same bank group max(burst, tCCD_L), other group max(burst, tCCD_S).
  EXPECT_EQ(t.ready_time(HbmCmd::RD, 0), cfg.tRCD + std::max(cfg.burst_cycles(), cfg.tCCD_L));
  EXPECT_EQ(t.ready_time(HbmCmd::PRE, 0), std::max<uint64_t>(cfg.tRAS, cfg.tRCD + cfg.tRTP));
  EXPECT_EQ(t.ready_time(HbmCmd::WR, 0), cfg.tRCD + cfg.CL + cfg.burst_cycles() + cfg.tRTRS - cfg.CWL);
}

TEST(HbmTiming, FourActivateWindow) {
  const auto cfg = preset("hbm2");
  const photon::HbmTimingParams tp(cfg);
  photon::HbmChannelTiming t(cfg, tp);
  // Four ACTs to four bank groups, tRRD_S apart; the fifth waits for the first + tFAW.
  uint64_t c = 0;
  for (uint32_t i = 0; i < 4; ++i, c += cfg.tRRD_S) t.issue(photon::HbmCmd::ACT, i * 4, 1, c);
  EXPECT_EQ(t.ready_time(photon::HbmCmd::ACT, 1), uint64_t(cfg.tFAW));
  EXPECT_THROW(t.issue(photon::HbmCmd::ACT, 1, 1, cfg.tFAW - 1), photon::Error);
  t.issue(photon::HbmCmd::ACT, 1, 1, cfg.tFAW);
  // The window slides: the sixth waits for the second ACT + tFAW.
  EXPECT_EQ(t.ready_time(photon::HbmCmd::ACT, 5), uint64_t(cfg.tRRD_S + cfg.tFAW));
}

TEST(HbmTiming, RefreshNeedsClosedBanksAndBlocksForTrfc) {
  const auto cfg = preset("hbm2");
  const photon::HbmTimingParams tp(cfg);
  photon::HbmChannelTiming t(cfg, tp);
  t.issue(photon::HbmCmd::ACT, 3, 7, 0);
  EXPECT_THROW(t.issue(photon::HbmCmd::REF, 0, 0, 100), photon::Error);
  t.issue(photon::HbmCmd::PRE, 3, 0, cfg.tRAS);
  EXPECT_EQ(t.refresh_ready_time(), uint64_t(cfg.tRAS + cfg.tRP));
  t.issue(photon::HbmCmd::REF, 0, 0, cfg.tRAS + cfg.tRP);
  EXPECT_EQ(t.ready_time(photon::HbmCmd::ACT, 0), uint64_t(cfg.tRAS + cfg.tRP + cfg.tRFC));
}

// Unloaded read latency, arrival to last data beat. The controller moves a request arriving at
// cycle a into its bank queue in cycle a and issues its first command at a + 1, so:
//   closed bank:  1 + tRCD + CL + burst
//   row hit:      1 + CL + burst
//   row conflict: 1 + tRP + tRCD + CL + burst   (tRAS and tRTP long satisfied)
class UnloadedLatency : public ::testing::TestWithParam<const char*> {};

TEST_P(UnloadedLatency, MatchesClosedForms) {
  const auto cfg = preset(GetParam());
  photon::HbmController hbm(cfg);
  const auto& m = hbm.address_map();
  const uint64_t burst = cfg.burst_cycles();
  const uint64_t row_a = m.encode(1, 0, 2, 3, 100, 5), row_a2 = m.encode(1, 0, 2, 3, 100, 9);
  const uint64_t row_b = m.encode(1, 0, 2, 3, 200, 5);
  const uint64_t ab = cfg.access_bytes();
  EXPECT_EQ(hbm.access(row_a, ab, false, 1000) - 1000, 1 + cfg.tRCD + cfg.CL + burst);
  EXPECT_EQ(hbm.access(row_a2, ab, false, 2000) - 2000, 1 + cfg.CL + burst);
  EXPECT_EQ(hbm.access(row_b, ab, false, 3000) - 3000, 1 + cfg.tRP + cfg.tRCD + cfg.CL + burst);
  const auto c = hbm.counters();
  EXPECT_EQ(c.activates, 2u);
  EXPECT_EQ(c.precharges, 1u);
  EXPECT_EQ(c.row_hits, 1u);
  EXPECT_EQ(c.reads, 3u);
  EXPECT_EQ(c.total_read_latency, 3 * (1 + cfg.CL + burst) + cfg.tRCD + cfg.tRP + cfg.tRCD);
}

INSTANTIATE_TEST_SUITE_P(Presets, UnloadedLatency, ::testing::Values("hbm2", "hbm3"));

TEST(HbmController, WritesArePostedAndForwarded) {
  const auto cfg = preset("hbm2");
  photon::HbmController hbm(cfg);
  // A posted write completes one cycle after arrival; a read of the same line is served from
  // the write buffer one cycle after its arrival.
  EXPECT_EQ(hbm.access(0x1000, 64, true, 50), 51u);
  EXPECT_EQ(hbm.access(0x1000, 64, false, 60), 61u);
  EXPECT_EQ(hbm.counters().write_cmds, 0u);  // below the drain threshold, nothing written yet
  // Filling the write buffer starts a drain: every buffered write reaches the DRAM.
  const uint64_t n = cfg.write_queue_depth;
  hbm.access(0x100000, n * 64, true, 100);
  hbm.access(0x200000, 64, true, 100);  // waits for room, by then the drain is under way
  for (uint32_t u = 0; u < hbm.units(); ++u) hbm.unit(u).advance_to(10000);
  EXPECT_GE(hbm.counters().write_cmds, n);
}

TEST(HbmController, ReadBeforeWriteToSameAddressDoesNotStall) {
  // A read of address A waits in the read queue behind a long row-conflict chain; a write to A
  // then fills the write buffer together with others. The drain stops at the write to A (it
  // must not pass the read) and the read queue keeps being served, so everything completes.
  auto cfg = preset("hbm2");
  cfg.channels = 1;
  cfg.read_queue_depth = 4;
  cfg.write_queue_depth = 4;
  cfg.write_drain_threshold = 4;
  cfg.bank_queue_depth = 1;
  photon::HbmController hbm(cfg);
  const auto& m = hbm.address_map();
  const uint64_t a = m.encode(0, 0, 0, 0, 1, 0);
  for (uint32_t r = 2; r < 5; ++r) hbm.enqueue(m.encode(0, 0, 0, 0, r, 0), false, 0);
  hbm.enqueue(a, false, 0);
  hbm.enqueue(a, true, 1);
  for (uint32_t r = 10; r < 13; ++r) hbm.enqueue(m.encode(0, 0, 0, 0, r, 0), true, 1);
  EXPECT_GT(hbm.finish(), 0u);
  EXPECT_EQ(hbm.counters().reads_done, 4u);
}

TEST(HbmController, BurstSplitsIntoColumnAccesses) {
  const auto cfg = preset("hbm2");
  photon::HbmController hbm(cfg);
  hbm.access(100, 4096, false, 0);  // bytes 100..4195: lines 1..65 of 64 B
  EXPECT_EQ(hbm.counters().reads, 65u);
  EXPECT_EQ(hbm.counters().read_cmds, 65u);
  EXPECT_EQ(hbm.access(0, 0, false, 77), 77u);
}

TEST(HbmAddress, RorabgbachcoFieldOrder) {
  const auto cfg = preset("hbm2");
  const photon::HbmAddressMap m(cfg);
  // 6 offset bits, then co (5), ch (3), ba (2), bg (2), ra (0), ro (15).
  auto d = m.decode(uint64_t(1) << 6);
  EXPECT_EQ(d.column, 1u);
  d = m.decode(uint64_t(1) << 11);
  EXPECT_EQ(d.channel, 1u);
  EXPECT_EQ(d.column, 0u);
  d = m.decode(uint64_t(1) << 14);
  EXPECT_EQ(d.bank_in_group, 1u);
  d = m.decode(uint64_t(1) << 16);
  EXPECT_EQ(d.bank_group, 1u);
  EXPECT_EQ(d.bank, cfg.banks_per_group);
  d = m.decode(uint64_t(1) << 18);
  EXPECT_EQ(d.row, 1u);
  const uint64_t a = m.encode(5, 0, 3, 2, 12345, 17);
  d = m.decode(a);
  EXPECT_EQ(d.channel, 5u);
  EXPECT_EQ(d.bank_group, 3u);
  EXPECT_EQ(d.bank_in_group, 2u);
  EXPECT_EQ(d.row, 12345u);
  EXPECT_EQ(d.column, 17u);
  EXPECT_EQ(d.unit, 5u);
  EXPECT_EQ(cfg.capacity_bytes(), uint64_t(8) << 30);  // 8 x 1 GiB, as DRAMsim3 sizes it
}

TEST(HbmAddress, PseudoChannelField) {
  const auto cfg = preset("hbm3");
  const photon::HbmAddressMap m(cfg);
  const auto d = m.decode(m.encode(7, 1, 0, 0, 0, 0));
  EXPECT_EQ(d.channel, 7u);
  EXPECT_EQ(d.pseudo_channel, 1u);
  EXPECT_EQ(d.unit, 15u);
}

TEST(HbmAddress, BadMappingIsAnError) {
  auto cfg = preset("hbm2");
  cfg.address_mapping = "rorabgbachxx";
  EXPECT_THROW(photon::HbmAddressMap{cfg}, photon::Error);
  cfg.address_mapping = "rororabgbach";
  EXPECT_THROW(photon::HbmAddressMap{cfg}, photon::Error);
  cfg.address_mapping = "robgbachco";
  EXPECT_THROW(photon::HbmAddressMap{cfg}, photon::Error);
  cfg = preset("hbm2");
  cfg.channels = 6;
  EXPECT_THROW(photon::HbmController{cfg}, photon::Error);
}

}  // namespace

// Temporal decoupling: a channel whose clock another initiator advanced while it stayed idle
// serves an earlier request at its arrival (closed-bank latency from the arrival); a channel that
// did work after that arrival makes it wait behind that work.
TEST(HbmController, IdleChannelServesAnEarlierArrivalInTimeOrder) {
  auto cfg = preset("hbm2");
  cfg.refresh_enabled = false;
  photon::HbmController hbm(cfg);
  const auto& m = hbm.address_map();
  const uint64_t ab = cfg.access_bytes(), burst = cfg.burst_cycles();
  const uint64_t a = m.encode(1, 0, 2, 3, 100, 5), b = m.encode(1, 0, 1, 0, 300, 0);
  EXPECT_TRUE(hbm.has_room(a, false, 5000));  // advances the idle channel to 5000
  EXPECT_EQ(hbm.access(a, ab, false, 100) - 100, 1 + cfg.tRCD + cfg.CL + burst);
  // Channel 1 has now served a read around cycle 100; a request at 50 waits for that work.
  EXPECT_GT(hbm.access(b, ab, false, 50), 50 + 1 + cfg.tRCD + cfg.CL + burst);
}

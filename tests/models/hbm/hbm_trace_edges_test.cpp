// The DRAM trace player on minimal traces written for these tests: addresses beyond the
// capacity, idle gaps far longer than any simulation could step (skipped in constant time, with
// the refreshes counted as the tREFI grid gives them), posted writes drained at the end, cycle
// limits, and paths that are not regular files.
#include <gtest/gtest.h>

#include <sstream>

#include "base/error.h"
#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_trace.h"

namespace photon {
namespace {

nlohmann::json play(const std::string& trace, HbmConfig cfg = HbmConfig{}) {
  std::istringstream in(trace);
  return run_hbm_trace(cfg, in, "t.trace");
}

std::string error_of(const std::string& trace) {
  try {
    play(trace);
  } catch (const Error& e) { return e.what(); }
  return "";
}

TEST(HbmTraceEdges, AddressesBeyondTheCapacityAreErrors) {
  // hbm2: 8 channels x 16 banks x 32768 rows x 32 columns x 64 B = 8 GiB = 0x200000000.
  EXPECT_EQ(HbmConfig{}.capacity_bytes(), uint64_t(8) << 30);
  EXPECT_EQ(play("0x1ffffffc0 READ 0\n")["reads"], 1);
  EXPECT_EQ(error_of("0x0 READ 0\n0x200000000 READ 5\n"),
            "t.trace:2: address 0x200000000 is beyond the HBM capacity of 8589934592 bytes (the hbm "
            "organisation keys set it)");
  EXPECT_EQ(error_of("0xffffffffffffffff WRITE 0\n"),
            "t.trace:1: address 0xffffffffffffffff is beyond the HBM capacity of 8589934592 bytes (the hbm "
            "organisation keys set it)");
}

TEST(HbmTraceEdges, CyclesAboveTwoToTheSixtyTwoAreErrors) {
  EXPECT_EQ(play("0x0 READ 4611686018427387904\n")["reads"], 1);
  EXPECT_EQ(error_of("0x0 READ 4611686018427387905\n"),
            "t.trace:1: cycle 4611686018427387905 is beyond the largest cycle the player handles (2^62 = "
            "4611686018427387904)");
  EXPECT_EQ(error_of("0x0 READ 99999999999999999999999\n")
                .rfind("t.trace:1: cycle 99999999999999999999999 is beyond", 0),
            0u);
}

TEST(HbmTraceEdges, IdleGapsAreSkippedWithTheirRefreshesCounted) {
  // Two reads 10^18 cycles apart. Both see a closed bank (the refresh at cycle 3900 closed the
  // row): latency 1 + tRCD + CL + burst = 1 + 14 + 14 + 2 = 31 tCK (README "Timing model").
  // Every channel is idle between, so each issues the REF of every tREFI grid point before the
  // end: 8 x floor((end - 1) / 3900).
  const uint64_t gap = 1000000000000000000ull;
  const auto r = play("0x0 READ 0\n0x0 READ " + std::to_string(gap) + "\n");
  const uint64_t end = r["completion_cycle"];
  EXPECT_EQ(end, gap + 31);
  EXPECT_DOUBLE_EQ(r["avg_read_latency_ns"].get<double>(), 31.0);
  EXPECT_EQ(r["refreshes"], 8 * ((end - 1) / 3900));
  EXPECT_EQ(r["activates"], 2);
}

TEST(HbmTraceEdges, SkippingIdleRefreshesEqualsSteppingThem) {
  // The same channel advanced over 10^7 idle cycles by advance_to() (constant time) and by
  // run_cycle() (one step per event): same clock, counters and timing for the next request.
  const HbmConfig cfg;
  const HbmTimingParams tp(cfg);
  const HbmAddressMap map(cfg);
  HbmChannelController a(cfg, tp), b(cfg, tp);
  for (HbmChannelController* c : {&a, &b}) c->enqueue(0, map.decode(0), false, 0);
  while (a.now() < 10000000) a.run_cycle();
  b.advance_to(a.now());
  ASSERT_EQ(a.now(), b.now());
  for (HbmChannelController* c : {&a, &b}) {
    c->enqueue(0x40, map.decode(0x40), false, 0);
    while (!c->reads_idle()) c->run_cycle();
  }
  const HbmCounters ca = a.counters(), cb = b.counters();
  EXPECT_EQ(ca.refreshes, cb.refreshes);
  EXPECT_GT(ca.refreshes, 2000u);
  EXPECT_EQ(ca.precharges, cb.precharges);
  EXPECT_EQ(ca.activates, cb.activates);
  EXPECT_EQ(ca.total_read_latency, cb.total_read_latency);
  EXPECT_EQ(ca.last_done, cb.last_done);
}

TEST(HbmTraceEdges, PostedWritesAreDrainedAndCounted) {
  // Two writes, fewer than write_drain_threshold: done for the trace when posted, and issued as
  // WR commands before the report. A third write to the same address replaces the first.
  const auto r = play("0x0 WRITE 0\n0x40 WRITE 1\n0x0 WRITE 2\n");
  EXPECT_EQ(r["writes"], 3);
  EXPECT_EQ(r["write_cmds"], 2);
  EXPECT_EQ(r["completion_cycle"], 3);  // posted: accepted at cycle 2, done at 3
  EXPECT_GT(r["drain_cycle"].get<uint64_t>(), r["completion_cycle"].get<uint64_t>());
  EXPECT_EQ(r["activates"], 1);  // both columns of row 0, bank 0, channel 0
  // A read of a written address is served from the write buffer; the write still drains.
  const auto rw = play("0x80 WRITE 0\n0x80 READ 1\n");
  EXPECT_EQ(rw["read_cmds"], 0);
  EXPECT_EQ(rw["write_cmds"], 1);
}

TEST(HbmTraceEdges, PathsThatAreNotRegularFilesAreRefused) {
  auto err = [](const std::string& path) {
    try {
      run_hbm_trace(HbmConfig{}, path);
    } catch (const Error& e) { return std::string(e.what()); }
    return std::string();
  };
  EXPECT_EQ(err("/dev/zero"),
            "/dev/zero: not a regular file (a character device), expected a DRAM trace file");
  EXPECT_EQ(err("/tmp"), "/tmp: is a directory, expected a DRAM trace file");
  EXPECT_EQ(err("/nonexistent.trace"), "/nonexistent.trace: cannot open: No such file or directory");
}

}  // namespace
}  // namespace photon

// HbmChannelController's row-hit runs and accept_all() (hbm_channel_hits.cpp) against the general
// step: a controller with runs on, fed through accept_all(), run_until_group_done() and
// advance_to(), and the same controller type with runs off (set_row_hit_runs(false)) driven by
// the plain per-request loop (rewind_idle, advance_to, run_cycle until room, enqueue; run_cycle
// until the group is done). Random request streams with row locality (long hit runs), row
// conflicts, closed banks, repeated addresses (merged reads, reads served from the write buffer,
// replaced writes), writes that start and stop drains, idle gaps with refreshes, on HBM2 and
// HBM3, refresh on and off, default and tiny queues: clock, every counter and the group's
// completion equal after every bulk access.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_timing.h"

namespace {

using photon::HbmAddress;
using photon::HbmChannelController;
using photon::HbmColumn;
using photon::HbmConfig;

void expect_same(const HbmChannelController& a, const HbmChannelController& b, const std::string& what) {
  ASSERT_EQ(a.now(), b.now()) << what;
  const photon::HbmCounters& x = a.counters();
  const photon::HbmCounters& y = b.counters();
  EXPECT_EQ(x.reads, y.reads) << what;
  EXPECT_EQ(x.writes, y.writes) << what;
  EXPECT_EQ(x.read_cmds, y.read_cmds) << what;
  EXPECT_EQ(x.write_cmds, y.write_cmds) << what;
  EXPECT_EQ(x.activates, y.activates) << what;
  EXPECT_EQ(x.precharges, y.precharges) << what;
  EXPECT_EQ(x.refreshes, y.refreshes) << what;
  EXPECT_EQ(x.row_hits, y.row_hits) << what;
  EXPECT_EQ(x.reads_done, y.reads_done) << what;
  ASSERT_EQ(x.total_read_latency, y.total_read_latency) << what;
  EXPECT_EQ(x.last_done, y.last_done) << what;
  EXPECT_EQ(a.group_done(), b.group_done()) << what;
  EXPECT_EQ(a.group_pending(), b.group_pending()) << what;
  EXPECT_EQ(a.reads_idle(), b.reads_idle()) << what;
  EXPECT_EQ(a.writes_idle(), b.writes_idle()) << what;
}

/// The reference: one request of a bulk access as the bulk path queued it before accept_all().
void reference_accept(HbmChannelController& c, uint64_t addr, const HbmAddress& a, bool is_write, uint32_t group,
                      uint64_t arrival) {
  c.rewind_idle(arrival);
  c.advance_to(arrival);
  while (!c.has_room(is_write)) c.run_cycle();
  c.enqueue(addr, a, is_write, group);
}

struct Case {
  const char* preset;
  bool refresh;
  bool tiny_queues;
};

void run_case(const Case& k, uint32_t seed) {
  HbmConfig cfg;
  cfg.apply_preset(k.preset);
  cfg.refresh_enabled = k.refresh;
  if (k.tiny_queues) {
    cfg.read_queue_depth = 4;
    cfg.write_queue_depth = 8;
    cfg.write_drain_threshold = 4;
    cfg.bank_queue_depth = 2;
  }
  const photon::HbmTimingParams tp(cfg);
  const photon::HbmAddressMap map(cfg);
  HbmChannelController fast(cfg, tp), ref(cfg, tp);
  ref.set_row_hit_runs(false);
  std::mt19937_64 rng(seed);
  const uint32_t rows_used = 6;  // few rows per bank: hits and conflicts both frequent
  uint64_t arrival = 0;
  uint32_t group = 0;
  for (int call = 0; call < 400; ++call) {
    const std::string what = std::string(k.preset) + (k.refresh ? "" : " no-refresh") +
                             (k.tiny_queues ? " tiny" : "") + " seed " + std::to_string(seed) + " call " +
                             std::to_string(call);
    // Arrivals: mostly soon after the last, sometimes in the past (decoupled initiators),
    // sometimes after a long idle gap with refreshes.
    const uint32_t gap = uint32_t(rng() % 16);
    if (gap == 0 && arrival > 500)
      arrival -= rng() % 500;
    else if (gap == 1)
      arrival += 20000 + rng() % 20000;
    else
      arrival += rng() % 200;
    const bool is_write = rng() % 3 == 0;
    if (++group == 0) group = 1;
    // A run of column accesses of this unit: consecutive columns of one (bank, row), a few
    // (bank, row) pairs, or scattered, with repeats of recent addresses.
    std::vector<HbmColumn> cols;
    const uint32_t n = 1 + uint32_t(rng() % (rng() % 4 == 0 ? 160 : 24));
    const uint32_t shape = uint32_t(rng() % 3);
    uint32_t bg = uint32_t(rng() % cfg.bank_groups), ba = uint32_t(rng() % cfg.banks_per_group);
    uint32_t row = uint32_t(rng() % rows_used), col = uint32_t(rng() % cfg.columns);
    for (uint32_t i = 0; i < n; ++i) {
      if (shape == 1 && rng() % 8 == 0) {
        bg = uint32_t(rng() % cfg.bank_groups);
        ba = uint32_t(rng() % cfg.banks_per_group);
      } else if (shape == 2) {
        bg = uint32_t(rng() % cfg.bank_groups);
        ba = uint32_t(rng() % cfg.banks_per_group);
        row = uint32_t(rng() % rows_used);
        col = uint32_t(rng() % cfg.columns);
      }
      if (rng() % 10 == 0) col = uint32_t(rng() % 4);  // repeated addresses
      const uint64_t addr = map.encode(0, 0, bg, ba, row, col % cfg.columns);
      const HbmAddress a = map.decode(addr);
      cols.push_back(HbmColumn{addr, a.row, uint16_t(a.bank)});
      col = (col + 1) % cfg.columns;
      if (col == 0 && shape == 0) row = (row + 1) % rows_used;
    }
    fast.accept_all(cols.data(), cols.size(), is_write, group, arrival);
    for (const HbmColumn& c : cols) reference_accept(ref, c.addr, map.decode(c.addr), is_write, group, arrival);
    expect_same(fast, ref, what + " queued");
    // The bulk path then runs the channel until the access's reads are done.
    fast.run_until_group_done();
    while (ref.group_pending() > 0) ref.run_cycle();
    expect_same(fast, ref, what + " done");
    if (rng() % 8 == 0) {  // a clock advance between accesses (Hbm::sync)
      const uint64_t t = fast.now() + rng() % 3000;
      fast.advance_to(t);
      ref.advance_to(t);
      expect_same(fast, ref, what + " advanced");
    }
    if (testing::Test::HasFatalFailure()) return;
  }
  // End of the stream: every posted write issued.
  for (HbmChannelController* c : {&fast, &ref}) {
    c->drain_all_writes();
    while (!c->writes_idle() || !c->reads_idle()) c->run_cycle();
  }
  expect_same(fast, ref, std::string(k.preset) + " drained");
}

TEST(HbmRowHitRuns, EqualTheGeneralStep) {
  const Case cases[] = {{"hbm2", true, false}, {"hbm2", false, false}, {"hbm3", true, false},
                        {"hbm3", false, false}, {"hbm2", true, true},  {"hbm3", true, true}};
  for (const Case& k : cases)
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      run_case(k, seed);
      if (HasFatalFailure()) return;
    }
}

TEST(HbmRowHitRuns, StreamsEqualTheGeneralStep) {
  // Long streams that keep every queue full (the calibration and fast-forward head pattern),
  // reads then writes, on one unit of each preset.
  for (const char* preset : {"hbm2", "hbm3"}) {
    HbmConfig cfg;
    cfg.apply_preset(preset);
    const photon::HbmTimingParams tp(cfg);
    const photon::HbmAddressMap map(cfg);
    HbmChannelController fast(cfg, tp), ref(cfg, tp);
    ref.set_row_hit_runs(false);
    uint32_t group = 0;
    for (bool is_write : {false, true, false}) {
      std::vector<HbmColumn> cols;
      for (uint32_t i = 0; i < 20000; ++i) {  // bank group fastest, then column, bank, row
        const uint32_t bg = i % cfg.bank_groups, col = (i / cfg.bank_groups) % cfg.columns;
        const uint32_t ba = (i / cfg.bank_groups / cfg.columns) % cfg.banks_per_group;
        const uint32_t row = i / cfg.bank_groups / cfg.columns / cfg.banks_per_group;
        const uint64_t addr = map.encode(0, 0, bg, ba, row, col);
        const HbmAddress a = map.decode(addr);
        cols.push_back(HbmColumn{addr, a.row, uint16_t(a.bank)});
      }
      ++group;
      const uint64_t arrival = fast.now();
      fast.accept_all(cols.data(), cols.size(), is_write, group, arrival);
      for (const HbmColumn& c : cols) reference_accept(ref, c.addr, map.decode(c.addr), is_write, group, arrival);
      fast.run_until_group_done();
      while (ref.group_pending() > 0) ref.run_cycle();
      expect_same(fast, ref, std::string(preset) + (is_write ? " write stream" : " read stream"));
      EXPECT_GT(fast.counters().row_hits, fast.counters().activates * 8) << preset;
    }
  }
}

TEST(HbmRowHitRuns, AcceptHookStopsWhereTheLoopStops) {
  // accept_all() with a hook that stops after request k: the same state as the per-request loop
  // stopped after enqueueing request k.
  HbmConfig cfg;
  const photon::HbmTimingParams tp(cfg);
  const photon::HbmAddressMap map(cfg);
  std::vector<HbmColumn> cols;
  for (uint32_t i = 0; i < 3000; ++i) {
    const uint64_t addr = map.encode(0, 0, i % 4, (i / 128) % 4, i / 512, (i / 4) % 32);
    const HbmAddress a = map.decode(addr);
    cols.push_back(HbmColumn{addr, a.row, uint16_t(a.bank)});
  }
  for (size_t stop : {size_t(0), size_t(31), size_t(32), size_t(1000), size_t(2999)}) {
    HbmChannelController fast(cfg, tp), ref(cfg, tp);
    ref.set_row_hit_runs(false);
    struct Ctx {
      size_t stop, calls;
    } ctx{stop, 0};
    auto hook = [](void* p, size_t k) {
      Ctx& c = *static_cast<Ctx*>(p);
      ++c.calls;
      return k != c.stop;
    };
    const size_t n = fast.accept_all(cols.data(), cols.size(), false, 1, 0, hook, &ctx);
    EXPECT_EQ(n, stop + 1);
    EXPECT_EQ(ctx.calls, stop + 1);
    for (size_t i = 0; i <= stop; ++i) reference_accept(ref, cols[i].addr, map.decode(cols[i].addr), false, 1, 0);
    expect_same(fast, ref, "stop " + std::to_string(stop));
  }
}

}  // namespace

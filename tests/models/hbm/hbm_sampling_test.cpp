// HbmController::sample_rates (one run per distinct unit sequence) against the interleaved
// calibration run (tests/support/hbm_sampling_oracle.h): every window field equal, for contiguous
// and strided streams, reads and writes, HBM2 and HBM3, refresh on and off, aligned and odd
// start addresses, overlapping rows, a stream too short to sample and one that keeps one bank busy.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_controller.h"
#include "tests/support/hbm_sampling_oracle.h"

namespace {

using photon::HbmRateProbe;
using photon::HbmStream;

void expect_counters_eq(const photon::HbmCounters& a, const photon::HbmCounters& b, const std::string& what) {
  EXPECT_EQ(a.reads, b.reads) << what;
  EXPECT_EQ(a.writes, b.writes) << what;
  EXPECT_EQ(a.read_cmds, b.read_cmds) << what;
  EXPECT_EQ(a.write_cmds, b.write_cmds) << what;
  EXPECT_EQ(a.activates, b.activates) << what;
  EXPECT_EQ(a.precharges, b.precharges) << what;
  EXPECT_EQ(a.refreshes, b.refreshes) << what;
  EXPECT_EQ(a.row_hits, b.row_hits) << what;
  EXPECT_EQ(a.reads_done, b.reads_done) << what;
  EXPECT_EQ(a.total_read_latency, b.total_read_latency) << what;
  EXPECT_EQ(a.last_done, b.last_done) << what;
}

/// sample_rates equals the oracle; returns the number of units with a closed window.
size_t expect_same_windows(const photon::HbmConfig& cfg, const HbmStream& s, bool is_write) {
  const std::vector<HbmRateProbe> want = photon::test::interleaved_sample_rates(cfg, s, is_write);
  const std::vector<HbmRateProbe> got = photon::HbmController(cfg).sample_rates(s, is_write);
  const std::string what = "addr " + std::to_string(s.addr) + " row_bytes " + std::to_string(s.row_bytes) +
                           " rows " + std::to_string(s.rows) + " stride " + std::to_string(s.stride) +
                           (is_write ? " write" : " read");
  EXPECT_EQ(got.size(), want.size()) << what;
  size_t closed = 0;
  for (size_t u = 0; u < got.size() && u < want.size(); ++u) {
    const std::string w = what + " unit " + std::to_string(u);
    EXPECT_EQ(got[u].state, want[u].state) << w;
    EXPECT_EQ(got[u].start_ref, want[u].start_ref) << w;
    EXPECT_EQ(got[u].cycle, want[u].cycle) << w;
    EXPECT_EQ(got[u].end_cycle, want[u].end_cycle) << w;
    EXPECT_EQ(got[u].accesses, want[u].accesses) << w;
    expect_counters_eq(got[u].ctr, want[u].ctr, w + " ctr");
    expect_counters_eq(got[u].end_ctr, want[u].end_ctr, w + " end_ctr");
    closed += want[u].state == HbmRateProbe::kClosed;
  }
  return closed;
}

photon::HbmConfig preset(const char* name, bool refresh = true) {
  photon::HbmConfig cfg;
  cfg.apply_preset(name);
  cfg.refresh_enabled = refresh;
  return cfg;
}

TEST(HbmSampling, ContiguousStreamsEqualTheInterleavedRun) {
  for (const char* p : {"hbm2", "hbm3"}) {
    const photon::HbmConfig cfg = preset(p);
    for (const uint64_t addr : {uint64_t(0), uint64_t(0x12345 * 32), uint64_t(3) << 20}) {
      for (const bool w : {false, true}) {
        const size_t closed = expect_same_windows(cfg, HbmStream{addr, 24u << 20, 1, 0}, w);
        EXPECT_EQ(closed, size_t(cfg.units())) << p;
      }
    }
  }
}

TEST(HbmSampling, StridedStreamsEqualTheInterleavedRun) {
  const photon::HbmConfig cfg = preset("hbm2");
  // Weight tiles (row shorter than its stride), rows crossing channels at an odd offset,
  // overlapping rows (stride shorter than a row: repeated addresses merge and are replaced).
  const HbmStream streams[] = {
      {0x100000, 2048, 4000, 8192},
      {0x100000 + 96, 1504, 5000, 12288},
      {0x40000, 4096, 3000, 2048},
      {0x2000000, 640, 9000, 1024},
  };
  for (const HbmStream& s : streams)
    for (const bool w : {false, true}) EXPECT_GT(expect_same_windows(cfg, s, w), 0u);
}

TEST(HbmSampling, WithoutRefreshEqualsTheInterleavedRun) {
  for (const char* p : {"hbm2", "hbm3"}) {
    const photon::HbmConfig cfg = preset(p, false);
    expect_same_windows(cfg, HbmStream{0x4321 * 32, 12u << 20, 1, 0}, false);
    expect_same_windows(cfg, HbmStream{0x100000, 2048, 4000, 8192}, true);
  }
}

TEST(HbmSampling, ShortStreamsGiveNoWindowsOneBankStreamsOne) {
  const photon::HbmConfig cfg = preset("hbm2");
  // Too short for the warm-up, the windows and the tail.
  EXPECT_TRUE(photon::HbmController(cfg).sample_rates(HbmStream{0, 1u << 20, 1, 0}, false).empty());
  EXPECT_EQ(expect_same_windows(cfg, HbmStream{0, 1u << 20, 1, 0}, false), 0u);
  // Every row in one bank of one channel: that unit alone has work and a window.
  EXPECT_EQ(expect_same_windows(cfg, HbmStream{0, 32, 30000, 1u << 20}, false), 1u);
}

}  // namespace

// Loaded behaviour against closed forms: streaming bandwidth vs peak x (1 - tRFC/tREFI),
// tFAW-limited random reads, refresh counts; trace parse errors.
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_trace.h"

namespace {

photon::HbmConfig preset(const char* name) {
  photon::HbmConfig c;
  c.apply_preset(name);
  return c;
}

// One sequential 32 MiB read: every channel streams whole rows, bank after bank. Peak is one
// column access per burst cycles per channel; all-bank refresh removes tRFC of every tREFI.
class StreamingBandwidth : public ::testing::TestWithParam<const char*> {};

TEST_P(StreamingBandwidth, NearPeakTimesRefreshAvailability) {
  const auto cfg = preset(GetParam());
  photon::HbmController hbm(cfg);
  const uint64_t bytes = uint64_t(32) << 20;
  const uint64_t done = hbm.access(0, bytes, false, 0);
  const double gbps = double(bytes) / (double(done) * cfg.tck_ns);
  const double expected = cfg.peak_bandwidth_gbps() * (1.0 - double(cfg.tRFC) / cfg.tREFI);
  EXPECT_NEAR(gbps, expected, 0.03 * expected) << "peak " << cfg.peak_bandwidth_gbps();
  EXPECT_GT(double(hbm.counters().row_hits) / double(hbm.counters().read_cmds), 0.95);
}

INSTANTIATE_TEST_SUITE_P(Presets, StreamingBandwidth, ::testing::Values("hbm2", "hbm3"));

// Random 64-byte reads, each to a new row, on one channel without refresh: every read needs an
// ACT, and at most 4 ACTs fit in any tFAW window, so the sustained rate is 4 / tFAW reads per
// tCK: bandwidth = 4 * 64 B / (tFAW * tCK).
TEST(HbmLoad, RandomReadsLimitedByFourActivateWindow) {
  auto cfg = preset("hbm2");
  cfg.channels = 1;
  cfg.refresh_enabled = false;
  std::mt19937_64 rng(7);
  std::ostringstream tr;
  const int n = 6000;
  uint64_t prev_row_bank = ~uint64_t(0);
  for (int i = 0; i < n; ++i) {
    uint64_t a;
    do a = (rng() % cfg.capacity_bytes()) & ~uint64_t(63);
    while ((a >> 11) == prev_row_bank);  // never two in a row to the same (row, bank)
    prev_row_bank = a >> 11;
    tr << "0x" << std::hex << a << std::dec << " READ 0\n";
  }
  std::istringstream in(tr.str());
  const auto r = photon::run_hbm_trace(cfg, in, "random");
  const double expected = 4.0 * 64.0 / (cfg.tFAW * cfg.tck_ns);
  EXPECT_NEAR(r.at("bandwidth_gbps").get<double>(), expected, 0.03 * expected);
  EXPECT_NEAR(r.at("activates").get<double>(), n, 0.01 * n);
}

// An idle device refreshes every tREFI: floor(duration / tREFI) REF per (pseudo-)channel.
TEST(HbmLoad, IdleRefreshCount) {
  for (const char* p : {"hbm2", "hbm3"}) {
    const auto cfg = preset(p);
    photon::HbmController hbm(cfg);
    const uint64_t duration = 1000003;
    for (uint32_t u = 0; u < hbm.units(); ++u) hbm.unit(u).advance_to(duration + 1);
    EXPECT_EQ(hbm.counters().refreshes, uint64_t(duration / cfg.tREFI) * cfg.units()) << p;
    EXPECT_DOUBLE_EQ(hbm.energy_pj(), double(hbm.counters().refreshes) * cfg.refresh_energy_pj);
  }
}

// Under streaming load the refresh is delayed only by the precharges it needs: still one per
// tREFI per channel (within one per channel at the end of the run).
TEST(HbmLoad, RefreshCountUnderLoad) {
  const auto cfg = preset("hbm2");
  photon::HbmController hbm(cfg);
  const uint64_t done = hbm.access(0, uint64_t(16) << 20, false, 0);
  for (uint32_t u = 0; u < hbm.units(); ++u) hbm.unit(u).advance_to(done + 1);
  const double expected = double(done / cfg.tREFI) * cfg.units();
  EXPECT_NEAR(double(hbm.counters().refreshes), expected, cfg.units());
}

std::string parse_error(const std::string& text) {
  std::istringstream in(text);
  try {
    photon::run_hbm_trace(preset("hbm2"), in, "t.trace");
  } catch (const photon::Error& e) { return e.what(); }
  return "";
}

TEST(HbmTrace, ParseErrorsNameFileLineAndProblem) {
  EXPECT_EQ(parse_error("0x40 READ 0\n0xZZ READ 1\n"),
            "t.trace:2: bad address '0xZZ' (expected hexadecimal)");
  EXPECT_EQ(parse_error("0x40 FETCH 0\n"), "t.trace:1: bad command 'FETCH' (expected READ or WRITE)");
  EXPECT_EQ(parse_error("0x40 READ 5\n\n0x80 READ 4\n"), "t.trace:3: non-monotonic cycle 4 after 5");
  EXPECT_EQ(parse_error("0x40 READ\n"), "t.trace:1: missing cycle");
  EXPECT_EQ(parse_error("0x40\n"), "t.trace:1: missing command (expected READ or WRITE)");
  EXPECT_EQ(parse_error("0x40 READ 1x\n"), "t.trace:1: bad cycle '1x' (expected a decimal count)");
  EXPECT_EQ(parse_error("0x40 READ 1 extra\n"), "t.trace:1: unexpected 'extra' after the cycle");
  EXPECT_EQ(parse_error("# comment\n0x40 WRITE 0\n"), "");
  EXPECT_THROW(photon::run_hbm_trace(preset("hbm2"), "/nonexistent/x.trace"), photon::Error);
}

TEST(HbmTrace, SmallTraceReport) {
  // Two reads to one row, 100 cycles apart, then a write: closed-bank miss, then hits.
  const auto cfg = preset("hbm2");
  std::istringstream in("0x0 READ 0\n0x40 READ 100\n0x80 WRITE 200\n");
  const auto r = photon::run_hbm_trace(cfg, in, "small");
  const uint64_t miss = 1 + cfg.tRCD + cfg.CL + cfg.burst_cycles(), hit = 1 + cfg.CL + cfg.burst_cycles();
  EXPECT_EQ(r.at("requests").get<int>(), 3);
  EXPECT_EQ(r.at("reads").get<int>(), 2);
  EXPECT_EQ(r.at("writes").get<int>(), 1);
  EXPECT_DOUBLE_EQ(r.at("avg_read_latency_ns").get<double>(), (miss + hit) / 2.0 * cfg.tck_ns);
  EXPECT_EQ(r.at("completion_cycle").get<uint64_t>(), 201u);  // posted write: 200 + 1
  EXPECT_EQ(r.at("activates").get<int>(), 1);
  // The posted write is drained at the end of the trace: a WR to the open row, a second hit.
  EXPECT_EQ(r.at("write_cmds").get<int>(), 1);
  EXPECT_DOUBLE_EQ(r.at("row_hit_rate").get<double>(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.at("bandwidth_gbps").get<double>(), 3 * 64.0 / (201 * cfg.tck_ns));
}

}  // namespace

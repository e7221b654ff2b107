// Fast-forward of large bulk accesses (hbm.fast_forward_bytes) against the exact path
// (fast_forward_bytes = 0) as the oracle: completion cycle, activates, row hits, column commands
// and bytes within 2 %, refreshes within one per unit.
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_trace.h"

namespace {

photon::HbmConfig preset(const char* name) {
  photon::HbmConfig c;
  c.apply_preset(name);
  return c;
}

struct Access {
  uint64_t addr, bytes;
  bool is_write;
  uint64_t arrival;
  uint64_t rows = 1, stride = 0;  ///< 2-D stream: `rows` rows of `bytes` bytes, `stride` apart
};

struct Result {
  uint64_t done = 0;
  photon::HbmCounters c;
  uint64_t ff = 0, reuses = 0;
};

Result run(photon::HbmConfig cfg, const std::vector<Access>& acc, bool fast) {
  cfg.fast_forward_bytes = fast ? (uint64_t(1) << 16) : 0;
  photon::HbmController hbm(cfg);
  Result r;
  for (const auto& a : acc)
    r.done = hbm.access(photon::HbmStream{a.addr, a.bytes, a.rows, a.stride}, a.is_write, a.arrival);
  r.c = hbm.counters();
  r.ff = hbm.fast_forwarded_accesses();
  r.reuses = hbm.fast_forward_reuses();
  return r;
}

void expect_close(const char* what, double fast, double exact, double rel) {
  EXPECT_NEAR(fast, exact, rel * exact) << what << ": fast " << fast << " exact " << exact;
}

// Runs both paths and compares; `min_ff_share`: fraction of column accesses that must have been
// fast-forwarded (the fast path must really be taken).
// `latency_rel`: tolerance of the mean read latency (queueing time inside a bulk access).
void compare(const photon::HbmConfig& cfg, const std::vector<Access>& acc, double min_ff_share,
             double latency_rel = 0.02, double activates_rel = 0.02) {
  const Result ex = run(cfg, acc, false);
  const Result ff = run(cfg, acc, true);
  EXPECT_EQ(ex.ff, 0u);
  uint64_t cols = 0;
  for (const auto& a : acc) cols += a.rows * a.bytes / cfg.access_bytes();
  EXPECT_GE(double(ff.ff), min_ff_share * double(cols));
  const uint64_t t0 = acc.front().arrival;
  expect_close("duration", double(ff.done - t0), double(ex.done - t0), 0.02);
  expect_close("activates", double(ff.c.activates), double(ex.c.activates), activates_rel);
  expect_close("row hits", double(ff.c.row_hits), double(ex.c.row_hits), 0.02);
  expect_close("column commands", double(ff.c.read_cmds + ff.c.write_cmds),
               double(ex.c.read_cmds + ex.c.write_cmds), 0.02);
  EXPECT_EQ(ff.c.reads, ex.c.reads);  // bytes: every column access of the bursts is counted
  EXPECT_EQ(ff.c.writes, ex.c.writes);
  EXPECT_NEAR(double(ff.c.refreshes), double(ex.c.refreshes), double(cfg.units()));
  if (ex.c.reads_done > 0)
    expect_close("mean read latency", double(ff.c.total_read_latency) / double(ff.c.reads_done),
                 double(ex.c.total_read_latency) / double(ex.c.reads_done), latency_rel);
}

const uint64_t kMiB = uint64_t(1) << 20;

// hbm2: the exact prefix (warm-up, then 4 refresh intervals per channel) is about 5 MiB.
TEST(HbmFastForward, StreamingRead16MiB) { compare(preset("hbm2"), {{0, 16 * kMiB, false, 0}}, 0.5); }

TEST(HbmFastForward, StreamingRead64MiB) { compare(preset("hbm2"), {{0, 64 * kMiB, false, 100}}, 0.9); }

TEST(HbmFastForward, StreamingWrite16MiB) { compare(preset("hbm2"), {{0, 16 * kMiB, true, 0}}, 0.5); }

TEST(HbmFastForward, StreamingWrite64MiB) { compare(preset("hbm2"), {{64 * kMiB, 64 * kMiB, true, 0}}, 0.9); }

// hbm3 (32 pseudo-channels, bank group in the lowest bits): the read latency inside the burst
// converges slowly and is only matched within 15 %, activates within 2.5 %.
TEST(HbmFastForward, StreamingReadHbm3) {
  compare(preset("hbm3"), {{0, 64 * kMiB, false, 0}}, 0.75, 0.15, 0.025);
}

// Channel field on top: a contiguous burst stays in one channel and sweeps its banks (every
// row change is a new bank), the other channels idle.
TEST(HbmFastForward, OneChannelBankSweep) {
  auto cfg = preset("hbm2");
  cfg.address_mapping = "chrorabgbaco";
  compare(cfg, {{0, 4 * kMiB, false, 0}}, 0.5);
}

// Strided bursts: 8 MiB reads every 24 MiB, each offered while the previous one still runs.
TEST(HbmFastForward, StridedBursts) {
  std::vector<Access> acc;
  for (uint64_t i = 0; i < 4; ++i) acc.push_back({i * 24 * kMiB, 8 * kMiB, false, i * 4096});
  compare(preset("hbm2"), acc, 0.4);
}

// Every burst of a shape reuses the rates sampled once for that shape (on a separate controller):
// no sampling window in the bursts themselves, so bursts far below the exact prefix are
// fast-forwarded too, with the exact path's results.
TEST(HbmFastForward, RatesReusedAcrossBursts) {
  std::vector<Access> acc{{0, 16 * kMiB, false, 0}};
  for (uint64_t i = 1; i < 6; ++i) acc.push_back({i * 32 * kMiB, 2 * kMiB, false, 0});
  acc.push_back({8 * 32 * kMiB, 16 * kMiB, true, 0});
  for (uint64_t i = 9; i < 12; ++i) acc.push_back({i * 32 * kMiB, 2 * kMiB, true, 0});
  compare(preset("hbm2"), acc, 0.5);
  const Result ff = run(preset("hbm2"), acc, true);
  EXPECT_EQ(ff.reuses, 10u);
  photon::HbmController hbm(preset("hbm2"));
  for (const auto& a : acc) hbm.access(a.addr, a.bytes, a.is_write, a.arrival);
  EXPECT_EQ(hbm.calibrations(), 2u);  // one per direction
}

// 2-D streams (weight tiles: rows of 2304 bytes in a 9216-byte-wide matrix; key loads: 30 rows
// of 2 MiB every 3 MiB), each shape offered twice: the second reuses the sampled rates.
TEST(HbmFastForward, StridedStreams) {
  compare(preset("hbm2"), {{0, 2304, false, 0, 8192, 9216}, {128 * kMiB, 2304, false, 0, 1536, 9216}}, 0.3);
  // Short rows at other phases reach units in other proportions than the calibration stream.
  compare(preset("hbm2"),
          {{6144, 2688, false, 0, 508, 44032},
           {64 * kMiB + 2048, 2688, false, 0, 508, 44032},
           {96 * kMiB + 10240, 2688, false, 0, 508, 44032}},
          0.5);
  compare(preset("hbm3"),
          {{0, 2 * kMiB, false, 0, 30, 3 * kMiB}, {128 * kMiB, 2 * kMiB, false, 0, 30, 3 * kMiB}}, 0.5, 0.15);
  // Rows that spread unevenly over the channels (3 KiB every 12 KiB on hbm2's 2 KiB channel
  // interleave) do not saturate every unit in calibration: they stay exact.
  compare(preset("hbm2"), {{0, 3072, false, 0, 764, 12288}, {64 * kMiB + 4096, 3072, false, 0, 193, 12288}},
          0.0);
}

// Streams too short to sample themselves (a DMA's 384 KiB activation copies and 1.7 MB weight
// tiles, one after another): each shape is sampled once on a separate controller, then every
// stream of that shape is fast-forwarded; totals match the exact path.
TEST(HbmFastForward, ShortStreamsCalibrated) {
  std::vector<Access> acc;
  uint64_t t = 0;
  for (uint64_t i = 0; i < 12; ++i, t += 20000) {
    acc.push_back({i * 4 * kMiB, 384 * 1024, false, t});
    acc.push_back({(64 + i * 4) * kMiB, 2304, false, t, 768, 9216});
    acc.push_back({(128 + i) * kMiB, 384 * 1024, true, t});
  }
  const auto cfg = preset("hbm2");
  compare(cfg, acc, 0.3, 0.1);
  photon::HbmConfig c = cfg;
  photon::HbmController hbm(c);
  for (const auto& a : acc)
    hbm.access(photon::HbmStream{a.addr, a.bytes, a.rows, a.stride}, a.is_write, a.arrival);
  EXPECT_EQ(hbm.calibrations(), 3u);
  EXPECT_EQ(hbm.fast_forward_reuses(), 36u);
}

// A large access after many small random ones (queues, open rows and refresh phase left by the
// small ones), then small ones again.
TEST(HbmFastForward, LargeAfterSmall) {
  const auto cfg = preset("hbm2");
  std::mt19937_64 rng(3);
  std::vector<Access> acc;
  uint64_t t = 0;
  for (int i = 0; i < 300; ++i, t += 20)
    acc.push_back({(rng() % (cfg.capacity_bytes() / 4096)) * 4096, 4096, i % 3 == 0, t});
  acc.push_back({512 * kMiB, 8 * kMiB, false, t});
  compare(cfg, acc, 0.35);
  acc.push_back({3 * kMiB, 4096, false, t + 100});
  const Result ex = run(cfg, acc, false), ff = run(cfg, acc, true);
  expect_close("small after large: completion", double(ff.done), double(ex.done), 0.02);
}

// Below the size limit (and with fast_forward_bytes = 0) the path is exact: bit-identical.
TEST(HbmFastForward, SmallAccessesAreExact) {
  const auto cfg = preset("hbm2");
  std::vector<Access> acc;
  // hbm2: 8 units x 32 columns x 64 B; streams below 3 x that (48 KiB) have no room for a
  // fast-forward between the exact head and tail.
  for (uint64_t i = 0; i < 64; ++i) acc.push_back({i * 65536, 32768, i % 2 == 1, i * 100});
  const Result ex = run(cfg, acc, false), ff = run(cfg, acc, true);
  EXPECT_EQ(ff.ff, 0u);
  EXPECT_EQ(ff.done, ex.done);
  EXPECT_EQ(ff.c.activates, ex.c.activates);
  EXPECT_EQ(ff.c.row_hits, ex.c.row_hits);
  EXPECT_EQ(ff.c.total_read_latency, ex.c.total_read_latency);
}

// The trace player issues column requests and never fast-forwards, whatever the key says.
TEST(HbmFastForward, TraceModeUnaffected) {
  auto cfg = preset("hbm2");
  std::ostringstream tr;
  for (int i = 0; i < 20000; ++i) tr << "0x" << std::hex << i * 64 << std::dec << " READ " << i << "\n";
  cfg.fast_forward_bytes = 0;
  std::istringstream in0(tr.str());
  const auto a = photon::run_hbm_trace(cfg, in0, "t");
  cfg.fast_forward_bytes = 1;
  std::istringstream in1(tr.str());
  const auto b = photon::run_hbm_trace(cfg, in1, "t");
  EXPECT_EQ(a.dump(), b.dump());
}

}  // namespace

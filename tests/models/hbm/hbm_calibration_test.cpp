// The calibration memo (models/hbm/hbm_calibration.h): with it on, simulations are exactly those
// without it; the second controller takes every calibration from the memo; the memo's JSON keeps
// every field.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_calibration.h"
#include "models/hbm/hbm_controller.h"

namespace {

struct Out {
  std::vector<uint64_t> done;
  photon::HbmCounters c;
  uint64_t calibrations = 0, reuses = 0;
};

// Short strided streams (calibrated, then reused) of two shapes and both directions, then a
// contiguous one, on HBM2 with refresh.
Out run() {
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm2");
  photon::HbmController hbm(cfg);
  Out o;
  uint64_t t = 0;
  for (int i = 0; i < 6; ++i) {
    const bool w = i % 2;
    const uint64_t stride = i < 4 ? 8192 : 12288;
    t = hbm.access(photon::HbmStream{0x100000 + uint64_t(i) * 0x400000, 2048, 64, stride}, w, t);
    o.done.push_back(t);
  }
  o.done.push_back(hbm.access(photon::HbmStream{0x8000000, 1 << 20, 1, 0}, false, t));
  o.c = hbm.counters();
  o.calibrations = hbm.calibrations();
  o.reuses = hbm.fast_forward_reuses();
  return o;
}

void expect_same(const Out& a, const Out& b) {
  EXPECT_EQ(a.done, b.done);
  EXPECT_EQ(a.c.reads, b.c.reads);
  EXPECT_EQ(a.c.writes, b.c.writes);
  EXPECT_EQ(a.c.read_cmds, b.c.read_cmds);
  EXPECT_EQ(a.c.write_cmds, b.c.write_cmds);
  EXPECT_EQ(a.c.activates, b.c.activates);
  EXPECT_EQ(a.c.precharges, b.c.precharges);
  EXPECT_EQ(a.c.refreshes, b.c.refreshes);
  EXPECT_EQ(a.c.row_hits, b.c.row_hits);
  EXPECT_EQ(a.c.total_read_latency, b.c.total_read_latency);
  EXPECT_EQ(a.calibrations, b.calibrations);
  EXPECT_EQ(a.reuses, b.reuses);
}

TEST(HbmCalibrationMemo, SimulationsAreTheSameWithTheMemo) {
  auto& memo = photon::HbmCalibrationMemo::instance();
  memo.enable(false);
  const Out plain = run();
  ASSERT_GT(plain.calibrations, 0u);
  memo.enable(true);
  const Out first = run();  // fills the memo
  const size_t entries = memo.size();
  EXPECT_EQ(entries, plain.calibrations);
  const Out second = run();  // takes every calibration from it
  EXPECT_EQ(memo.size(), entries);
  memo.enable(false);
  expect_same(plain, first);
  expect_same(plain, second);
}

TEST(HbmCalibrationMemo, JsonKeepsEveryEntry) {
  auto& memo = photon::HbmCalibrationMemo::instance();
  memo.enable(true);
  run();
  memo.enable(false);
  const nlohmann::json j = memo.to_json();
  photon::HbmCalibrationMemo copy;
  copy.merge(j);
  EXPECT_EQ(copy.size(), memo.size());
  EXPECT_EQ(copy.to_json(), j);
  EXPECT_EQ(memo.to_json(memo.size()).at("entries").size(), 0u);
  photon::HbmConfig a, b;
  b.tRCD += 1;
  EXPECT_NE(photon::HbmCalibrationMemo::key(a, false, 0, 0, 0),
            photon::HbmCalibrationMemo::key(b, false, 0, 0, 0));
  EXPECT_NE(photon::HbmCalibrationMemo::key(a, false, 0, 0, 0),
            photon::HbmCalibrationMemo::key(a, false, 64, 0, 0));
}

}  // namespace

// The calibration memo (models/hbm/hbm_calibration.h): with it on, simulations are exactly those
// without it; the second controller takes every calibration from the memo; the memo's JSON keeps
// every field.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_calibration.h"
#include "models/hbm/hbm_controller.h"
#include "tests/support/hbm_same_run.h"

namespace {

using Out = photon_test::HbmRunOutcome;
using photon_test::expect_same_run;

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
  photon_test::record_counters(hbm, o);
  return o;
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
  expect_same_run(plain, first);
  expect_same_run(plain, second);
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

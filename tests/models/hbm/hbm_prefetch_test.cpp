// Calibrations computed ahead (models/hbm/hbm_prefetch.h, HbmController::plan_calibrations): a
// controller with a plan, right or wrong, on any number of helper threads, simulates exactly what
// it simulates without one; a right plan foresees every calibration; the prefetch hands each
// planned calibration out once, computes on the caller what no helper started, and passes errors
// on.
#include <algorithm>
#include <atomic>
#include <thread>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_controller.h"
#include "models/hbm/hbm_prefetch.h"
#include "tests/support/hbm_same_run.h"

namespace {

using photon::HbmStream;

struct Out : photon_test::HbmRunOutcome {
  uint64_t planned = 0;
};

// Short strided streams (calibrated, then reused) of two shapes and both directions, then two
// contiguous ones, on HBM2 with refresh.
std::vector<std::pair<HbmStream, bool>> streams() {
  std::vector<std::pair<HbmStream, bool>> s;
  for (int i = 0; i < 6; ++i)
    s.push_back({HbmStream{0x100000 + uint64_t(i) * 0x400000, 2048, 64, i < 4 ? 8192u : 12288u}, i % 2 == 1});
  s.push_back({HbmStream{0x8000000, 1 << 20, 1, 0}, false});
  s.push_back({HbmStream{0x9000000, 1 << 20, 1, 0}, true});
  return s;
}

Out run(const std::vector<std::pair<HbmStream, bool>>* plan, unsigned threads) {
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm2");
  photon::HbmController hbm(cfg);
  if (plan) hbm.plan_calibrations(*plan, threads);
  Out o;
  uint64_t t = 0;
  for (const auto& [s, w] : streams()) {
    t = hbm.access(s, w, t);
    o.done.push_back(t);
  }
  photon_test::record_counters(hbm, o);
  o.planned = hbm.planned_calibrations();
  return o;
}

TEST(HbmCalibrationPrefetch, APlannedRunIsTheUnplannedRun) {
  const Out plain = run(nullptr, 0);
  ASSERT_EQ(plain.calibrations, 6u);  // two strided shapes and the contiguous one, both directions
  const auto plan = streams();
  for (unsigned threads : {1u, 2u, 4u}) {
    const Out planned = run(&plan, threads);
    photon_test::expect_same_run(plain, planned);
    EXPECT_EQ(planned.planned, plain.calibrations) << threads << " helper threads";
  }
  const Out none = run(&plan, 0);  // no helpers: no plan
  photon_test::expect_same_run(plain, none);
  EXPECT_EQ(none.planned, 0u);
}

TEST(HbmCalibrationPrefetch, AWrongPlanChangesNothing) {
  const Out plain = run(nullptr, 0);
  // The same shapes at other addresses (other calibrations), in reverse order, plus a shape that
  // never comes.
  auto plan = streams();
  for (auto& [s, w] : plan) s.addr += 0x40000;
  std::reverse(plan.begin(), plan.end());
  plan.push_back({HbmStream{0x200000, 1024, 128, 4096}, false});
  const Out wrong = run(&plan, 1);
  photon_test::expect_same_run(plain, wrong);
  EXPECT_EQ(wrong.planned, plain.calibrations + 1);
}

// A fake calibration whose windows name the job (the oracle), and one that fails.
std::vector<photon::HbmRateProbe> fake(const photon::HbmCalibrationJob& j, const std::atomic<bool>&) {
  if (j.addr == 666) throw std::runtime_error("calibration of 666 failed");
  photon::HbmRateProbe p;
  p.accesses = j.addr;
  p.cycle = j.rows;
  return {p};
}

TEST(HbmCalibrationPrefetch, EachPlannedCalibrationIsHandedOutOnce) {
  for (unsigned threads : {0u, 1u, 2u}) {
    std::vector<photon::HbmCalibrationJob> jobs;
    for (uint64_t a = 1; a <= 20; ++a) jobs.push_back({a % 2 == 0, a * 4096, 64, a, 0});
    jobs.push_back({false, 666, 64, 1, 0});
    jobs.push_back(jobs.front());  // planned twice: kept once
    photon::HbmCalibrationPrefetch pf(jobs, fake, threads);
    std::vector<photon::HbmRateProbe> out;
    // Out of order: the last ones first.
    for (uint64_t a = 20; a >= 1; --a) {
      ASSERT_TRUE(pf.take({a % 2 == 0, a * 4096, 64, a, 0}, out)) << a;
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].accesses, a * 4096);
      EXPECT_EQ(out[0].cycle, a);
    }
    EXPECT_FALSE(pf.take({true, 2 * 4096, 64, 2, 0}, out));   // taken before
    EXPECT_FALSE(pf.take({false, 2 * 4096, 64, 2, 0}, out));  // not planned (other direction)
    EXPECT_FALSE(pf.take({false, 4096, 64, 1, 8}, out));      // not planned (other stride)
    try {
      pf.take({false, 666, 64, 1, 0}, out);
      ADD_FAILURE() << "the failed calibration's error did not reach the taker";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "calibration of 666 failed");
    }
    EXPECT_EQ(pf.taken(), 21u);
    if (threads == 0) {
      EXPECT_EQ(pf.taken_from_helpers(), 0u);
    }
  }
}

// Destroying the prefetch cancels the calibrations in progress: a calibration that only ends when
// cancelled (it would never end otherwise) does not keep the destructor waiting.
TEST(HbmCalibrationPrefetch, DestructionCancelsTheCalibrationsInProgress) {
  std::atomic<int> started{0};
  auto endless = [&](const photon::HbmCalibrationJob&, const std::atomic<bool>& cancel) {
    ++started;
    while (!cancel.load()) std::this_thread::yield();
    return std::vector<photon::HbmRateProbe>{};
  };
  {
    photon::HbmCalibrationPrefetch pf({{false, 4096, 64, 1, 0}, {false, 8192, 64, 1, 0}}, endless, 2);
    ASSERT_EQ(pf.helpers(), 2u);
    while (started.load() < 2) std::this_thread::yield();
  }
  EXPECT_EQ(started.load(), 2);
}

}  // namespace

// What a run of an HbmController produced (completion cycles, counters, calibrations, reuses of
// sampled rates) and the check that two runs produced the same: the oracle of the tests that a
// speed-up (the calibration memo, the calibration prefetch) changes no result.
#pragma once

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "models/hbm/hbm_controller.h"

namespace photon_test {

struct HbmRunOutcome {
  std::vector<uint64_t> done;  ///< completion cycle of each access, in order
  photon::HbmCounters c;
  uint64_t calibrations = 0, reuses = 0;
};

/// Records `hbm`'s counters, calibrations and reuses into `o` (after its last access).
inline void record_counters(const photon::HbmController& hbm, HbmRunOutcome& o) {
  o.c = hbm.counters();
  o.calibrations = hbm.calibrations();
  o.reuses = hbm.fast_forward_reuses();
}

inline void expect_same_run(const HbmRunOutcome& a, const HbmRunOutcome& b) {
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

}  // namespace photon_test

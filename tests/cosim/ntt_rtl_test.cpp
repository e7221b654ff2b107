// The verilated NTT cores (cosim/ntt/rtl) against the pure C++ NTT (models/ntt NttTables) and the
// TLM model's cycle formula (NttEngine::busy_cycles): random residues, N = 2^4 .. 2^16, 20- to
// 62-bit moduli on the 64-bit datapath and 20- to 36-bit on the 36-bit one, both directions,
// 1..5 limbs, random gaps on the in and tw streams and random back-pressure on out;
// inverse(forward(x)) == x; and the protocol checker and the transactor's errors on deliberately
// broken stimulus.
#include <gtest/gtest.h>

#include "tests/cosim/ntt_rtl_harness.h"

namespace photon_cosim_test {
namespace {

// 4 lanes, 64-bit words, 2 limbs interleaved: the smallest N (2^4), every group shape, full rate.
TEST(NttRtl, Lanes4MatchesNttTablesAndTlmCyclesAtFullRate) {
  const NttRtlParams p = variant(4, 64);
  std::vector<Case> cases;
  uint32_t bits[] = {20, 36, 50, 62};
  int k = 0;
  for (uint32_t log_n : {4u, 5u, 8u, 10u})
    for (uint32_t limbs : {1u, 2u, 3u, 5u})
      for (bool inv : {false, true}) {
        Case c;
        c.log_n = log_n;
        c.limbs = limbs;
        c.inverse = inv;
        c.bits = bits[k++ % 4];
        c.idle_before = (k % 3 == 0) ? 0 : 7;  // back to back, or with the clock stopped between
        cases.push_back(c);
      }
  EXPECT_EQ(run_cases(p, cases, 1), "");
}

// Random gaps on both input streams and random back-pressure on the output.
TEST(NttRtl, Lanes4StallsChangeTimingNotResults) {
  const NttRtlParams p = variant(4, 64);
  std::vector<Case> cases;
  for (uint32_t log_n : {6u, 9u, 12u})
    for (bool inv : {false, true}) {
      Case c;
      c.log_n = log_n;
      c.limbs = 3;
      c.inverse = inv;
      c.bits = log_n == 12 ? 62 : 31;
      c.in_gap = 0.3;
      c.tw_gap = 0.3;
      c.out_stall = 0.4;
      cases.push_back(c);
    }
  EXPECT_EQ(run_cases(p, cases, 2), "");
}

// inverse(forward(x)) == x, including the largest N the core holds (2^16, full rate).
TEST(NttRtl, Lanes4InverseOfForwardIsIdentity) {
  const NttRtlParams p = variant(4, 64);
  Case a;
  a.log_n = 11;
  a.limbs = 3;
  a.bits = 45;
  a.roundtrip = true;
  a.out_stall = 0.2;
  Case b;
  b.log_n = 16;
  b.limbs = 1;
  b.bits = 60;
  b.roundtrip = true;
  EXPECT_EQ(run_cases(p, {a, b}, 3), "");
}

// 8 lanes, a 36-bit datapath (SHARP's word), no interleave: moduli up to the full width.
TEST(NttRtl, Lanes8Width36) {
  const NttRtlParams p = variant(8, 36);
  std::vector<Case> cases;
  for (uint32_t log_n : {5u, 9u, 14u})
    for (bool inv : {false, true}) {
      Case c;
      c.log_n = log_n;
      c.inverse = inv;
      c.limbs = log_n == 14 ? 1 : 3;
      c.bits = inv ? 36 : 24;
      cases.push_back(c);
    }
  Case s;
  s.log_n = 10;
  s.limbs = 2;
  s.bits = 36;
  s.in_gap = 0.25;
  s.tw_gap = 0.5;
  s.out_stall = 0.3;
  s.roundtrip = true;
  cases.push_back(s);
  EXPECT_EQ(run_cases(p, cases, 4), "");
}

// configs/default.yaml's NTT unit: 64 lanes, 64-bit, pipeline depth 20, 2 limbs interleaved.
TEST(NttRtl, Lanes64DefaultUnit) {
  const NttRtlParams p = variant(64, 64);
  std::vector<Case> cases;
  for (uint32_t log_n : {8u, 10u, 13u})
    for (bool inv : {false, true}) {
      Case c;
      c.log_n = log_n;
      c.inverse = inv;
      c.limbs = log_n == 13 ? 2 : 3;
      c.bits = 58;
      cases.push_back(c);
    }
  Case big;
  big.log_n = 16;
  big.limbs = 1;
  big.bits = 62;
  cases.push_back(big);
  Case s;
  s.log_n = 11;
  s.limbs = 2;
  s.bits = 50;
  s.in_gap = 0.3;
  s.tw_gap = 0.3;
  s.out_stall = 0.3;
  s.inverse = true;
  cases.push_back(s);
  EXPECT_EQ(run_cases(p, cases, 5), "");
}

// ---- broken stimulus: the checker and the transactor report it, naming time and job ---------

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(NttRtlChecker, DataChangedWhileValidAndNotReadyIsInUnstable) {
  NttRtlStimulus s;
  s.corrupt_held_in_beat = true;  // the first in beat waits (the core loads the first twiddles)
  Case c;
  c.log_n = 6;
  const std::string r = run_cases(variant(4, 64), {c}, 6, s);
  EXPECT_TRUE(has(r, "error: ntt core (rtl) at ")) << r;
  EXPECT_TRUE(has(r, "case 0 (log_n 6, 1 limbs, forward)")) << r;
  EXPECT_TRUE(has(r, "protocol violation IN_UNSTABLE")) << r;
}

TEST(NttRtlChecker, StartWhileBusyIsStartBusy) {
  NttRtlStimulus s;
  s.restart_while_busy = true;
  Case c;
  c.log_n = 6;
  const std::string r = run_cases(variant(4, 64), {c}, 7, s);
  EXPECT_TRUE(has(r, "protocol violation START_BUSY")) << r;
}

TEST(NttRtlChecker, WrongMontgomeryConstantIsBadConst) {
  NttRtlStimulus s;
  s.corrupt_q_inv = true;
  Case c;
  c.log_n = 6;
  const std::string r = run_cases(variant(4, 64), {c}, 8, s);
  EXPECT_TRUE(has(r, "protocol violation BAD_CONST")) << r;
}

TEST(NttRtlChecker, CoreThatNeverFinishesIsAWatchdogErrorNotAHang) {
  Case c;
  c.log_n = 6;
  c.out_stall = 1.0;  // out_ready never high
  const std::string r = run_cases(variant(4, 64), {c}, 9);
  EXPECT_TRUE(has(r, "no done within " + std::to_string(variant(4, 64).watchdog_cycles(6, 1)) + " cycles"))
      << r;
}

TEST(NttRtlChecker, NBelowTheCoreIsACoreErrorAndTheNextJobRuns) {
  Case small;
  small.log_n = 3;  // 4 lanes need N >= 16
  Case ok;
  ok.log_n = 5;
  ok.limbs = 2;
  const std::string r = run_cases(variant(4, 64), {small, ok}, 10);
  EXPECT_TRUE(has(r, "core error BAD_LOG_N")) << r;
  // The core is reset after the error; the next case matches (no further report line).
  EXPECT_EQ(std::count(r.begin(), r.end(), '\n'), 1) << r;
}

}  // namespace
}  // namespace photon_cosim_test

// libsystemc references sc_main; GoogleTest's main() drives this binary.
int sc_main(int, char**) { return 0; }

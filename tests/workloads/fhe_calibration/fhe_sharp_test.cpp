// configs/sharp_like.yaml on the whole platform against Homulator's measured cycles of a
// SHARP-like machine (shared/reference/fhe_homulator/README.md). Homulator's `level` counts Q
// limbs (its KeySwitch uses Beta = ceil(Level / Alpha) over limbs 0..Level-1,
// dnum = ceil(MaxLevel / Alpha)), so its point "35 / 35 / 12, dnum 3" is our L = l = 34 (35 limbs)
// and "24 / 24 / 6, dnum 4" is L = l = 23.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "tests/workloads/fhe_calibration/fhe_platform_run.h"
#include "workloads/fhe/fhe_lowering.h"

namespace photon::fhe {
namespace {

/// Cycles between the last op's last command and the run's end: the firmware takes the last DONE
/// interrupt and retires END (110 cycles at the HMult point; bounded by a few MMIO round trips).
constexpr double kEndSlackCycles = 200;

RunConfig sharp() { return load_run_config(std::string(PHOTON_SOURCE_DIR) + "/configs/sharp_like.yaml", {}); }

PlatformFheRun run_op(const char* op, uint32_t L, uint32_t alpha, const RunConfig& cfg) {
  return run_on_platform(make_single_op_program(op, 16, L, L, alpha, cfg), cfg);
}

struct Ref {
  const char* op;
  uint32_t limbs, alpha, dnum;
  double cycles;
};

TEST(SharpLike, HMultAndHRotWithin25PercentOfHomulator) {
  const RunConfig cfg = sharp();
  const Ref refs[] = {{"hmult", 35, 12, 3, 189451},
                      {"hrot", 35, 12, 3, 187663},
                      {"hmult", 24, 6, 4, 94418},
                      {"hrot", 24, 6, 4, 88841}};
  for (const Ref& r : refs) {
    const uint32_t L = r.limbs - 1;
    ASSERT_EQ((L + r.alpha) / r.alpha, r.dnum);
    const PlatformFheRun e = run_op(r.op, L, r.alpha, cfg);
    const double ratio = e.cycles / r.cycles;
    EXPECT_GT(ratio, 0.75) << r.op << " " << r.limbs << "/" << r.alpha << ": " << e.cycles;
    EXPECT_LT(ratio, 1.25) << r.op << " " << r.limbs << "/" << r.alpha << ": " << e.cycles;
    // The mechanism: NTT and BConv busy time dominate; keys are on chip, so no HBM time.
    const double ntt = e.busy("ntt"), bconv = e.busy("bconv");
    EXPECT_GT(std::max(ntt, bconv), 0.75 * e.cycles) << r.op;
    EXPECT_GT(ntt + bconv, 1.3 * e.cycles) << r.op << ": NTT and BConv overlap";
    EXPECT_LT(e.hbm_busy_cycles, 0.01 * e.cycles) << r.op;
  }
}

TEST(SharpLike, HMultBreakdownAt35LimbsMatchesHomulatorShape) {
  // Homulator: BConv ~141 k, NTT ~136 k busy cycles per cluster for HMult 35/35/12.
  const RunConfig cfg = sharp();
  const PlatformFheRun e = run_op("hmult", 34, 12, cfg);
  EXPECT_NEAR(e.busy("bconv"), 141000, 0.1 * 141000);
  EXPECT_NEAR(e.busy("ntt"), 136000, 0.15 * 136000);
  EXPECT_GT(e.busy("bconv"), e.busy("ntt"));
  // Op table: setup, Mul (tensor), Relinearize; the key switch ends the program (the firmware's
  // END handling follows it).
  ASSERT_EQ(e.op_cycles.size(), 3u);
  EXPECT_LE(e.op_cycles[2].second, e.cycles);
  EXPECT_GT(e.op_cycles[2].second, e.cycles - kEndSlackCycles);
  EXPECT_LE(e.op_cycles[1].second, e.op_cycles[2].second);
  EXPECT_LT(e.op_cycles[1].second - e.op_cycles[1].first, 4 * (35 * 65536 / 1024 + 4) + 1);
  // Energy: every butterfly, MAC and element-wise op once, at the configured pJ.
  const auto& k = e.ntt_counters;
  const double want = k.at("butterflies") * cfg.ntt.butterfly_energy_pj +
                      k.at("bconv_macs") * (cfg.ntt.modmul_energy_pj + cfg.ntt.modadd_energy_pj) +
                      k.at("modmuls") * cfg.ntt.modmul_energy_pj + k.at("modadds") * cfg.ntt.modadd_energy_pj;
  EXPECT_GT(e.ntt_energy_pj, want);  // plus the BConv prescale multiplies
  EXPECT_LT(e.ntt_energy_pj, want + 48.0 * 65536 * 6 * cfg.ntt.modmul_energy_pj);
}

TEST(SharpLike, ElementWiseOpsAreOneStreamingPassPerPolynomial) {
  // PAdd: K*N adds, HAdd and PMult: 2*K*N, on 1024 lanes plus the pipeline fill (closed form).
  const RunConfig cfg = sharp();
  const uint64_t K = 35, N = 65536, pass = K * N / cfg.ntt.modmul_lanes + cfg.ntt.ewe_latency_cycles;
  EXPECT_EQ(run_op("padd", 34, 12, cfg).busy("ewe"), pass);
  EXPECT_EQ(run_op("hadd", 34, 12, cfg).busy("ewe"), 2 * pass);
  EXPECT_EQ(run_op("pmult", 34, 12, cfg).busy("ewe"), 2 * pass);
  // Homulator measures 6,736 (PAdd) and 8,976 (HAdd) cycles including its fixed operand-staging
  // time; ours are the pure streaming passes plus the program's set-up, below those.
  const double padd = run_op("padd", 34, 12, cfg).cycles;
  EXPECT_LT(padd, 6736u);
  EXPECT_GT(padd, 6736u / 4);
}

TEST(SharpLike, KeysStreamedFromHbmOverlapTheModUp) {
  RunConfig cfg = sharp();
  const PlatformFheRun warm = run_op("hrot", 34, 12, cfg);
  cfg.fhe.keys_on_chip = false;
  const PlatformFheRun cold = run_op("hrot", 34, 12, cfg);
  const double key_bytes = 2.0 * 3 * 47 * 65536 * 8;  // 147.8 MB: 2 dnum (L+1+alpha) N 8
  EXPECT_NEAR(cold.hbm_bytes - warm.hbm_bytes, key_bytes, 0.001 * key_bytes);
  // The stream takes at least the key's bytes at the HBM's peak rate (1024 B/cycle), and the
  // program cannot end before its key has arrived.
  EXPECT_GE(cold.dma_busy_cycles, key_bytes / 1024);
  EXPECT_LT(cold.dma_busy_cycles, cold.cycles);
  // The inner product waits for the key, the ModUp before it does not.
  EXPECT_GT(cold.cycles, warm.cycles);
  EXPECT_LT(cold.cycles, warm.cycles + cold.dma_busy_cycles);
}

}  // namespace
}  // namespace photon::fhe

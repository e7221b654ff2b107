// Timing/energy model of a known job, computed by hand from the README formulas.
#include <gtest/gtest.h>

#include "models/optical_gemm/optical_gemm_engine.h"
#include "models/optical_gemm/optical_gemm_timing.h"
#include "tests/models/optical_gemm/gemm_test_util.h"

namespace photon {
namespace {

OpticalGemmConfig job_config() {
  OpticalGemmConfig c;
  c.rows = 16;
  c.cols = 8;
  c.wavelengths = 4;
  c.modulation_ghz = 5.0;
  c.clock_ghz = 1.5;
  c.conversion_latency_ns = 1.0;
  c.pipeline_depth = 4;
  c.weight_program_ns = 10.0;
  c.modulation_energy_pj = 1.0;
  c.dac_energy_pj = 0.5;
  c.adc_energy_pj = 1.0;
  c.laser_power_mw = 100.0;
  c.weight_program_energy_pj = 10.0;
  return c;
}

pcs::Gemm job() {
  pcs::Gemm g;
  g.m = 10;
  g.n = 40;
  g.k = 20;
  g.lda = 20;
  g.ldb = 40;
  g.ldc = 40;
  return g;
}

// m=10, n=40, k=20 on a 16 x 8 array with 4 wavelengths:
// k_tiles = ceil(20/8) = 3, n_tiles = ceil(40/16) = 3, tiles = 9, symbols/tile = ceil(10/4) = 3.
// tile_ns = 3 / 5 GHz + 1.0 + 4 / 1.5 GHz = 0.6 + 1.0 + 2.6667 = 4.2667 ns.
TEST(OpticalGemmTiming, StationaryKnownJob) {
  const OpticalGemmCost c = optical_gemm_cost(job_config(), job());
  EXPECT_EQ(c.k_tiles, 3u);
  EXPECT_EQ(c.n_tiles, 3u);
  EXPECT_EQ(c.tiles, 9u);
  EXPECT_EQ(c.symbols_per_tile, 3u);
  EXPECT_EQ(c.symbols, 27u);
  EXPECT_EQ(c.programs, 9u);
  EXPECT_NEAR(c.total_ns, 9 * 10.0 + 9 * (0.6 + 1.0 + 4 / 1.5), 1e-9);  // 128.4 ns
  EXPECT_EQ(c.cycles, 193u);                                            // ceil(128.4 * 1.5 = 192.6)
  EXPECT_EQ(c.macs, 8000u);
  EXPECT_EQ(c.input_conversions, 600u);  // m * k * n_tiles
  EXPECT_EQ(c.adc_conversions, 1200u);   // m * n * k_tiles
  // 600 * (1 + 0.5) + 1200 * 1 + 100 mW * 128.4 ns + 9 * 16 * 8 cells * 10 pJ
  EXPECT_NEAR(c.energy_pj, 900 + 1200 + 12840 + 11520, 1e-6);
}

TEST(OpticalGemmTiming, ReuseWeightsSkipsFirstProgramming) {
  pcs::Gemm g = job();
  g.flags = pcs::Gemm::kReuseWeights;
  const OpticalGemmCost c = optical_gemm_cost(job_config(), g);
  EXPECT_EQ(c.programs, 8u);
  EXPECT_EQ(c.cycles, 178u);  // ceil((80 + 38.4) * 1.5 = 177.6)
  // A single-tile job with kReuseWeights programs nothing.
  g.m = 10;
  g.n = 16;
  g.k = 8;
  const OpticalGemmCost one = optical_gemm_cost(job_config(), g);
  EXPECT_EQ(one.programs, 0u);
  EXPECT_EQ(one.cycles, 7u);  // ceil(4.2667 * 1.5 = 6.4)
}

TEST(OpticalGemmTiming, StreamedModeHasNoProgrammingButModulatesWeights) {
  OpticalGemmConfig cfg = job_config();
  cfg.weight_mode = WeightMode::Streamed;
  const OpticalGemmCost c = optical_gemm_cost(cfg, job());
  EXPECT_EQ(c.programs, 0u);
  EXPECT_EQ(c.cycles, 58u);                // ceil(38.4 * 1.5 = 57.6)
  EXPECT_EQ(c.weight_modulations, 2400u);  // 3 symbols/tile * n * k
  // (600 + 2400) * 1.5 + 1200 + 100 * 38.4
  EXPECT_NEAR(c.energy_pj, 4500 + 1200 + 3840, 1e-6);
}

TEST(OpticalGemmTiming, ExactCycleBoundaryDoesNotRoundUp) {
  OpticalGemmConfig cfg = job_config();
  cfg.clock_ghz = 1.0;
  cfg.pipeline_depth = 0;
  cfg.conversion_latency_ns = 0;
  cfg.weight_program_ns = 0;
  cfg.modulation_ghz = 10.0;
  pcs::Gemm g = job();
  g.m = 4 * 30;  // 30 symbols of 0.1 ns per tile -> 3 ns per tile, 27 ns total
  EXPECT_EQ(optical_gemm_cost(cfg, g).cycles, 27u);
}

TEST(OpticalGemmTiming, EngineReportsCostAndCounters) {
  OpticalGemmEngine eng(job_config());
  test::Spm s(64);
  const IssueResult r = eng.issue(test::gemm_cmd(job()), 100, MemView{});
  EXPECT_EQ(r.done_cycle, 293u);
  EXPECT_NEAR(r.energy_pj, 26460, 1e-6);
  EXPECT_EQ(r.spm_bytes_read, 4u * (10 * 20 * 3 + 20 * 40));
  EXPECT_EQ(r.spm_bytes_written, 4u * 10 * 40);
  const auto k = eng.counters();
  EXPECT_EQ(k.at("macs"), 8000);
  EXPECT_EQ(k.at("weight_tiles"), 9);
  EXPECT_EQ(k.at("weight_programs"), 9);
  EXPECT_EQ(k.at("symbols"), 27);
  EXPECT_EQ(k.at("adc_conversions"), 1200);
}

}  // namespace
}  // namespace photon

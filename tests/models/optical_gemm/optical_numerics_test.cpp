// Physical numerics: noise statistics, reproducibility, and quantisation error bounds from the
// closed-form step sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "models/optical_gemm/optical_gemm_engine.h"
#include "models/optical_gemm/optical_numerics.h"
#include "tests/models/optical_gemm/gemm_test_util.h"

namespace photon {
namespace {

using optical::quantize_symmetric;
using optical::symmetric_levels;

TEST(OpticalNumerics, SymmetricQuantiser) {
  EXPECT_EQ(symmetric_levels(4), 7u);
  EXPECT_EQ(symmetric_levels(8), 127u);
  EXPECT_EQ(symmetric_levels(1), 1u);
  // 4 bits, full scale 7: step 1.
  EXPECT_EQ(quantize_symmetric(2.4f, 7.0f, 4), 2.0f);
  EXPECT_EQ(quantize_symmetric(-2.6f, 7.0f, 4), -3.0f);
  EXPECT_EQ(quantize_symmetric(7.0f, 7.0f, 4), 7.0f);
  EXPECT_EQ(quantize_symmetric(9.0f, 7.0f, 4), 7.0f);  // clamped
  EXPECT_EQ(quantize_symmetric(-9.0f, 7.0f, 4), -7.0f);
  EXPECT_EQ(quantize_symmetric(1.0f, 0.0f, 4), 0.0f);
  // Error bound step/2 over a sweep.
  const float fs = 1.3f;
  const double step = fs / 7.0;
  for (int e = -1000; e <= 1000; ++e) {
    const float x = fs * e / 1000.0f;
    ASSERT_LE(std::fabs(double(quantize_symmetric(x, fs, 4)) - x), step / 2 + 1e-7) << x;
  }
}

TEST(OpticalNumerics, GaussianIsStandardNormalAndDeterministic) {
  double sum = 0, sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double z = optical::gaussian(3, 5, i);
    sum += z;
    sum2 += z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(std::sqrt(sum2 / n), 1.0, 0.01);
  EXPECT_EQ(optical::gaussian(3, 5, 17), optical::gaussian(3, 5, 17));
  EXPECT_NE(optical::gaussian(3, 5, 17), optical::gaussian(4, 5, 17));
  EXPECT_NE(optical::gaussian(3, 5, 17), optical::gaussian(3, 6, 17));
}

// Dense random operands for the pure-function tests.
struct Operands {
  uint32_t m, n, k;
  std::vector<float> a, bt;
  Operands(uint32_t m_, uint32_t n_, uint32_t k_, uint32_t seed) : m(m_), n(n_), k(k_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1, 1);
    a.resize(size_t(m) * k);
    bt.resize(size_t(n) * k);
    for (auto& x : a) x = d(rng);
    for (auto& x : bt) x = 0.5f * d(rng);
  }
  float fs_a() const {
    float f = 0;
    for (float x : a) f = std::max(f, std::fabs(x));
    return f;
  }
  float fs_b() const {
    float f = 0;
    for (float x : bt) f = std::max(f, std::fabs(x));
    return f;
  }
  std::vector<double> exact() const {
    std::vector<double> c(size_t(m) * n, 0.0);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j)
        for (uint32_t p = 0; p < k; ++p) c[i * n + j] += double(a[i * k + p]) * bt[j * k + p];
    return c;
  }
};

TEST(OpticalNumerics, IdealIsBitIdenticalToTripleLoop) {
  // Non-integer data, so any change of summation order or fused multiply-add would show.
  const uint32_t m = 9, n = 13, k = 77;
  Operands op(m, n, k, 17);
  std::vector<float> b(size_t(k) * n);  // matmul_ideal takes B as k x n
  for (uint32_t p = 0; p < k; ++p)
    for (uint32_t j = 0; j < n; ++j) b[p * n + j] = op.bt[j * k + p];
  std::vector<float> c(size_t(m) * n, 0.25f);
  optical::matmul_ideal(op.a.data(), b.data(), c.data(), m, n, k);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      float acc = 0.25f;
      for (uint32_t p = 0; p < k; ++p) acc += op.a[i * k + p] * b[p * n + j];
      ASSERT_EQ(c[i * n + j], acc) << i << " " << j;
    }
}

TEST(OpticalNumerics, IdealBlockedKernelEqualsTheTripleLoopAcrossBlockEdges) {
  // Sizes that cross the kernel's row block (128), K block (256) and register tile (4 x 16)
  // edges; values with full mantissas, so any change of order or contraction would show.
  for (auto [m, n, k] : {std::array<uint32_t, 3>{131, 37, 600}, {1, 1, 1}, {5, 17, 257}, {129, 16, 3}}) {
    Operands op(m, n, k, m + n + k);
    std::vector<float> b(size_t(k) * n);
    for (uint32_t p = 0; p < k; ++p)
      for (uint32_t j = 0; j < n; ++j) b[p * n + j] = op.bt[j * k + p] * 1.000123f;
    std::vector<float> c(size_t(m) * n, -0.375f);
    optical::matmul_ideal(op.a.data(), b.data(), c.data(), m, n, k);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        float acc = -0.375f;
        for (uint32_t p = 0; p < k; ++p) {
          const volatile float prod = op.a[size_t(i) * k + p] * b[size_t(p) * n + j];
          acc = acc + prod;
        }
        ASSERT_EQ(c[size_t(i) * n + j], acc) << m << "x" << n << "x" << k << " at " << i << "," << j;
      }
  }
}

TEST(OpticalNumerics, NoiseStdMatchesConfigAtHighResolution) {
  // One weight tile (n = rows, k = cols): error / FS should be N(0, noise_std^2).
  optical::PhysicalParams p;
  p.rows = 32;
  p.cols = 64;
  p.dac_bits = 16;
  p.weight_bits = 16;
  p.adc_bits = 16;
  for (double s : {0.01, 0.05}) {
    p.noise_std = s;
    Operands op(512, 32, 64, 11);
    std::vector<float> c(size_t(op.m) * op.n, 0.0f);
    optical::matmul_physical(op.a.data(), op.bt.data(), c.data(), op.m, op.n, op.k, p, 0);
    const std::vector<double> ex = op.exact();
    const double fs = double(p.cols) * op.fs_a() * op.fs_b();
    double sum = 0, sum2 = 0;
    for (size_t e = 0; e < c.size(); ++e) {
      const double r = (c[e] - ex[e]) / fs;
      sum += r;
      sum2 += r * r;
    }
    const double mean = sum / c.size(), sd = std::sqrt(sum2 / c.size() - mean * mean);
    EXPECT_NEAR(sd, s, 0.1 * s) << "noise_std " << s;
    EXPECT_NEAR(mean, 0.0, 0.1 * s);
  }
}

TEST(OpticalNumerics, FourBitQuantisationErrorWithinClosedFormBound) {
  // No noise, 4-bit DAC and weights, 16-bit ADC. Per element and K tile:
  // |q(a) q(b) - a b| <= fs_a * step_b/2 + fs_b * step_a/2, summed over the tile's kc terms,
  // plus the ADC's step/2; tiles use their own full scales, so bound each tile separately.
  optical::PhysicalParams p;
  p.rows = 8;
  p.cols = 16;
  p.dac_bits = 4;
  p.weight_bits = 4;
  p.adc_bits = 16;
  p.noise_std = 0;
  Operands op(20, 8, 16, 5);  // one tile: full scales are the global maxima
  std::vector<float> c(size_t(op.m) * op.n, 0.0f);
  optical::matmul_physical(op.a.data(), op.bt.data(), c.data(), op.m, op.n, op.k, p, 0);
  const std::vector<double> ex = op.exact();
  const double fa = op.fs_a(), fb = op.fs_b();
  const double step_a = fa / 7, step_b = fb / 7, fs = p.cols * fa * fb;
  const double bound = op.k * (fa * step_b / 2 + fb * step_a / 2) + fs / 32767 / 2 + 1e-5;
  double worst = 0;
  for (size_t e = 0; e < c.size(); ++e) worst = std::max(worst, std::fabs(c[e] - ex[e]));
  EXPECT_LE(worst, bound);
  EXPECT_GT(worst, 0.05 * bound);  // the quantisation is really applied
}

TEST(OpticalNumerics, MatchesIndependentTiledQuantisedReference) {
  // Several K and N tiles, each with its own input / weight full scale; no noise. Reference:
  // quantise with the closed-form step per tile, exact dot, 16-bit ADC, sum over K tiles.
  optical::PhysicalParams p;
  p.rows = 4;
  p.cols = 8;
  p.dac_bits = 5;
  p.weight_bits = 4;
  p.adc_bits = 16;
  p.noise_std = 0;
  const uint32_t m = 6, n = 10, k = 30;
  Operands op(m, n, k, 23);
  for (uint32_t p2 = 16; p2 < 24; ++p2) op.a[2 * k + p2] *= 8;  // one K tile has a larger range
  std::vector<float> c(size_t(m) * n, 0.0f);
  optical::matmul_physical(op.a.data(), op.bt.data(), c.data(), m, n, k, p, 0);
  std::vector<double> want(size_t(m) * n, 0.0);
  double max_fs = 0;
  for (uint32_t k0 = 0; k0 < k; k0 += 8) {
    const uint32_t k1 = std::min(k, k0 + 8);
    double fa = 0;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t q = k0; q < k1; ++q) fa = std::max(fa, std::fabs(double(op.a[i * k + q])));
    for (uint32_t j0 = 0; j0 < n; j0 += 4) {
      const uint32_t j1 = std::min(n, j0 + 4);
      double fb = 0;
      for (uint32_t j = j0; j < j1; ++j)
        for (uint32_t q = k0; q < k1; ++q) fb = std::max(fb, std::fabs(double(op.bt[j * k + q])));
      const double sa = fa / 15, sb = fb / 7, fs = 8 * fa * fb;
      max_fs = std::max(max_fs, fs);
      for (uint32_t i = 0; i < m; ++i)
        for (uint32_t j = j0; j < j1; ++j) {
          double dot = 0;
          for (uint32_t q = k0; q < k1; ++q)
            dot += std::round(op.a[i * k + q] / sa) * sa * std::round(op.bt[j * k + q] / sb) * sb;
          want[i * n + j] += dot;  // ADC at 16 bits: within fs / 32767 / 2 of dot
        }
    }
  }
  for (size_t e = 0; e < c.size(); ++e) EXPECT_NEAR(c[e], want[e], 4 * (max_fs / 32767 / 2) + 1e-5) << e;
}

TEST(OpticalNumerics, AdcOutputsAreMultiplesOfItsStep) {
  optical::PhysicalParams p;
  p.rows = 8;
  p.cols = 16;
  p.dac_bits = 16;
  p.weight_bits = 16;
  p.adc_bits = 4;
  p.noise_std = 0;
  Operands op(10, 8, 16, 9);
  std::vector<float> c(size_t(op.m) * op.n, 0.0f);
  optical::matmul_physical(op.a.data(), op.bt.data(), c.data(), op.m, op.n, op.k, p, 0);
  const std::vector<double> ex = op.exact();
  const double step = p.cols * double(op.fs_a()) * op.fs_b() / 7;
  for (size_t e = 0; e < c.size(); ++e) {
    const double q = c[e] / step;
    EXPECT_NEAR(q, std::round(q), 1e-4) << e;
    EXPECT_LE(std::fabs(c[e] - ex[e]), step / 2 + 1e-3 * step) << e;
  }
}

TEST(OpticalNumerics, HighResolutionWithoutNoiseApproachesExactAcrossKTiles) {
  optical::PhysicalParams p;
  p.rows = 4;
  p.cols = 8;
  p.dac_bits = 16;
  p.weight_bits = 16;
  p.adc_bits = 16;
  p.noise_std = 0;
  Operands op(6, 10, 30, 3);                        // 4 K tiles, 3 N tiles
  std::vector<float> c(size_t(op.m) * op.n, 1.0f);  // initial accumulator is kept
  optical::matmul_physical(op.a.data(), op.bt.data(), c.data(), op.m, op.n, op.k, p, 0);
  const std::vector<double> ex = op.exact();
  for (size_t e = 0; e < c.size(); ++e) EXPECT_NEAR(c[e], 1.0 + ex[e], 2e-3) << e;
}

pcs::Gemm dense_gemm(uint32_t m, uint32_t n, uint32_t k) {
  pcs::Gemm g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = k;
  g.ldb = n;
  g.ldc = n;
  g.a = 0;
  g.b = 4 * m * k;
  g.c = 4 * (m * k + k * n);
  return g;
}

TEST(OpticalGemmEnginePhysical, SameSeedSameResultDifferentSeedDifferent) {
  OpticalGemmConfig cfg;
  cfg.numerics = Numerics::Physical;
  cfg.noise_std = 0.02;
  const pcs::Gemm g = dense_gemm(16, 40, 70);
  auto run = [&](uint64_t seed) {
    cfg.seed = seed;
    OpticalGemmEngine eng(cfg);
    test::Spm s(4 * (16 * 70 + 70 * 40 + 16 * 40));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-1, 1);
    for (uint32_t e = 0; e < 16 * 70 + 70 * 40; ++e) s.put(4 * e, d(rng));
    eng.issue(test::gemm_cmd(g), 0, s.view());
    return s.bytes;
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(OpticalGemmEnginePhysical, EngineMatchesPureFunctionIncludingBias) {
  OpticalGemmConfig cfg;
  cfg.numerics = Numerics::Physical;
  cfg.rows = 8;
  cfg.cols = 8;
  cfg.dac_bits = 6;
  cfg.weight_bits = 5;
  cfg.adc_bits = 7;
  cfg.noise_std = 0.03;
  cfg.seed = 99;
  OpticalGemmEngine eng(cfg);
  const uint32_t m = 5, n = 12, k = 20;
  pcs::Gemm g = dense_gemm(m, n, k);
  g.flags = pcs::Gemm::kBias;
  g.bias = g.c + 4 * m * n;
  test::Spm s(g.bias + 4 * n);
  Operands op(m, n, k, 21);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t p = 0; p < k; ++p) s.put(g.a + 4 * (i * k + p), op.a[i * k + p]);
  for (uint32_t p = 0; p < k; ++p)
    for (uint32_t j = 0; j < n; ++j) s.put(g.b + 4 * (p * n + j), op.bt[j * k + p]);
  for (uint32_t j = 0; j < n; ++j) s.put(g.bias + 4 * j, 0.25f * j);
  eng.issue(test::gemm_cmd(g), 0, s.view());
  optical::PhysicalParams p;
  p.rows = 8;
  p.cols = 8;
  p.dac_bits = 6;
  p.weight_bits = 5;
  p.adc_bits = 7;
  p.noise_std = 0.03;
  p.seed = 99;
  std::vector<float> c(size_t(m) * n, 0.0f);
  optical::matmul_physical(op.a.data(), op.bt.data(), c.data(), m, n, k, p, /*stream=*/0);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) EXPECT_EQ(s.get(g.c + 4 * (i * n + j)), c[i * n + j] + 0.25f * j);
}

}  // namespace
}  // namespace photon

// Row ops (Softmax, LayerNorm, Reduce*) and Transpose against double-precision references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/models/vector/vector_test_util.h"

namespace photon {
namespace {

using V = pcs::Vector;
using test::VecSpm;

// Issues `v` with src0 = x at 0; src1/src2 (if given) after it; returns dst contents.
std::vector<float> run(V v, const std::vector<float>& x, size_t out_count, const std::vector<float>& s1 = {},
                       const std::vector<float>& s2 = {}) {
  VectorEngine eng{VectorConfig{}};
  VecSpm s(4 * (x.size() + s1.size() + s2.size() + out_count));
  v.src0 = 0;
  v.src1 = uint32_t(4 * x.size());
  v.src2 = uint32_t(v.src1 + 4 * s1.size());
  v.dst = uint32_t(v.src2 + 4 * s2.size());
  s.put(v.src0, x);
  s.put(v.src1, s1);
  s.put(v.src2, s2);
  eng.issue(test::vec_cmd(v), 0, s.view());
  return s.get(v.dst, out_count);
}

TEST(VectorRows, SoftmaxRowsSumToOneAndMatchReference) {
  const uint32_t rows = 5, inner = 37;
  std::vector<float> x = test::random_floats(rows * inner, -20, 20, 1);
  for (uint32_t c = 0; c < inner; ++c) x[4 * inner + c] = 1000.0f + c;  // needs max subtraction
  V v;
  v.op = V::kSoftmax;
  v.n = rows * inner;
  v.inner = inner;
  const std::vector<float> y = run(v, x, x.size());
  for (uint32_t r = 0; r < rows; ++r) {
    double mx = -1e30, sum = 0, ysum = 0;
    for (uint32_t c = 0; c < inner; ++c) mx = std::max(mx, double(x[r * inner + c]));
    for (uint32_t c = 0; c < inner; ++c) sum += std::exp(double(x[r * inner + c]) - mx);
    for (uint32_t c = 0; c < inner; ++c) {
      const double want = std::exp(double(x[r * inner + c]) - mx) / sum;
      ASSERT_TRUE(std::isfinite(y[r * inner + c]));
      ASSERT_NEAR(y[r * inner + c], want, 1e-6 * want + 1e-12) << r << " " << c;
      ysum += y[r * inner + c];
    }
    EXPECT_NEAR(ysum, 1.0, 1e-5) << "row " << r;
  }
}

TEST(VectorRows, LayerNormMatchesReference) {
  const uint32_t rows = 6, inner = 64;
  const float eps = 1e-5f;
  const std::vector<float> x = test::random_floats(rows * inner, -3, 5, 2);
  const std::vector<float> gamma = test::random_floats(inner, 0.5f, 1.5f, 3);
  const std::vector<float> beta = test::random_floats(inner, -1, 1, 4);
  V v;
  v.op = V::kLayerNorm;
  v.n = rows * inner;
  v.inner = inner;
  v.imm0 = eps;
  const std::vector<float> y = run(v, x, x.size(), gamma, beta);
  for (uint32_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (uint32_t c = 0; c < inner; ++c) mean += x[r * inner + c];
    mean /= inner;
    for (uint32_t c = 0; c < inner; ++c) var += std::pow(x[r * inner + c] - mean, 2);
    var /= inner;
    for (uint32_t c = 0; c < inner; ++c) {
      const double want = (x[r * inner + c] - mean) / std::sqrt(var + eps) * gamma[c] + beta[c];
      ASSERT_NEAR(y[r * inner + c], want, 2e-6 * (1 + std::fabs(want))) << r << " " << c;
    }
  }
  // eps matters: a constant row normalises to beta with any positive eps.
  std::vector<float> flat(inner, 2.0f);
  v.n = inner;
  const std::vector<float> yf = run(v, flat, inner, gamma, beta);
  for (uint32_t c = 0; c < inner; ++c) EXPECT_EQ(yf[c], beta[c]);
}

TEST(VectorRows, Reductions) {
  const uint32_t rows = 7, inner = 13;
  const std::vector<float> x = test::random_floats(rows * inner, -10, 10, 5);
  for (uint8_t op : {V::kReduceSum, V::kReduceMean, V::kReduceMax}) {
    V v;
    v.op = op;
    v.n = rows * inner;
    v.inner = inner;
    const std::vector<float> y = run(v, x, rows);
    for (uint32_t r = 0; r < rows; ++r) {
      double sum = 0, mx = -1e30;
      for (uint32_t c = 0; c < inner; ++c) {
        sum += x[r * inner + c];
        mx = std::max(mx, double(x[r * inner + c]));
      }
      const double want = op == V::kReduceSum ? sum : op == V::kReduceMean ? sum / inner : mx;
      EXPECT_EQ(y[r], float(want)) << "op " << int(op) << " row " << r;
    }
  }
}

TEST(VectorRows, Transpose) {
  const uint32_t rows = 3, inner = 5;
  std::vector<float> x(rows * inner);
  for (uint32_t e = 0; e < x.size(); ++e) x[e] = float(e);
  V v;
  v.op = V::kTranspose;
  v.n = rows * inner;
  v.inner = inner;
  const std::vector<float> y = run(v, x, x.size());
  // y is inner x rows: y[c][r] = x[r][c].
  const std::vector<float> want = {0, 5, 10, 1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, 14};
  EXPECT_EQ(y, want);
}

}  // namespace
}  // namespace photon

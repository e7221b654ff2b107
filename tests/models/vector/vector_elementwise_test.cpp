// Element-wise, broadcast and scalar ops against naive references (std:: functions in double
// for the transcendental ones, the plain fp32 expression for exact ones).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tests/models/vector/vector_test_util.h"

namespace photon {
namespace {

using V = pcs::Vector;
using test::VecSpm;

std::vector<float> run_unary(uint8_t op, const std::vector<float>& x) {
  VectorEngine eng{VectorConfig{}};
  VecSpm s(8 * x.size() + 64);
  s.put(0, x);
  V v;
  v.op = op;
  v.n = uint32_t(x.size());
  v.src0 = 0;
  v.dst = uint32_t(4 * x.size());
  eng.issue(test::vec_cmd(v), 0, s.view());
  return s.get(v.dst, x.size());
}

double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double sigm(double x) { return 1 / (1 + std::exp(-x)); }

TEST(VectorElementwise, UnaryOpsMatchReferences) {
  std::vector<float> x = test::random_floats(997, -6, 6, 1);
  x.push_back(0.0f);
  x.push_back(-0.0f);
  x.push_back(-30.0f);  // sigmoid/silu must not overflow
  x.push_back(30.0f);
  struct Case {
    uint8_t op;
    std::function<double(double)> ref;
    bool exact;
  };
  const std::vector<Case> cases = {
      {V::kCopy, [](double a) { return a; }, true},
      {V::kRelu, [](double a) { return a > 0 ? a : 0.0; }, true},
      {V::kNeg, [](double a) { return -a; }, true},
      {V::kAbs, [](double a) { return std::fabs(a); }, true},
      {V::kGelu, gelu, false},
      {V::kSilu, [](double a) { return a * sigm(a); }, false},
      {V::kSigmoid, sigm, false},
      {V::kTanh, [](double a) { return std::tanh(a); }, false},
      {V::kErf, [](double a) { return std::erf(a); }, false},
      {V::kExp, [](double a) { return std::exp(a); }, false},
  };
  for (const Case& c : cases) {
    const std::vector<float> y = run_unary(c.op, x);
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = c.ref(x[i]);
      if (c.exact)
        ASSERT_EQ(y[i], float(want)) << "op " << int(c.op) << " x " << x[i];
      else
        ASSERT_NEAR(y[i], want, 2e-6 * std::fabs(want) + 1e-7) << "op " << int(c.op) << " x " << x[i];
    }
  }
  // GELU at known points: gelu(1) = 0.8413447460685429, gelu(-1) = -0.15865525393145707.
  const std::vector<float> g = run_unary(V::kGelu, {1.0f, -1.0f});
  EXPECT_NEAR(g[0], 0.8413447460685429, 1e-7);
  EXPECT_NEAR(g[1], -0.15865525393145707, 1e-7);
  // sqrt and reciprocal on positive inputs: correctly rounded fp32 operations.
  const std::vector<float> p = test::random_floats(500, 0.01f, 100.0f, 2);
  const std::vector<float> sq = run_unary(V::kSqrt, p), rc = run_unary(V::kRecip, p);
  for (size_t i = 0; i < p.size(); ++i) {
    ASSERT_EQ(sq[i], float(std::sqrt(double(p[i]))));
    ASSERT_EQ(rc[i], float(1.0 / double(p[i])));
  }
}

// Runs a binary op with the given broadcast fields.
std::vector<float> run_binary(uint8_t op, const std::vector<float>& a, const std::vector<float>& b,
                              uint32_t bcast_inner, uint32_t bcast_len) {
  VectorEngine eng{VectorConfig{}};
  VecSpm s(4 * (2 * a.size() + b.size()));
  V v;
  v.op = op;
  v.n = uint32_t(a.size());
  v.src0 = 0;
  v.src1 = uint32_t(4 * a.size());
  v.dst = uint32_t(4 * (a.size() + b.size()));
  v.bcast_inner = bcast_inner;
  v.bcast_len = bcast_len;
  s.put(v.src0, a);
  s.put(v.src1, b);
  eng.issue(test::vec_cmd(v), 0, s.view());
  return s.get(v.dst, a.size());
}

float ref_binary(uint8_t op, float a, float b) {
  switch (op) {
    case V::kAdd: return a + b;
    case V::kSub: return a - b;
    case V::kMul: return a * b;
    case V::kDiv: return a / b;
    case V::kMax: return a > b ? a : b;
    case V::kMin: return a < b ? a : b;
    default: return 0;
  }
}

TEST(VectorElementwise, BinaryOpsWithBroadcastPatterns) {
  const uint32_t N = 2, C = 3, H = 4, W = 5, n = N * C * H * W;
  const std::vector<float> a = test::random_floats(n, -3, 3, 3);
  for (uint8_t op : {V::kAdd, V::kSub, V::kMul, V::kDiv, V::kMax, V::kMin}) {
    // Same shape: bcast_inner = 1, bcast_len = n.
    const std::vector<float> full = test::random_floats(n, 0.5f, 2, 4);
    std::vector<float> y = run_binary(op, a, full, 1, n);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], ref_binary(op, a[i], full[i]));
    // Scalar: one element.
    y = run_binary(op, a, {1.75f}, 1, 1);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], ref_binary(op, a[i], 1.75f));
    // Per-channel NCHW (bias of shape C x 1 x 1): bcast_inner = H*W, bcast_len = C.
    const std::vector<float> ch = {0.5f, -1.25f, 3.0f};
    y = run_binary(op, a, ch, H * W, C);
    for (uint32_t in = 0, i = 0; in < N; ++in)
      for (uint32_t c = 0; c < C; ++c)
        for (uint32_t hw = 0; hw < H * W; ++hw, ++i) ASSERT_EQ(y[i], ref_binary(op, a[i], ch[c]));
    // Trailing dimension (shape W): bcast_inner = 1, bcast_len = W.
    const std::vector<float> tr = test::random_floats(W, 0.5f, 2, 5);
    y = run_binary(op, a, tr, 1, W);
    for (uint32_t r = 0, i = 0; r < N * C * H; ++r)
      for (uint32_t w = 0; w < W; ++w, ++i) ASSERT_EQ(y[i], ref_binary(op, a[i], tr[w]));
    // Middle dimension H of N x C x H x W (shape H x 1): bcast_inner = W, bcast_len = H.
    const std::vector<float> mid = test::random_floats(H, 0.5f, 2, 6);
    y = run_binary(op, a, mid, W, H);
    for (uint32_t r = 0, i = 0; r < N * C; ++r)
      for (uint32_t h = 0; h < H; ++h)
        for (uint32_t w = 0; w < W; ++w, ++i) ASSERT_EQ(y[i], ref_binary(op, a[i], mid[h]));
  }
  // Pow (transcendental): positive base.
  const std::vector<float> base = test::random_floats(50, 0.1f, 3, 7);
  const std::vector<float> y = run_binary(V::kPow, base, {2.5f}, 1, 1);
  for (size_t i = 0; i < base.size(); ++i)
    EXPECT_NEAR(y[i], std::pow(double(base[i]), 2.5), 2e-6 * std::pow(double(base[i]), 2.5));
}

TEST(VectorElementwise, ScalarOps) {
  const std::vector<float> x = test::random_floats(300, -5, 5, 8);
  VectorEngine eng{VectorConfig{}};
  auto run = [&](uint8_t op, float imm0, float imm1) {
    VecSpm s(8 * x.size());
    s.put(0, x);
    V v;
    v.op = op;
    v.n = uint32_t(x.size());
    v.dst = uint32_t(4 * x.size());
    v.imm0 = imm0;
    v.imm1 = imm1;
    eng.issue(test::vec_cmd(v), 0, s.view());
    return s.get(v.dst, x.size());
  };
  std::vector<float> y = run(V::kAddScalar, 0.3f, 0);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] + 0.3f);
  y = run(V::kMulScalar, -1.5f, 0);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] * -1.5f);
  y = run(V::kClip, -1.0f, 2.0f);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] < -1.0f ? -1.0f : (x[i] > 2.0f ? 2.0f : x[i]));
  y = run(V::kLeakyRelu, 0.01f, 0);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] >= 0 ? x[i] : 0.01f * x[i]);
  y = run(V::kPowScalar, 2.0f, 0);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y[i], double(x[i]) * x[i], 1e-6 * x[i] * x[i]);
}

TEST(VectorElementwise, InPlaceAndAliasedBroadcast) {
  // dst == src0 and dst == src1 (per-channel bias written over the bias array) are allowed.
  VectorEngine eng{VectorConfig{}};
  VecSpm s(64);
  s.put(0, {1, 2, 3, 4});
  V v;
  v.op = V::kAdd;
  v.n = 4;
  v.src0 = 0;
  v.src1 = 0;
  v.dst = 0;
  v.bcast_len = 4;
  eng.issue(test::vec_cmd(v), 0, s.view());
  EXPECT_EQ(s.get(0, 4), (std::vector<float>{2, 4, 6, 8}));
}

}  // namespace
}  // namespace photon

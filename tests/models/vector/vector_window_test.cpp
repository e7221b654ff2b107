// Pooling against a naive loop over an explicitly padded image, and im2col against a direct
// convolution (im2col followed by a matmul must equal the naive convolution).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/models/vector/vector_test_util.h"

namespace photon {
namespace {

using V = pcs::Vector;
using test::VecSpm;

struct Geo {
  uint32_t C, H, W, kh, kw, sh, sw, pt, pl, oh, ow;
};

V window_cmd(uint8_t op, const Geo& g) {
  V v;
  v.op = op;
  v.n = g.C * g.H * g.W;
  v.h = uint16_t(g.H);
  v.w = uint16_t(g.W);
  v.oh = uint16_t(g.oh);
  v.ow = uint16_t(g.ow);
  v.kh = uint8_t(g.kh);
  v.kw = uint8_t(g.kw);
  v.sh = uint8_t(g.sh);
  v.sw = uint8_t(g.sw);
  v.pad_top = uint8_t(g.pt);
  v.pad_left = uint8_t(g.pl);
  return v;
}

std::vector<float> run(V v, const std::vector<float>& x, size_t out) {
  VectorEngine eng{VectorConfig{}};
  VecSpm s(4 * (x.size() + out));
  v.src0 = 0;
  v.dst = uint32_t(4 * x.size());
  s.put(0, x);
  eng.issue(test::vec_cmd(v), 0, s.view());
  return s.get(v.dst, out);
}

// Naive pooling: copy into a padded image (pads on all sides, bottom/right as implied by oh,
// ow), then scan each window; `valid` marks in-image cells.
std::vector<float> naive_pool(const std::vector<float>& x, const Geo& g, bool max, bool cip) {
  const uint32_t pb = std::max<int>(0, int((g.oh - 1) * g.sh + g.kh) - int(g.H + g.pt));
  const uint32_t pr = std::max<int>(0, int((g.ow - 1) * g.sw + g.kw) - int(g.W + g.pl));
  const uint32_t PH = g.H + g.pt + pb, PW = g.W + g.pl + pr;
  std::vector<float> pad(size_t(g.C) * PH * PW, 0.0f);
  std::vector<bool> valid(pad.size(), false);
  for (uint32_t c = 0; c < g.C; ++c)
    for (uint32_t y = 0; y < g.H; ++y)
      for (uint32_t xx = 0; xx < g.W; ++xx) {
        const size_t p = (size_t(c) * PH + y + g.pt) * PW + xx + g.pl;
        pad[p] = x[(size_t(c) * g.H + y) * g.W + xx];
        valid[p] = true;
      }
  std::vector<float> out;
  for (uint32_t c = 0; c < g.C; ++c)
    for (uint32_t oy = 0; oy < g.oh; ++oy)
      for (uint32_t ox = 0; ox < g.ow; ++ox) {
        float mx = -std::numeric_limits<float>::infinity();
        double sum = 0;
        int cnt = 0;
        for (uint32_t i = 0; i < g.kh; ++i)
          for (uint32_t j = 0; j < g.kw; ++j) {
            const size_t p = (size_t(c) * PH + oy * g.sh + i) * PW + ox * g.sw + j;
            if (!valid[p]) continue;
            mx = std::max(mx, pad[p]);
            sum += pad[p];
            ++cnt;
          }
        out.push_back(max ? mx : float(sum / (cip ? g.kh * g.kw : cnt)));
      }
  return out;
}

TEST(VectorWindow, PoolingMatchesNaiveLoopWithPadding) {
  const std::vector<Geo> geos = {
      {3, 7, 6, 3, 3, 2, 2, 1, 1, 4, 3},  // pads on all sides (bottom/right 1 implied)
      {2, 8, 8, 2, 2, 2, 2, 0, 0, 4, 4},  // no padding
      {2, 5, 5, 3, 3, 2, 2, 0, 0, 3, 3},  // ceil-mode style: last window overhangs bottom/right
      {1, 4, 6, 3, 2, 1, 3, 2, 1, 4, 3},  // asymmetric kernel, strides and pads
  };
  for (const Geo& g : geos) {
    const std::vector<float> x = test::random_floats(size_t(g.C) * g.H * g.W, -5, 5, g.H * 7 + g.W);
    const size_t out = size_t(g.C) * g.oh * g.ow;
    EXPECT_EQ(run(window_cmd(V::kMaxPool, g), x, out), naive_pool(x, g, true, false));
    const std::vector<float> avg = run(window_cmd(V::kAvgPool, g), x, out);
    const std::vector<float> want = naive_pool(x, g, false, false);
    for (size_t e = 0; e < out; ++e) EXPECT_FLOAT_EQ(avg[e], want[e]) << e;
    V cip = window_cmd(V::kAvgPool, g);
    cip.count_include_pad = 1;
    const std::vector<float> avg_cip = run(cip, x, out);
    const std::vector<float> want_cip = naive_pool(x, g, false, true);
    for (size_t e = 0; e < out; ++e) EXPECT_FLOAT_EQ(avg_cip[e], want_cip[e]) << e;
  }
}

TEST(VectorWindow, AvgPoolExcludesPadsByDefault) {
  // 1 x 2 x 2 image of ones, 2x2 window, pad 1 top/left, stride 1: 3 x 3 output.
  const Geo g{1, 2, 2, 2, 2, 1, 1, 1, 1, 3, 3};
  const std::vector<float> y = run(window_cmd(V::kAvgPool, g), {1, 1, 1, 1}, 9);
  for (float f : y) EXPECT_EQ(f, 1.0f);
  V cip = window_cmd(V::kAvgPool, g);
  cip.count_include_pad = 1;
  const std::vector<float> z = run(cip, {1, 1, 1, 1}, 9);
  EXPECT_EQ(z, (std::vector<float>{0.25f, 0.5f, 0.25f, 0.5f, 1, 0.5f, 0.25f, 0.5f, 0.25f}));
}

TEST(VectorWindow, Im2colTimesWeightsEqualsDirectConvolution) {
  const std::vector<Geo> geos = {
      {2, 5, 6, 3, 2, 2, 1, 1, 1, 3, 7},
      {3, 6, 6, 3, 3, 1, 1, 1, 1, 6, 6},  // "same" 3x3 convolution
      {1, 7, 5, 1, 1, 2, 2, 0, 0, 4, 3},  // 1x1 strided
  };
  for (const Geo& g : geos) {
    const uint32_t Cout = 4, K = g.C * g.kh * g.kw, P = g.oh * g.ow;
    std::vector<float> x(size_t(g.C) * g.H * g.W), wt(size_t(Cout) * K);
    for (size_t e = 0; e < x.size(); ++e) x[e] = float(int(e * 7 % 11) - 5);
    for (size_t e = 0; e < wt.size(); ++e) wt[e] = float(int(e * 5 % 7) - 3);
    const std::vector<float> cols = run(window_cmd(V::kIm2col, g), x, size_t(K) * P);
    for (uint32_t o = 0; o < Cout; ++o)
      for (uint32_t oy = 0; oy < g.oh; ++oy)
        for (uint32_t ox = 0; ox < g.ow; ++ox) {
          float conv = 0;  // naive direct convolution (integers: exact)
          for (uint32_t c = 0; c < g.C; ++c)
            for (uint32_t i = 0; i < g.kh; ++i)
              for (uint32_t j = 0; j < g.kw; ++j) {
                const int iy = int(oy * g.sh + i) - int(g.pt), ix = int(ox * g.sw + j) - int(g.pl);
                if (iy < 0 || iy >= int(g.H) || ix < 0 || ix >= int(g.W)) continue;
                conv += wt[((o * g.C + c) * g.kh + i) * g.kw + j] * x[(c * g.H + iy) * g.W + ix];
              }
          float mm = 0;  // weights (Cout x K) times im2col (K x P)
          for (uint32_t kk = 0; kk < K; ++kk) mm += wt[o * K + kk] * cols[size_t(kk) * P + oy * g.ow + ox];
          ASSERT_EQ(mm, conv) << "o " << o << " oy " << oy << " ox " << ox;
        }
  }
}

}  // namespace
}  // namespace photon

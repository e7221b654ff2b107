#include "models/vector/vector_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace photon::vec {

using V = pcs::Vector;

namespace {
float sigmoid(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}
}  // namespace

float unary(uint8_t op, float x) {
  switch (op) {
    case V::kCopy: return x;
    case V::kRelu: return x > 0.0f ? x : 0.0f;
    case V::kGelu: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case V::kSilu: return x * sigmoid(x);
    case V::kSigmoid: return sigmoid(x);
    case V::kTanh: return std::tanh(x);
    case V::kErf: return std::erf(x);
    case V::kExp: return std::exp(x);
    case V::kSqrt: return std::sqrt(x);
    case V::kRecip: return 1.0f / x;
    case V::kNeg: return -x;
    case V::kAbs: return std::fabs(x);
    default: return x;
  }
}

float binary(uint8_t op, float a, float b) {
  switch (op) {
    case V::kAdd: return a + b;
    case V::kSub: return a - b;
    case V::kMul: return a * b;
    case V::kDiv: return a / b;
    case V::kMax: return std::max(a, b);
    case V::kMin: return std::min(a, b);
    case V::kPow: return std::pow(a, b);
    default: return a;
  }
}

float scalar(uint8_t op, float x, float imm0, float imm1) {
  switch (op) {
    case V::kAddScalar: return x + imm0;
    case V::kMulScalar: return x * imm0;
    case V::kClip: return std::min(std::max(x, imm0), imm1);
    case V::kLeakyRelu: return x >= 0.0f ? x : imm0 * x;
    case V::kPowScalar: return std::pow(x, imm0);
    default: return x;
  }
}

void softmax_rows(const float* x, float* y, uint64_t rows, uint32_t inner) {
  for (uint64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * inner;
    float* yr = y + r * inner;
    float mx = -std::numeric_limits<float>::infinity();
    for (uint32_t c = 0; c < inner; ++c) mx = std::max(mx, xr[c]);
    double sum = 0.0;
    for (uint32_t c = 0; c < inner; ++c) {
      yr[c] = std::exp(xr[c] - mx);
      sum += yr[c];
    }
    const float s = static_cast<float>(sum);
    for (uint32_t c = 0; c < inner; ++c) yr[c] = yr[c] / s;
  }
}

void layernorm_rows(const float* x, const float* gamma, const float* beta, float eps, float* y, uint64_t rows,
                    uint32_t inner) {
  for (uint64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * inner;
    float* yr = y + r * inner;
    double mean = 0.0;
    for (uint32_t c = 0; c < inner; ++c) mean += xr[c];
    mean /= inner;
    double var = 0.0;
    for (uint32_t c = 0; c < inner; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= inner;
    const double rstd = 1.0 / std::sqrt(var + static_cast<double>(eps));
    for (uint32_t c = 0; c < inner; ++c)
      yr[c] = static_cast<float>((xr[c] - mean) * rstd) * gamma[c] + beta[c];
  }
}

void reduce_rows(uint8_t op, const float* x, float* y, uint64_t rows, uint32_t inner) {
  for (uint64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * inner;
    if (op == V::kReduceMax) {
      float mx = -std::numeric_limits<float>::infinity();
      for (uint32_t c = 0; c < inner; ++c) mx = std::max(mx, xr[c]);
      y[r] = mx;
    } else {
      double s = 0.0;
      for (uint32_t c = 0; c < inner; ++c) s += xr[c];
      y[r] = static_cast<float>(op == V::kReduceMean ? s / inner : s);
    }
  }
}

Window2d window_of(const pcs::Vector& v) {
  Window2d g;
  const uint64_t hw = uint64_t(v.h) * v.w;
  g.c = hw ? v.n / hw : 0;
  g.h = v.h;
  g.w = v.w;
  g.oh = v.oh;
  g.ow = v.ow;
  g.kh = v.kh;
  g.kw = v.kw;
  g.sh = v.sh;
  g.sw = v.sw;
  g.pad_top = v.pad_top;
  g.pad_left = v.pad_left;
  g.dh = v.dilation_h();
  g.dw = v.dilation_w();
  return g;
}

namespace {
// Calls f(y_index, in-image input index or -1 for padding, ...) for every window element.
template <typename Start, typename Elem, typename Finish>
void for_windows(const Window2d& g, Start start, Elem elem, Finish finish) {
  for (uint64_t c = 0; c < g.c; ++c)
    for (uint32_t oy = 0; oy < g.oh; ++oy)
      for (uint32_t ox = 0; ox < g.ow; ++ox) {
        start();
        for (uint32_t i = 0; i < g.kh; ++i) {
          const int64_t iy = int64_t(oy) * g.sh - g.pad_top + i;
          for (uint32_t j = 0; j < g.kw; ++j) {
            const int64_t ix = int64_t(ox) * g.sw - g.pad_left + j;
            if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w)
              elem((c * g.h + uint64_t(iy)) * g.w + uint64_t(ix));
          }
        }
        finish((c * g.oh + oy) * g.ow + ox);
      }
}
}  // namespace

void max_pool(const float* x, float* y, const Window2d& g) {
  float mx = 0.0f;
  for_windows(
      g, [&] { mx = -std::numeric_limits<float>::infinity(); },
      [&](uint64_t in) { mx = std::max(mx, x[in]); }, [&](uint64_t out) { y[out] = mx; });
}

void avg_pool(const float* x, float* y, const Window2d& g, bool count_include_pad) {
  double sum = 0.0;
  uint32_t count = 0;
  for_windows(
      g,
      [&] {
        sum = 0.0;
        count = 0;
      },
      [&](uint64_t in) {
        sum += x[in];
        ++count;
      },
      [&](uint64_t out) {
        const uint32_t d = count_include_pad ? g.kh * g.kw : count;
        y[out] = d ? static_cast<float>(sum / d) : 0.0f;
      });
}

void im2col(const float* x, float* y, const Window2d& g) {
  const uint64_t cols = uint64_t(g.oh) * g.ow;
  for (uint64_t c = 0; c < g.c; ++c)
    for (uint32_t i = 0; i < g.kh; ++i)
      for (uint32_t j = 0; j < g.kw; ++j) {
        float* yr = y + ((c * g.kh + i) * g.kw + j) * cols;
        for (uint32_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = int64_t(oy) * g.sh - g.pad_top + int64_t(i) * g.dh;
          for (uint32_t ox = 0; ox < g.ow; ++ox) {
            const int64_t ix = int64_t(ox) * g.sw - g.pad_left + int64_t(j) * g.dw;
            const bool in = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
            yr[uint64_t(oy) * g.ow + ox] = in ? x[(c * g.h + uint64_t(iy)) * g.w + uint64_t(ix)] : 0.0f;
          }
        }
      }
}

void transpose(const float* x, float* y, uint64_t rows, uint32_t inner) {
  for (uint64_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < inner; ++c) y[uint64_t(c) * rows + r] = x[r * inner + c];
}

}  // namespace photon::vec

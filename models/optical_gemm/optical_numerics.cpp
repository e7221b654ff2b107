#include "models/optical_gemm/optical_numerics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace photon::optical {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1]: 53 random mantissa bits.
double unit_open0(uint64_t h) { return (static_cast<double>(h >> 11) + 1.0) * 0x1.0p-53; }

}  // namespace

uint32_t symmetric_levels(uint32_t bits) {
  if (bits <= 1) return 1;
  if (bits > 31) bits = 31;
  return (1u << (bits - 1)) - 1u;
}

float quantize_symmetric(float x, float full_scale, uint32_t bits) {
  if (!(full_scale > 0.0f)) return 0.0f;
  const double levels = symmetric_levels(bits);
  const double step = static_cast<double>(full_scale) / levels;
  double q = std::nearbyint(static_cast<double>(x) / step);
  q = std::clamp(q, -levels, levels);
  return static_cast<float>(q * step);
}

double gaussian(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t key = splitmix64(splitmix64(seed) ^ splitmix64(stream + 0x632BE59BD9B4E019ull)) ^
                       index * 0xD1B54A32D192ED03ull;
  const double u1 = unit_open0(splitmix64(key));
  const double u2 = unit_open0(splitmix64(key ^ 0xA0761D6478BD642Full));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
}

void matmul_ideal(const float* a, const float* b, float* c, uint32_t m, uint32_t n, uint32_t k) {
  // i-p-j order: each c[i,j] still receives its products in increasing p (bit-identical to the
  // i-j-p triple loop), while the inner j loop is contiguous and vectorises across outputs.
  for (uint32_t i = 0; i < m; ++i) {
    float* cr = c + static_cast<size_t>(i) * n;
    const float* ar = a + static_cast<size_t>(i) * k;
    for (uint32_t p = 0; p < k; ++p) {
      const float av = ar[p];
      const float* br = b + static_cast<size_t>(p) * n;
      for (uint32_t j = 0; j < n; ++j) cr[j] += av * br[j];
    }
  }
}

void matmul_physical(const float* a, const float* bt, float* c, uint32_t m, uint32_t n, uint32_t k,
                     const PhysicalParams& p, uint64_t stream) {
  const uint32_t cols = std::max<uint32_t>(p.cols, 1), rows = std::max<uint32_t>(p.rows, 1);
  std::vector<float> qa, qb;
  for (uint32_t k0 = 0, kt = 0; k0 < k; k0 += cols, ++kt) {
    const uint32_t kc = std::min(cols, k - k0);
    // Input tile m x kc: per-tile DAC full scale, then quantise.
    float fs_x = 0.0f;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t q = 0; q < kc; ++q)
        fs_x = std::max(fs_x, std::fabs(a[static_cast<size_t>(i) * k + k0 + q]));
    qa.resize(static_cast<size_t>(m) * kc);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t q = 0; q < kc; ++q)
        qa[static_cast<size_t>(i) * kc + q] =
            quantize_symmetric(a[static_cast<size_t>(i) * k + k0 + q], fs_x, p.dac_bits);
    for (uint32_t j0 = 0; j0 < n; j0 += rows) {
      const uint32_t nr = std::min(rows, n - j0);
      // Weight tile kc x nr.
      float fs_w = 0.0f;
      for (uint32_t j = 0; j < nr; ++j)
        for (uint32_t q = 0; q < kc; ++q)
          fs_w = std::max(fs_w, std::fabs(bt[static_cast<size_t>(j0 + j) * k + k0 + q]));
      qb.resize(static_cast<size_t>(nr) * kc);
      for (uint32_t j = 0; j < nr; ++j)
        for (uint32_t q = 0; q < kc; ++q)
          qb[static_cast<size_t>(j) * kc + q] =
              quantize_symmetric(bt[static_cast<size_t>(j0 + j) * k + k0 + q], fs_w, p.weight_bits);
      // Output full scale of the cols-long optical dot product.
      const double fs_out = static_cast<double>(cols) * fs_x * fs_w;
      const double sigma = p.noise_std * fs_out;
      for (uint32_t i = 0; i < m; ++i) {
        const float* ar = qa.data() + static_cast<size_t>(i) * kc;
        for (uint32_t j = 0; j < nr; ++j) {
          const float* br = qb.data() + static_cast<size_t>(j) * kc;
          double dot = 0.0;  // analog: no rounding inside the optical dot product
          for (uint32_t q = 0; q < kc; ++q) dot += static_cast<double>(ar[q]) * br[q];
          if (sigma > 0.0) {
            const uint64_t index = (static_cast<uint64_t>(kt) * m + i) * n + (j0 + j);
            dot += sigma * gaussian(p.seed, stream, index);
          }
          const double clamped = std::clamp(dot, -fs_out, fs_out);
          const float y =
              quantize_symmetric(static_cast<float>(clamped), static_cast<float>(fs_out), p.adc_bits);
          c[static_cast<size_t>(i) * n + j0 + j] += y;  // electronic fp32 accumulation
        }
      }
    }
  }
}

}  // namespace photon::optical

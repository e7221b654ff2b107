#include "models/optical_gemm/optical_numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace photon::optical {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMaxFloat = std::numeric_limits<float>::max();

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

namespace {

// Register-blocked kernel of matmul_ideal: an MR x NR tile of C is held in vector registers
// while p runs over a K block in increasing order; K blocks are visited in increasing order and
// C is stored between them. Every c[i,j] therefore receives exactly the sequence
// c = fl(c + fl(a[i,p] * b[p,j])), p = 0, 1, ..., k-1 of the plain loop (the multiply and the add
// rounded separately: this file is compiled with -ffp-contract=off), so the result is bit-identical
// to the triple loop; only the memory traffic changes (packed panels, GotoBLAS-style blocking:
// Goto and van de Geijn, "Anatomy of High-Performance Matrix Multiplication", ACM TOMS 34(3), 2008).
constexpr uint32_t kMR = 4;     // rows of the register tile
constexpr uint32_t kNR = 16;    // columns of the register tile (two 8-float vectors)
constexpr uint32_t kKC = 256;   // K block: a packed panel of B (kKC x kNR floats) stays in L1
constexpr uint32_t kMC = 128;   // rows per packed A block (kMC x kKC floats, 128 KiB, in L2)
typedef float v8 __attribute__((vector_size(32)));

// c_tile[kMR x kNR] (row stride ldc) += ap[p][kMR] * bp[p][kNR] over p < kc.
__attribute__((target_clones("avx2", "default")))
void micro_kernel(const float* ap, const float* bp, float* ct, uint32_t kc) {
  v8 acc[kMR][2];
  for (uint32_t r = 0; r < kMR; ++r)
    for (uint32_t h = 0; h < 2; ++h) std::memcpy(&acc[r][h], ct + r * kNR + h * 8, sizeof(v8));
  for (uint32_t p = 0; p < kc; ++p) {
    v8 b0, b1;
    std::memcpy(&b0, bp + size_t(p) * kNR, sizeof(v8));
    std::memcpy(&b1, bp + size_t(p) * kNR + 8, sizeof(v8));
    for (uint32_t r = 0; r < kMR; ++r) {
      const float av = ap[size_t(p) * kMR + r];
      const v8 a = {av, av, av, av, av, av, av, av};
      acc[r][0] = acc[r][0] + a * b0;
      acc[r][1] = acc[r][1] + a * b1;
    }
  }
  for (uint32_t r = 0; r < kMR; ++r)
    for (uint32_t h = 0; h < 2; ++h) std::memcpy(ct + r * kNR + h * 8, &acc[r][h], sizeof(v8));
}

}  // namespace

void matmul_ideal(const float* a, const float* b, float* c, uint32_t m, uint32_t n, uint32_t k) {
  if (m == 0 || n == 0 || k == 0) return;
  const uint32_t n_panels = (n + kNR - 1) / kNR;
  std::vector<float> bp(size_t(std::min(k, kKC)) * kNR * n_panels);
  std::vector<float> ap(size_t(std::min(k, kKC)) * kMR * ((std::min(m, kMC) + kMR - 1) / kMR));
  float ct[kMR * kNR];
  for (uint32_t p0 = 0; p0 < k; p0 += kKC) {
    const uint32_t kc = std::min(kKC, k - p0);
    // Pack B[p0:p0+kc, :] into column panels of kNR, zero-padded past n.
    for (uint32_t jp = 0; jp < n_panels; ++jp)
      for (uint32_t p = 0; p < kc; ++p) {
        float* dst = bp.data() + (size_t(jp) * kc + p) * kNR;
        const float* src = b + size_t(p0 + p) * n + size_t(jp) * kNR;
        const uint32_t w = std::min(kNR, n - jp * kNR);
        for (uint32_t j = 0; j < w; ++j) dst[j] = src[j];
        for (uint32_t j = w; j < kNR; ++j) dst[j] = 0.0f;
      }
    for (uint32_t i0 = 0; i0 < m; i0 += kMC) {
      const uint32_t mc = std::min(kMC, m - i0);
      const uint32_t row_panels = (mc + kMR - 1) / kMR;
      // Pack A[i0:i0+mc, p0:p0+kc] into row panels of kMR, p-major, zero-padded past m.
      for (uint32_t ip = 0; ip < row_panels; ++ip)
        for (uint32_t p = 0; p < kc; ++p)
          for (uint32_t r = 0; r < kMR; ++r) {
            const uint32_t i = i0 + ip * kMR + r;
            ap[(size_t(ip) * kc + p) * kMR + r] = i < m ? a[size_t(i) * k + p0 + p] : 0.0f;
          }
      for (uint32_t jp = 0; jp < n_panels; ++jp) {
        const uint32_t j0 = jp * kNR, w = std::min(kNR, n - j0);
        for (uint32_t ip = 0; ip < row_panels; ++ip) {
          const uint32_t r0 = i0 + ip * kMR, h = std::min(kMR, m - r0);
          for (uint32_t r = 0; r < kMR; ++r)
            for (uint32_t j = 0; j < kNR; ++j)
              ct[r * kNR + j] = (r < h && j < w) ? c[size_t(r0 + r) * n + j0 + j] : 0.0f;
          micro_kernel(ap.data() + size_t(ip) * kc * kMR, bp.data() + size_t(jp) * kc * kNR, ct, kc);
          for (uint32_t r = 0; r < h; ++r)
            for (uint32_t j = 0; j < w; ++j) c[size_t(r0 + r) * n + j0 + j] = ct[r * kNR + j];
        }
      }
    }
  }
}

void matmul_physical(const float* a, const float* bt, float* c, uint32_t m, uint32_t n, uint32_t k,
                     const PhysicalParams& p, uint64_t stream) {
  const uint32_t cols = std::max<uint32_t>(p.cols, 1), rows = std::max<uint32_t>(p.rows, 1);
  std::vector<float> qa, qb;
  for (uint32_t k0 = 0, kt = 0; k0 < k; k0 += cols, ++kt) {
    const uint32_t kc = std::min(cols, k - k0);
    // Input tile m x kc: per-tile DAC full scale over the finite inputs, then quantise (an
    // infinite input saturates at the full scale, as a DAC's output does; NaN stays NaN and
    // reaches only its own row).
    float fs_x = 0.0f;
    bool inf_x = false;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t q = 0; q < kc; ++q) {
        const float v = std::fabs(a[static_cast<size_t>(i) * k + k0 + q]);
        if (v == kInf) inf_x = true;
        else fs_x = std::max(fs_x, v);
      }
    if (inf_x && fs_x == 0.0f) fs_x = kMaxFloat;
    qa.resize(static_cast<size_t>(m) * kc);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t q = 0; q < kc; ++q)
        qa[static_cast<size_t>(i) * kc + q] =
            quantize_symmetric(a[static_cast<size_t>(i) * k + k0 + q], fs_x, p.dac_bits);
    for (uint32_t j0 = 0; j0 < n; j0 += rows) {
      const uint32_t nr = std::min(rows, n - j0);
      // Weight tile kc x nr.
      float fs_w = 0.0f;
      bool inf_w = false;
      for (uint32_t j = 0; j < nr; ++j)
        for (uint32_t q = 0; q < kc; ++q) {
          const float v = std::fabs(bt[static_cast<size_t>(j0 + j) * k + k0 + q]);
          if (v == kInf) inf_w = true;
          else fs_w = std::max(fs_w, v);
        }
      if (inf_w && fs_w == 0.0f) fs_w = kMaxFloat;
      qb.resize(static_cast<size_t>(nr) * kc);
      for (uint32_t j = 0; j < nr; ++j)
        for (uint32_t q = 0; q < kc; ++q)
          qb[static_cast<size_t>(j) * kc + q] =
              quantize_symmetric(bt[static_cast<size_t>(j0 + j) * k + k0 + q], fs_w, p.weight_bits);
      // Output full scale of the cols-long optical dot product: the ADC's range, which the
      // converter's fp32 output saturates at (beyond the largest float it reads the largest).
      const double fs_out = std::min(static_cast<double>(cols) * fs_x * fs_w, static_cast<double>(kMaxFloat));
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

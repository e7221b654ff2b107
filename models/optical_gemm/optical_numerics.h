// Functional numerics of the optical GEMM engine: pure functions, no SystemC, no timing.
//
// Operands are dense fp32: a is m x k row-major; matmul_ideal takes b (k x n row-major),
// matmul_physical takes bt = B transposed (n x k row-major, so every optical dot product reads
// two contiguous k-long rows); c is m x n row-major and holds the initial accumulator (0 or the
// old C) on entry and the result on return.
//
// ideal:    c[i,j] += sum_p a[i,p]*b[p,j], fp32 multiply and fp32 add in increasing p, so a
//           chain of K-split commands with kAccumulate equals one long command bit for bit.
// physical: the array computes one rows x cols weight tile at a time (n-tile of `rows` outputs,
//           k-tile of `cols` reduction terms). Per k-tile the inputs are quantised to dac_bits
//           (symmetric, full scale = max |a| over the m x kc input tile), per weight tile the
//           weights to weight_bits (full scale = max |b| over the kc x nr tile); the optical dot
//           product is exact (analog); Gaussian noise N(0, (noise_std * FS)^2) is added, where
//           FS = cols * fs_in * fs_w is the largest |dot| the cols-long optical dot product can
//           produce; the ADC clamps to [-FS, FS] and quantises to adc_bits. Partial sums of the
//           K tiles are accumulated electronically in fp32 in k-tile order.
//           Noise model: zero-mean additive Gaussian output noise, the output-noise term of
//           the photonic layer models of torchonn (pytorch-onn, Gu et al.); expressing its std as a
//           fraction of the ADC full scale is this model's choice (a detector/TIA noise floor
//           does not scale with the signal). README.md has the details.
#pragma once

#include <cstddef>
#include <cstdint>

namespace photon::optical {

/// Quantisation levels per sign of a symmetric `bits`-bit quantiser: 2^(bits-1) - 1
/// (at least 1, so 1 bit gives the ternary {-fs, 0, fs}).
uint32_t symmetric_levels(uint32_t bits);

/// Symmetric uniform quantiser: step = full_scale / symmetric_levels(bits);
/// returns round(x / step) * step, clamped to [-full_scale, full_scale]. full_scale <= 0 -> 0.
/// Error |q - x| <= step / 2 for |x| <= full_scale.
float quantize_symmetric(float x, float full_scale, uint32_t bits);

/// Standard normal sample that is a pure function of (seed, stream, index): splitmix64 hashing
/// (Steele et al., OOPSLA 2014) and the Box-Muller transform. Same arguments -> same value on
/// every platform with IEEE-754 double.
double gaussian(uint64_t seed, uint64_t stream, uint64_t index);

/// Parameters of the physical numerics (from OpticalGemmConfig).
struct PhysicalParams {
  uint32_t rows = 32;        ///< array rows: outputs per weight tile
  uint32_t cols = 32;        ///< array columns: reduction terms per weight tile
  uint32_t dac_bits = 8;     ///< input quantisation, bits
  uint32_t weight_bits = 8;  ///< weight quantisation, bits
  uint32_t adc_bits = 8;     ///< output quantisation, bits
  double noise_std = 0.01;   ///< noise std, fraction of the output full scale FS
  uint64_t seed = 1;         ///< noise seed
};

/// Exact fp32 matmul: c[m x n] += a[m x k] * b[k x n] (b NOT transposed here: row-major
/// k x n), each c[i,j] accumulating its products in increasing p (see file comment).
void matmul_ideal(const float* a, const float* b, float* c, uint32_t m, uint32_t n, uint32_t k);

/// Physical matmul (see file comment). `stream` selects an independent noise sequence (the
/// engine passes its command count), so the same (seed, stream, operands) give the same c.
void matmul_physical(const float* a, const float* bt, float* c, uint32_t m, uint32_t n, uint32_t k,
                     const PhysicalParams& p, uint64_t stream);

}  // namespace photon::optical

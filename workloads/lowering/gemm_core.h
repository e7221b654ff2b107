// The GEMM core of the Conv, Gemm and MatMul lowerings (docs/lowering.md, "GEMM core"): a
// problem Y = alpha * A * B (+ bias) (+ beta * C) in HBM, its tiling to the optical array and the
// scratchpad (gemm_tiling.cpp) and its double-buffered command steps (gemm_emit.cpp). Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

/// One 2-D convolution of a C x H x W image (ONNX Conv, docs/Operators.md): kernel kh x kw with
/// taps dh, dw apart (dilations), strides sh, sw, top/left padding pt, pl, output OH x OW.
struct ConvGeom {
  int64_t C = 0, H = 0, W = 0, kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, OH = 0, OW = 0, dh = 1, dw = 1;
  /// Input rows / columns one kernel window spans: dilation * (k - 1) + 1.
  int64_t ext_h() const { return dh * (kh - 1) + 1; }
  int64_t ext_w() const { return dw * (kw - 1) + 1; }
};

/// One GEMM problem: Y = alpha * A[M x K] * B[K x N] (+ bias[N]) (+ beta * Cadd), fp32, in HBM.
struct MmProblem {
  int64_t M = 0, N = 0, K = 0;
  bool conv = false;  ///< A is the im2col of a C x H x W image at a_addr
  ConvGeom cg;
  uint64_t a_addr = 0;
  int64_t a_ld = 0;      ///< elements between rows of A as stored
  bool a_trans = false;  ///< A stored K x M
  uint64_t b_addr = 0;
  int64_t b_ld = 0;
  bool b_trans = false;  ///< B stored N x K (ONNX conv weights, Gemm transB)
  bool has_bias = false;
  uint64_t bias_addr = 0;
  float alpha = 1.0f;
  // Additive C operand of Gemm: element (m, n) at cadd_addr + (m*cs_m + n*cs_n)*4.
  bool has_cadd = false;
  uint64_t cadd_addr = 0;
  int64_t cs_m = 0, cs_n = 0;
  float beta = 1.0f;
  uint64_t y_addr = 0;
  int64_t y_ld = 0;
  bool y_trans = false;  ///< Y stored N x M (conv output, NCHW)
};

/// Tile sizes of one problem and the scratchpad they take.
struct Tiling {
  int64_t mt = 0, nt = 0, kt = 0;  ///< tile sizes (conv: mt = rows * OW, kt = cc * kh * kw)
  int64_t rows = 0, cc = 0;        ///< conv: output rows and input channels per tile
  bool resident = false;           ///< whole B (+ bias) loaded once per problem (ping/pong)
  uint64_t slot_bytes = 0, total_bytes = 0;
};

/// Scratchpad offsets of the buffers of one tiling (per slot, ping = 0, pong = 1).
struct Layout {
  uint32_t a_in = 0, a = 0, b = 0, bias = 0, cadd = 0, tout = 0;  ///< per slot, relative
  uint32_t slot[2] = {0, 0};
  uint32_t acc[2] = {0, 0};
  uint32_t res[2] = {0, 0};  ///< resident B; resident bias follows B
  uint64_t res_b_bytes = 0;
};

/// 1x1 kernel, stride 1, no padding: GEMM reads the input band directly (no im2col).
inline bool pointwise(const ConvGeom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0;
}

/// Input rows the kernel windows of `rows` output rows span.
inline int64_t band_rows(const ConvGeom& g, int64_t rows) {
  return std::min(g.H, (rows - 1) * g.sh + g.ext_h());
}

/// Statistics for the detail string and tests.
struct MmStats {
  uint64_t gemm_cmds = 0, weight_tiles = 0, reused = 0, problems = 0;
};

/// Tracks the weight tile programmed in the optical array so kReuseWeights is set only when the
/// previous GEMM command programmed exactly the same single-array-tile B operand.
struct WeightTracker {
  bool valid = false;
  uint32_t k = 0, n = 0, ldb = 0;
  uint8_t tb = 0;
  uint64_t generation = 0;  ///< HBM address of the B block last programmed
};

/// Chooses tile sizes that fit the scratchpad (double-buffered): shrink M to the rows whose
/// streaming time covers a weight programming (at least 256), then drop weight residency, then
/// halve N and K down to the array, then everything down to 1. Error if one minimal tile does not fit.
Tiling choose_tiling(Ctx& c, const MmProblem& p);
/// Carves the scratchpad for tiling `t` (SpmArena): per slot the input band, A, B, bias, C and
/// transposed-output tiles as needed; two accumulators; the resident weights.
Layout make_layout(Ctx& c, const MmProblem& p, const Tiling& t);
/// Emits the steps of one problem. `instance` counts problems of this op (resident parity);
/// `out_tiles` counts output tiles across problems (accumulator parity).
void emit_problem(Ctx& c, Pipeline& pl, const MmProblem& p, const Tiling& t, const Layout& L,
                  uint64_t instance, uint64_t& out_tiles, WeightTracker& wt, MmStats& st);

}  // namespace photon::lowering

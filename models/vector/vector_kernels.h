// Vector-unit arithmetic: pure fp32 kernels on dense arrays, no SystemC, no timing.
//
// Semantics follow the ONNX operator definitions (opset 17+): Gelu uses the exact erf form
// 0.5 x (1 + erf(x / sqrt 2)); Sigmoid 1 / (1 + e^-x) (evaluated as e^x / (1 + e^x) for x < 0,
// the same value without overflow); Silu x * sigmoid(x); Softmax over the last axis with
// max subtraction; LayerNormalization over the last axis, population variance, stash in
// higher precision; Reduce* over the last axis; MaxPool / AveragePool with explicit pads.
// Element-wise results are computed in fp32 with the C++ <cmath> float functions. Sums in
// reductions, Softmax and LayerNorm accumulate in fp64 and round once to fp32 (ONNX does not
// fix a summation order; fp64 is closer to the exact value than any fp32 order).
// Which op is of which class (unary, binary, scalar, row, pooling, ...) and which ops are
// transcendental is the vector-op table of isa/vector_ops.h.
#pragma once

#include <cstdint>

#include "isa/command.h"

namespace photon::vec {

/// y = f(x) for the unary ops (kCopy .. kAbs).
float unary(uint8_t op, float x);
/// y = a (op) b for the binary ops (kAdd .. kPow).
float binary(uint8_t op, float a, float b);
/// Scalar ops: AddScalar x+imm0, MulScalar x*imm0, Clip min(max(x, imm0), imm1),
/// LeakyRelu x >= 0 ? x : imm0*x, PowScalar pow(x, imm0).
float scalar(uint8_t op, float x, float imm0, float imm1);

/// Softmax of each of `rows` rows of `inner` elements: y = e^(x - max) / sum e^(x - max).
void softmax_rows(const float* x, float* y, uint64_t rows, uint32_t inner);
/// LayerNorm of each row: y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c].
void layernorm_rows(const float* x, const float* gamma, const float* beta, float eps, float* y, uint64_t rows,
                    uint32_t inner);
/// ReduceSum / ReduceMean / ReduceMax of each row into y[row].
void reduce_rows(uint8_t op, const float* x, float* y, uint64_t rows, uint32_t inner);

/// Pooling / im2col geometry: input C x H x W, output windows oh x ow, kernel kh x kw,
/// strides sh, sw; input row of window oy, kernel row i is oy*sh - pad_top + i (likewise x).
struct Window2d {
  uint64_t c = 0;
  uint32_t h = 0, w = 0, oh = 0, ow = 0, kh = 0, kw = 0, sh = 1, sw = 1, pad_top = 0, pad_left = 0;
  uint32_t dh = 1, dw = 1;  ///< im2col tap spacing (ONNX Conv dilations); pooling ignores it
};
Window2d window_of(const pcs::Vector& v);

/// MaxPool: y[c, oy, ox] = max over the window's in-image elements (pads never win).
void max_pool(const float* x, float* y, const Window2d& g);
/// AveragePool: sum of in-image elements / (count_include_pad ? kh*kw : in-image count).
void avg_pool(const float* x, float* y, const Window2d& g, bool count_include_pad);
/// im2col: y[(c*kh + i)*kw + j][oy*ow + ox] = x[c][oy*sh - pad_top + i*dh][ox*sw - pad_left + j*dw],
/// 0 outside the image (Caffe / ONNX reference order; dh, dw: ONNX Conv dilations).
void im2col(const float* x, float* y, const Window2d& g);
/// y (inner x rows) = transpose of x (rows x inner).
void transpose(const float* x, float* y, uint64_t rows, uint32_t inner);

}  // namespace photon::vec

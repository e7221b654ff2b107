// The vector-op table (vector_ops.h). Semantics of each op: models/vector/README.md.
#include "isa/vector_ops.h"

#include <array>

namespace photon::pcs {

namespace {
using V = Vector;
using C = VectorClass;
}  // namespace

const std::vector<VectorOpInfo>& vector_ops() {
  static const std::vector<VectorOpInfo> t = {
      // op, assembly name, class, transcendental
      {V::kCopy, "copy", C::Unary, false},
      {V::kRelu, "relu", C::Unary, false},
      {V::kGelu, "gelu", C::Unary, true},
      {V::kSilu, "silu", C::Unary, true},
      {V::kSigmoid, "sigmoid", C::Unary, true},
      {V::kTanh, "tanh", C::Unary, true},
      {V::kErf, "erf", C::Unary, true},
      {V::kExp, "exp", C::Unary, true},
      {V::kSqrt, "sqrt", C::Unary, false},
      {V::kRecip, "recip", C::Unary, false},
      {V::kNeg, "neg", C::Unary, false},
      {V::kAbs, "abs", C::Unary, false},
      {V::kAdd, "add", C::Binary, false},
      {V::kSub, "sub", C::Binary, false},
      {V::kMul, "mul", C::Binary, false},
      {V::kDiv, "div", C::Binary, false},
      {V::kMax, "max", C::Binary, false},
      {V::kMin, "min", C::Binary, false},
      {V::kPow, "pow", C::Binary, true},
      {V::kAddScalar, "add_scalar", C::Scalar, false},
      {V::kMulScalar, "mul_scalar", C::Scalar, false},
      {V::kClip, "clip", C::Scalar, false},
      {V::kLeakyRelu, "leaky_relu", C::Scalar, false},
      {V::kPowScalar, "pow_scalar", C::Scalar, true},
      {V::kSoftmax, "softmax", C::Softmax, false},
      {V::kLayerNorm, "layer_norm", C::LayerNorm, false},
      {V::kReduceSum, "reduce_sum", C::Reduce, false},
      {V::kReduceMean, "reduce_mean", C::Reduce, false},
      {V::kReduceMax, "reduce_max", C::Reduce, false},
      {V::kMaxPool, "max_pool", C::Pool, false},
      {V::kAvgPool, "avg_pool", C::Pool, false},
      {V::kIm2col, "im2col", C::Im2col, false},
      {V::kTranspose, "transpose", C::Transpose, false},
  };
  return t;
}

const VectorOpInfo* vector_op_info(uint8_t op) {
  static const std::array<const VectorOpInfo*, 256> by_op = [] {
    std::array<const VectorOpInfo*, 256> a{};
    for (const auto& row : vector_ops()) a[row.op] = &row;
    return a;
  }();
  return by_op[op];
}

const VectorOpInfo* vector_op_by_name(const std::string& name) {
  for (const auto& row : vector_ops())
    if (name == row.name) return &row;
  return nullptr;
}

}  // namespace photon::pcs

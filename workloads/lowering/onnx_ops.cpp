// The ONNX op table (onnx_ops.h). A row names the op type, its lowering function, the vector kernel
// that function applies, and, for views and ops with particular checks, the view predicate and the
// validator. An element-wise op that an existing kernel computes is one row here.
#include "workloads/lowering/onnx_ops.h"

#include <unordered_map>

#include "isa/command.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

namespace {
using V = pcs::Vector;
}  // namespace

const std::vector<OnnxOpRow>& onnx_op_rows() {
  static const std::vector<OnnxOpRow> t = {
      // GEMM core on the optical engine (lower_matmul.cpp).
      {"Conv", lower_conv},
      {"Gemm", lower_gemm},
      {"MatMul", lower_matmul},
      // Element-wise on the vector unit (lower_elementwise.cpp): y = kernel(x).
      {"Abs", lower_unary, V::kAbs},
      {"Erf", lower_unary, V::kErf},
      {"Exp", lower_unary, V::kExp},
      {"Neg", lower_unary, V::kNeg},
      {"Reciprocal", lower_unary, V::kRecip},
      {"Relu", lower_unary, V::kRelu},
      {"Sigmoid", lower_unary, V::kSigmoid},
      {"Silu", lower_unary, V::kSilu},
      {"Sqrt", lower_unary, V::kSqrt},
      {"Tanh", lower_unary, V::kTanh},
      {"Gelu", lower_gelu, V::kGelu},
      {"LeakyRelu", lower_leaky_relu, V::kLeakyRelu},
      {"Clip", lower_clip, V::kClip},
      // Binary and n-ary with ONNX broadcasting: y = x0 kernel x1 [kernel x2 ...].
      {"Add", lower_binary, V::kAdd},
      {"Div", lower_binary, V::kDiv},
      {"Max", lower_binary, V::kMax},
      {"Min", lower_binary, V::kMin},
      {"Mul", lower_binary, V::kMul},
      {"Pow", lower_binary, V::kPow},
      {"Sub", lower_binary, V::kSub},
      {"Sum", lower_binary, V::kAdd},
      {"Mean", lower_mean, V::kAdd},
      {"BatchNormalization", lower_batchnorm},
      // Row ops and pooling (lower_rowops.cpp).
      {"Softmax", lower_softmax, V::kSoftmax},
      {"LayerNormalization", lower_layernorm, V::kLayerNorm},
      {"ReduceMax", lower_reduce, V::kReduceMax},
      {"ReduceMean", lower_reduce, V::kReduceMean},
      {"ReduceSum", lower_reduce, V::kReduceSum},
      {"GlobalAveragePool", lower_global_pool, V::kReduceMean},
      {"GlobalMaxPool", lower_global_pool, V::kReduceMax},
      {"AveragePool", lower_pool, V::kAvgPool},
      {"MaxPool", lower_pool, V::kMaxPool},
      {"LRN", lower_lrn},
      {"Pad", lower_pad},
      // Data movement (lower_data.cpp).
      {"Concat", lower_concat},
      {"Expand", lower_expand},
      {"Gather", lower_gather},
      {"Slice", lower_slice},
      {"Split", lower_split},
      {"Transpose", lower_transpose},
      // Free views: the output is the input's bytes (memory_plan.cpp).
      {"Reshape", nullptr, kNoKernel, view_always, validate_reshape},
      {"Flatten", nullptr, kNoKernel, view_always},
      {"Identity", nullptr, kNoKernel, view_always},
      {"Squeeze", nullptr, kNoKernel, view_always},
      {"Unsqueeze", nullptr, kNoKernel, view_always},
      {"Dropout", nullptr, kNoKernel, view_dropout},
      {"Cast", nullptr, kNoKernel, view_cast},
  };
  return t;
}

const OnnxOpRow* onnx_op(const std::string& op_type) {
  static const std::unordered_map<std::string, const OnnxOpRow*> by_name = [] {
    std::unordered_map<std::string, const OnnxOpRow*> m;
    for (const auto& row : onnx_op_rows()) m.emplace(row.op_type, &row);
    return m;
  }();
  auto it = by_name.find(op_type);
  return it == by_name.end() ? nullptr : it->second;
}

}  // namespace photon::lowering

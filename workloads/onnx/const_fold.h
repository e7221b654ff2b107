// Constant folding of single ONNX nodes: evaluates a node whose inputs are all constants (Shape and
// Size only need a static input shape) on ConstValues. Op semantics follow the ONNX operator
// specification (onnx/docs/Operators.md) for opsets 9..17, including the attribute-to-input moves
// (Slice opset 10, Squeeze/Unsqueeze opset 13, Shape start/end opset 15).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "workloads/onnx/const_value.h"

namespace photon::onnx_frontend {

/// Op types fold_node() evaluates (the rows of its table in const_fold.cpp): Constant,
/// ConstantOfShape, Identity, Shape, Size, Cast, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
/// Expand, Slice, Gather, Concat, Range, Where, Add, Sub, Mul, Div, Pow, Equal, Less, Greater, Neg,
/// Sqrt.
bool is_foldable_op(const std::string& op_type);

/// True for the foldable ops that read only the static shape of input 0, which need not be a
/// constant (Shape, Size).
bool folds_from_input_shape(const std::string& op_type);

/// One input of a node being folded: `value` is null for an omitted optional input and for the
/// non-constant input of Shape/Size, whose static `shape` is then given.
struct FoldInput {
  const ConstValue* value = nullptr;
  const std::vector<int64_t>* shape = nullptr;
};

/// Evaluates `node` (default domain, opset `opset`) and fills one ConstValue per output. Returns
/// false and leaves `out` empty when the node must stay in the graph: a splat result would have to
/// be expanded beyond max(kMaxFoldElements, dense input elements), an integer division by zero,
/// or a Cast to an unsupported type. Throws Error (without node context) for malformed nodes:
/// bad axes, Reshape size mismatch, non-broadcastable shapes, missing required inputs.
bool fold_node(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& in,
               std::vector<ConstValue>* out);

}  // namespace photon::onnx_frontend

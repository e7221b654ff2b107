// Internals of the constant folder (const_fold.h): the evaluators its op table calls and the
// helpers they share. Op semantics: the ONNX operator specification (onnx/docs/Operators.md),
// opsets 9..17. Not a public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "workloads/onnx/const_fold.h"
#include "workloads/onnx/const_value.h"

namespace photon::onnx_frontend {

using Shape = std::vector<int64_t>;

// ---- attributes, inputs, shapes (fold_support.cpp) ----

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);
int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t dflt);
/// Fills `out` with the INTS attribute `name`; false if the node has none.
bool attr_ints(const onnx::NodeProto& n, const std::string& name, Shape* out);
/// axis + rank for a negative axis; Error "<what> <axis> out of range for rank <rank>".
int64_t normalize_axis(int64_t axis, int64_t rank, const char* what);
/// Input k's value; Error "input k is missing" when it is omitted.
const ConstValue& need(const std::vector<FoldInput>& in, size_t k);
/// True when input k is given.
bool has(const std::vector<FoldInput>& in, size_t k);
/// Row-major strides (elements) of `s`.
Shape contiguous_strides(const Shape& s);
/// numpy broadcast of two shapes (ONNX "multidirectional broadcasting"); Error if they do not.
Shape broadcast_shape(const Shape& a, const Shape& b);
/// Strides of `in` seen through a broadcast to `out` (0 on broadcast dimensions).
Shape broadcast_strides(const Shape& in, const Shape& out);
/// A view of `in` with `out_shape`: element k of the result is in[base + sum idx*strides].
ConstValue strided_copy(const ConstValue& in, const Shape& out_shape, const Shape& strides, int64_t base);
/// `in` with another shape of the same element count; Error otherwise.
ConstValue with_shape(const ConstValue& in, Shape shape);
/// True when a result of `out_numel` elements may be materialised: at most
/// max(kMaxFoldElements, the dense elements of the inputs).
bool within_budget(int64_t out_numel, const std::vector<FoldInput>& in);
/// The values of a TENSOR attribute.
ConstValue decode(const onnx::TensorProto& t);

// Visits every element of `out_shape` in row-major order, calling f(out_flat, offsets) where
// offsets[j] = base[j] + sum_d index[d] * strides[j][d].
template <typename F>
void strided_loop(const Shape& out_shape, const std::vector<Shape>& strides, Shape off, F f) {
  const int64_t n = shape_numel(out_shape);
  const size_t r = out_shape.size();
  Shape idx(r, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(flat, off);
    for (size_t d = r; d-- > 0;) {
      for (size_t j = 0; j < strides.size(); ++j) off[j] += strides[j][d];
      if (++idx[d] < out_shape[d]) break;
      for (size_t j = 0; j < strides.size(); ++j) off[j] -= strides[j][d] * out_shape[d];
      idx[d] = 0;
    }
  }
}

// ---- element-wise arithmetic (fold_arith.cpp) ----

enum class Bin { Add, Sub, Mul, Div, Pow, Equal, Less, Greater };

/// a (op) b with broadcasting; false (not folded) on an integer division by zero or a result
/// over the budget.
bool fold_binary(Bin op, const std::vector<FoldInput>& in, std::vector<ConstValue>* out);
/// Neg (`neg`) or Sqrt; Sqrt of an integer tensor is not folded (false).
bool fold_unary(const ConstValue& a, bool neg, std::vector<ConstValue>* out);
/// Cast to element type `to`; false for a type that is neither integer nor float.
bool fold_cast(const ConstValue& a, int32_t to, std::vector<ConstValue>* out);
/// Where(condition, x, y) with broadcasting.
bool fold_where(const std::vector<FoldInput>& in, std::vector<ConstValue>* out);

// ---- shape and data movement (fold_data.cpp) ----

/// Shape (with opset-15 start/end) of a static shape.
ConstValue fold_shape(const Shape& s, const onnx::NodeProto& node, int64_t opset);
/// Reshape's target shape: 0 copies the input dimension (unless allowzero), one -1 is inferred.
Shape reshape_target(const Shape& in, const Shape& spec, bool allowzero);
ConstValue fold_squeeze(const ConstValue& a, const Shape* axes_in);
ConstValue fold_unsqueeze(const ConstValue& a, const Shape& axes_in);
ConstValue fold_transpose(const ConstValue& a, Shape perm);
ConstValue fold_slice(const ConstValue& a, const Shape& starts, const Shape& ends, Shape axes, Shape steps);
bool fold_gather(const ConstValue& a, const ConstValue& idx, int64_t axis_attr,
                 const std::vector<FoldInput>& in, std::vector<ConstValue>* out);
bool fold_concat(const std::vector<FoldInput>& in, int64_t axis_attr, std::vector<ConstValue>* out);
bool fold_range(const std::vector<FoldInput>& in, std::vector<ConstValue>* out);
bool fold_constant(const onnx::NodeProto& node, std::vector<ConstValue>* out);
ConstValue fold_constant_of_shape(const onnx::NodeProto& node, const ConstValue& shape_in);

}  // namespace photon::onnx_frontend

// Constant folding of single ONNX nodes (const_fold.h): one table from op type to its fold rule.
// The evaluators are in fold_arith.cpp (element-wise) and fold_data.cpp (shape and data movement).
#include "workloads/onnx/const_fold.h"

#include <unordered_map>

#include "base/error.h"
#include "workloads/onnx/fold_ops.h"

namespace photon::onnx_frontend {
namespace {

using TP = onnx::TensorProto;

// ---- the table: one rule per op type ----

/// The arguments of one fold.
struct Call {
  const onnx::NodeProto& node;
  int64_t opset;
  const std::vector<FoldInput>& in;
  std::vector<ConstValue>* out;
  const ConstValue& arg(size_t k) const { return need(in, k); }
  bool emit(ConstValue v) const {
    out->push_back(std::move(v));
    return true;
  }
};

const Shape& input_shape(const Call& c) {
  if (c.in.empty() || !c.in[0].shape) throw Error(c.node.op_type() + ": input shape unknown");
  return *c.in[0].shape;
}

// Squeeze/Unsqueeze axes: the attribute before opset 13, input 1 from opset 13; false if absent.
bool squeeze_axes(const Call& c, Shape* axes) {
  if (c.opset < 13) return attr_ints(c.node, "axes", axes);
  if (!has(c.in, 1)) return false;
  *axes = c.in[1].value->ints();
  return true;
}

bool fold_constant_op(const Call& c) { return fold_constant(c.node, c.out); }
bool fold_constant_of_shape_op(const Call& c) { return c.emit(fold_constant_of_shape(c.node, c.arg(0))); }
bool fold_shape_op(const Call& c) { return c.emit(fold_shape(input_shape(c), c.node, c.opset)); }
bool fold_size_op(const Call& c) { return c.emit(ConstValue::make_ints({}, {shape_numel(input_shape(c))})); }
bool fold_identity_op(const Call& c) { return c.emit(c.arg(0)); }
bool fold_cast_op(const Call& c) {
  return fold_cast(c.arg(0), static_cast<int32_t>(attr_int(c.node, "to", TP::FLOAT)), c.out);
}
bool fold_neg_op(const Call& c) { return fold_unary(c.arg(0), true, c.out); }
bool fold_sqrt_op(const Call& c) { return fold_unary(c.arg(0), false, c.out); }
template <Bin B>
bool fold_binary_op(const Call& c) {
  return fold_binary(B, c.in, c.out);
}

bool fold_reshape_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape spec;
  if (c.opset < 5)
    attr_ints(c.node, "shape", &spec);
  else
    spec = c.arg(1).ints();
  return c.emit(with_shape(a, reshape_target(a.shape, spec, attr_int(c.node, "allowzero", 0) != 0)));
}

bool fold_flatten_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  const auto rank = static_cast<int64_t>(a.shape.size());
  int64_t axis = attr_int(c.node, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) throw Error("Flatten: axis out of range");
  int64_t lead = 1;
  for (int64_t k = 0; k < axis; ++k) lead *= a.shape[static_cast<size_t>(k)];
  return c.emit(with_shape(a, {lead, lead ? a.numel() / lead : 0}));
}

bool fold_squeeze_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape axes;
  const bool have_axes = squeeze_axes(c, &axes);
  return c.emit(fold_squeeze(a, have_axes ? &axes : nullptr));
}

bool fold_unsqueeze_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape axes;
  if (!squeeze_axes(c, &axes)) throw Error("Unsqueeze: axes missing");
  return c.emit(fold_unsqueeze(a, axes));
}

bool fold_transpose_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape perm;
  attr_ints(c.node, "perm", &perm);
  if (!a.splat && !within_budget(a.numel(), c.in)) return false;
  return c.emit(fold_transpose(a, perm));
}

bool fold_expand_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  const Shape target = broadcast_shape(a.shape, c.arg(1).ints());
  if (!a.splat && !within_budget(shape_numel(target), c.in)) return false;
  return c.emit(strided_copy(a, target, broadcast_strides(a.shape, target), 0));
}

bool fold_slice_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape starts, ends, axes, steps;
  if (c.opset < 10) {
    attr_ints(c.node, "starts", &starts);
    attr_ints(c.node, "ends", &ends);
    attr_ints(c.node, "axes", &axes);
  } else {
    starts = c.arg(1).ints();
    ends = c.arg(2).ints();
    if (has(c.in, 3)) axes = c.in[3].value->ints();
    if (has(c.in, 4)) steps = c.in[4].value->ints();
  }
  return c.emit(fold_slice(a, starts, ends, axes, steps));
}

bool fold_gather_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  return fold_gather(a, c.arg(1), attr_int(c.node, "axis", 0), c.in, c.out);
}
bool fold_concat_op(const Call& c) { return fold_concat(c.in, attr_int(c.node, "axis", 0), c.out); }
bool fold_where_op(const Call& c) { return fold_where(c.in, c.out); }
bool fold_range_op(const Call& c) { return fold_range(c.in, c.out); }

/// How one op type folds. `from_shape`: input 0 need not be constant, its static shape is read.
struct Rule {
  bool (*fold)(const Call&);
  bool from_shape = false;
};

const std::unordered_map<std::string, Rule>& rules() {
  static const std::unordered_map<std::string, Rule> t = {
      {"Constant", {fold_constant_op}},
      {"ConstantOfShape", {fold_constant_of_shape_op}},
      {"Shape", {fold_shape_op, true}},
      {"Size", {fold_size_op, true}},
      {"Identity", {fold_identity_op}},
      {"Cast", {fold_cast_op}},
      {"Neg", {fold_neg_op}},
      {"Sqrt", {fold_sqrt_op}},
      {"Add", {fold_binary_op<Bin::Add>}},
      {"Sub", {fold_binary_op<Bin::Sub>}},
      {"Mul", {fold_binary_op<Bin::Mul>}},
      {"Div", {fold_binary_op<Bin::Div>}},
      {"Pow", {fold_binary_op<Bin::Pow>}},
      {"Equal", {fold_binary_op<Bin::Equal>}},
      {"Less", {fold_binary_op<Bin::Less>}},
      {"Greater", {fold_binary_op<Bin::Greater>}},
      {"Reshape", {fold_reshape_op}},
      {"Flatten", {fold_flatten_op}},
      {"Squeeze", {fold_squeeze_op}},
      {"Unsqueeze", {fold_unsqueeze_op}},
      {"Transpose", {fold_transpose_op}},
      {"Expand", {fold_expand_op}},
      {"Slice", {fold_slice_op}},
      {"Gather", {fold_gather_op}},
      {"Concat", {fold_concat_op}},
      {"Where", {fold_where_op}},
      {"Range", {fold_range_op}},
  };
  return t;
}

const Rule* rule_of(const std::string& op) {
  auto it = rules().find(op);
  return it == rules().end() ? nullptr : &it->second;
}

}  // namespace

bool is_foldable_op(const std::string& op_type) { return rule_of(op_type) != nullptr; }

bool folds_from_input_shape(const std::string& op_type) {
  const Rule* r = rule_of(op_type);
  return r && r->from_shape;
}

bool fold_node(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& in,
               std::vector<ConstValue>* out) {
  out->clear();
  const Rule* r = rule_of(node.op_type());
  return r && r->fold(Call{node, opset, in, out});
}

}  // namespace photon::onnx_frontend

// fold_node against hand-computed results of the ONNX operator definitions (numpy semantics, as
// in onnx/docs/Operators.md), including splat handling and the materialisation budget.
#include <gtest/gtest.h>

#include <limits>

#include "base/error.h"
#include "tests/workloads/onnx/model_builder.h"
#include "workloads/onnx/const_fold.h"

namespace photon::onnx_frontend {
namespace {

using namespace photon::test;
using TP = onnx::TensorProto;
using V = std::vector<int64_t>;

ConstValue ints(V shape, V values) { return ConstValue::make_ints(std::move(shape), std::move(values)); }

ConstValue floats(V shape, std::vector<float> values) {
  ConstValue c;
  c.shape = std::move(shape);
  c.f = std::move(values);
  return c;
}

ConstValue arange(V shape) {
  V v(static_cast<size_t>(shape_numel(shape)));
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<int64_t>(k);
  return ints(std::move(shape), std::move(v));
}

onnx::NodeProto node(const std::string& op) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.add_output("out");
  return n;
}

// Folds `n` on `in` (null = omitted input); returns the single output, failing if not folded.
ConstValue fold1(const onnx::NodeProto& n, std::vector<const ConstValue*> in, int64_t opset = 14) {
  std::vector<FoldInput> fi;
  for (const auto* v : in) fi.push_back({v, v ? &v->shape : nullptr});
  std::vector<ConstValue> out;
  EXPECT_TRUE(fold_node(n, opset, fi, &out)) << n.op_type();
  if (out.size() != 1) {
    ADD_FAILURE() << n.op_type() << " produced " << out.size() << " outputs";
    return {};
  }
  return out[0];
}

bool folds(const onnx::NodeProto& n, std::vector<const ConstValue*> in, int64_t opset = 14) {
  std::vector<FoldInput> fi;
  for (const auto* v : in) fi.push_back({v, v ? &v->shape : nullptr});
  std::vector<ConstValue> out;
  return fold_node(n, opset, fi, &out);
}

TEST(ConstFold, SliceStepsAndClamping) {
  const ConstValue a = arange({10});
  const ConstValue s8 = ints({1}, {8}), e1 = ints({1}, {1}), ax0 = ints({1}, {0}), st = ints({1}, {-3});
  ConstValue r = fold1(node("Slice"), {&a, &s8, &e1, &ax0, &st});
  EXPECT_EQ(r.shape, V{3});
  EXPECT_EQ(r.i, (V{8, 5, 2}));  // numpy: arange(10)[8:1:-3]
  const ConstValue sm3 = ints({1}, {-3}), emax = ints({1}, {std::numeric_limits<int64_t>::max()});
  r = fold1(node("Slice"), {&a, &sm3, &emax});
  EXPECT_EQ(r.i, (V{7, 8, 9}));  // arange(10)[-3:]
  const ConstValue m = arange({3, 4}), s1 = ints({1}, {1}), e3 = ints({1}, {3}), ax1 = ints({1}, {1});
  r = fold1(node("Slice"), {&m, &s1, &e3, &ax1});
  EXPECT_EQ(r.shape, (V{3, 2}));
  EXPECT_EQ(r.i, (V{1, 2, 5, 6, 9, 10}));  // arange(12).reshape(3,4)[:, 1:3]
  // Opset 9: starts/ends/axes are attributes.
  onnx::NodeProto n9 = node("Slice");
  set_ints(&n9, "starts", {1});
  set_ints(&n9, "ends", {3});
  set_ints(&n9, "axes", {1});
  EXPECT_EQ(fold1(n9, {&m}, 9).i, (V{1, 2, 5, 6, 9, 10}));
}

TEST(ConstFold, GatherNegativeAndScalarIndices) {
  const ConstValue m = arange({3, 4});
  onnx::NodeProto n = node("Gather");
  set_int(&n, "axis", 1);
  const ConstValue idx = ints({2}, {-1, 0});
  ConstValue r = fold1(n, {&m, &idx});
  EXPECT_EQ(r.shape, (V{3, 2}));
  EXPECT_EQ(r.i, (V{3, 0, 7, 4, 11, 8}));  // m[:, [-1, 0]]
  const ConstValue scalar = ints({}, {1});
  r = fold1(node("Gather"), {&m, &scalar});
  EXPECT_EQ(r.shape, (V{4}));
  EXPECT_EQ(r.i, (V{4, 5, 6, 7}));  // m[1]
  const ConstValue bad = ints({1}, {3});
  EXPECT_THROW(fold1(node("Gather"), {&m, &bad}), Error);
}

TEST(ConstFold, TransposeReshapeFlattenSqueeze) {
  const ConstValue m = arange({2, 3});
  ConstValue r = fold1(node("Transpose"), {&m});
  EXPECT_EQ(r.shape, (V{3, 2}));
  EXPECT_EQ(r.i, (V{0, 3, 1, 4, 2, 5}));
  const ConstValue t = arange({2, 3, 4});
  const ConstValue spec = ints({2}, {0, -1});
  EXPECT_EQ(fold1(node("Reshape"), {&t, &spec}).shape, (V{2, 12}));
  onnx::NodeProto f = node("Flatten");
  set_int(&f, "axis", 2);
  EXPECT_EQ(fold1(f, {&t}).shape, (V{6, 4}));
  const ConstValue v3 = arange({3});
  const ConstValue axes = ints({2}, {-1, 0});
  r = fold1(node("Unsqueeze"), {&v3, &axes}, 13);
  EXPECT_EQ(r.shape, (V{1, 3, 1}));
  onnx::NodeProto sq = node("Squeeze");
  set_ints(&sq, "axes", {0});
  EXPECT_EQ(fold1(sq, {&r}, 11).shape, (V{3, 1}));            // opset 11: axes attribute
  EXPECT_EQ(fold1(node("Squeeze"), {&r}, 13).shape, (V{3}));  // no axes: drop all 1s
  const ConstValue bad = ints({2}, {4, 4});
  EXPECT_THROW(fold1(node("Reshape"), {&m, &bad}), Error);
}

TEST(ConstFold, BroadcastArithmetic) {
  const ConstValue a = floats({2, 1}, {1, 2});
  const ConstValue b = floats({3}, {10, 20, 30});
  ConstValue r = fold1(node("Add"), {&a, &b});
  EXPECT_EQ(r.shape, (V{2, 3}));
  EXPECT_EQ(r.f, (std::vector<float>{11, 21, 31, 12, 22, 32}));
  const ConstValue n7 = ints({}, {-7}), two = ints({}, {2}), zero = ints({}, {0});
  EXPECT_EQ(fold1(node("Div"), {&n7, &two}).i, (V{-3}));  // integer Div truncates (C semantics)
  EXPECT_FALSE(folds(node("Div"), {&n7, &zero}));         // left to run time, not folded
  const ConstValue x = ints({3}, {1, -1, -1}), y = ints({3}, {-1, -1, -1});
  r = fold1(node("Equal"), {&x, &y});
  EXPECT_EQ(r.elem_type, TP::BOOL);
  EXPECT_EQ(r.i, (V{0, 1, 1}));
}

// The vit_b_16 class-token pattern: Where(Equal(s, -1 * ConstantOfShape(Shape(s), 1)), 1s, s)
// then Expand(class_token, that): the result stays a splat.
TEST(ConstFold, VitExpandPatternKeepsSplat) {
  const ConstValue s = ints({3}, {1, -1, -1});
  onnx::NodeProto cos = node("ConstantOfShape");
  auto* a = cos.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TP::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(1);
  const ConstValue three = ints({1}, {3});
  const ConstValue ones = fold1(cos, {&three});
  const ConstValue minus1 = ints({}, {-1});
  const ConstValue neg = fold1(node("Mul"), {&ones, &minus1});
  const ConstValue eq = fold1(node("Equal"), {&s, &neg});
  const ConstValue where = fold1(node("Where"), {&eq, &ones, &s});
  EXPECT_EQ(where.ints(), (V{1, 1, 1}));
  ConstValue token = ConstValue::make_splat(TP::FLOAT, {1, 1, 768}, 0.01);
  const ConstValue e = fold1(node("Expand"), {&token, &where});
  EXPECT_TRUE(e.splat);
  EXPECT_EQ(e.shape, (V{1, 1, 768}));
  EXPECT_FLOAT_EQ(e.splat_f, 0.01f);
}

TEST(ConstFold, ExpandDense) {
  const ConstValue a = floats({3, 1}, {1, 2, 3});
  const ConstValue shape = ints({3}, {2, 1, 2});
  const ConstValue r = fold1(node("Expand"), {&a, &shape});
  EXPECT_EQ(r.shape, (V{2, 3, 2}));
  EXPECT_EQ(r.f, (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(ConstFold, RangeCastShape) {
  const ConstValue s = ints({}, {1}), l = ints({}, {10}), d = ints({}, {3});
  EXPECT_EQ(fold1(node("Range"), {&s, &l, &d}).i, (V{1, 4, 7}));
  const ConstValue fs = floats({}, {0}), fl = floats({}, {1}), fd = floats({}, {0.25f});
  EXPECT_EQ(fold1(node("Range"), {&fs, &fl, &fd}).f, (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  onnx::NodeProto c = node("Cast");
  set_int(&c, "to", TP::INT64);
  const ConstValue x = floats({2}, {-1.7f, 2.9f});
  EXPECT_EQ(fold1(c, {&x}).i, (V{-1, 2}));  // truncation toward zero
  onnx::NodeProto sh = node("Shape");
  set_int(&sh, "start", 1);
  set_int(&sh, "end", -1);
  const V in_shape{2, 3, 4, 5};
  std::vector<ConstValue> out;
  ASSERT_TRUE(fold_node(sh, 15, {{nullptr, &in_shape}}, &out));
  EXPECT_EQ(out.at(0).i, (V{3, 4}));
  ASSERT_TRUE(fold_node(sh, 14, {{nullptr, &in_shape}}, &out));  // start/end exist from opset 15
  EXPECT_EQ(out.at(0).i, (V{2, 3, 4, 5}));
}

TEST(ConstFold, ConcatSplatsAndDense) {
  const ConstValue a = ConstValue::make_splat(TP::FLOAT, {2, 2}, 0.5);
  const ConstValue b = floats({1, 2}, {1, 2});
  ConstValue r = fold1(node("Concat"), {&a, &b});
  EXPECT_EQ(r.shape, (V{3, 2}));
  EXPECT_EQ(r.f, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, 1, 2}));
  r = fold1(node("Concat"), {&a, &a});
  EXPECT_TRUE(r.splat);
  EXPECT_EQ(r.shape, (V{4, 2}));
}

TEST(ConstFold, LargeSplatsAreNeverMaterialised) {
  // ConstantOfShape of a Llama-7B weight (11008x4096 fp32 = 180 MB) stays a splat.
  const ConstValue shape = ints({2}, {11008, 4096});
  const ConstValue w = fold1(node("ConstantOfShape"), {&shape});
  EXPECT_TRUE(w.splat);
  EXPECT_TRUE(w.f.empty());
  EXPECT_EQ(w.numel(), 11008 * 4096);
  // Movement and splat-with-splat arithmetic keep it a splat...
  EXPECT_TRUE(fold1(node("Transpose"), {&w}).splat);
  const ConstValue two = ConstValue::make_splat(TP::FLOAT, {}, 2.0);
  const ConstValue w2 = fold1(node("Mul"), {&w, &two});
  EXPECT_TRUE(w2.splat);
  EXPECT_FLOAT_EQ(w2.splat_f, 0.0f);
  // ...but a result that would need dense values is left unfolded.
  const ConstValue other = ConstValue::make_splat(TP::FLOAT, {11008, 4096}, 1.0);
  EXPECT_FALSE(folds(node("Concat"), {&w, &other}));
  const ConstValue row = floats({4096}, std::vector<float>(4096, 1.0f));
  EXPECT_FALSE(folds(node("Add"), {&w, &row}));
}

}  // namespace
}  // namespace photon::onnx_frontend

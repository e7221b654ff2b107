// lower_graph on nodes with invalid attributes or unrepresentable types: each is one Error naming
// the node (name and op type) and the reason, raised before any command is emitted.
#include <gtest/gtest.h>

#include "base/error.h"
#include "lowering_harness.h"

namespace photon::testing {
namespace {

using Attrs = std::map<std::string, AttrValue>;
using Ints = std::vector<int64_t>;

// Lowers `b` and returns the Error's what(); fails the test if no Error is thrown.
std::string lower_error(const GraphBuilder& b) {
  try {
    lowering::lower_graph(b.g, small_config());
  } catch (const Error& e) { return e.what(); }
  ADD_FAILURE() << "no Error";
  return "";
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

// x[1,C,8,8] * w[M,C/g,k,k] -> y (y's shape is not checked by the validation).
GraphBuilder conv(int64_t C, int64_t M, int64_t wc, int64_t k, Attrs a) {
  GraphBuilder b;
  b.input("x", {1, C, 8, 8});
  b.weight("w", {M, wc, k, k});
  b.tensor("y", {1, M, 8, 8});
  b.node("Conv", "conv1", {"x", "w"}, {"y"}, std::move(a));
  b.g.outputs = {"y"};
  return b;
}

GraphBuilder pool(const std::string& op, int64_t hw, Attrs a) {
  GraphBuilder b;
  b.input("x", {1, 2, hw, hw});
  b.tensor("y", {1, 2, 1, 1});
  b.node(op, "pool1", {"x"}, {"y"}, std::move(a));
  b.g.outputs = {"y"};
  return b;
}

TEST(LoweringValidate, ConvAttributeRanges) {
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"strides", Ints{0, 0}}})),
             "node 'conv1' (Conv): strides [0,0] has an entry < 1");
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"dilations", Ints{0, 1}}})),
             "node 'conv1' (Conv): dilations [0,1] has an entry < 1");
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"pads", Ints{1, -1, 1, 1}}})),
             "node 'conv1' (Conv): pads [1,-1,1,1] has an entry < 0");
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"strides", Ints{1}}})),
             "node 'conv1' (Conv): strides [1] has 1 entries, the input has 2 spatial axes");
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"kernel_shape", Ints{3, 0}}})),
             "node 'conv1' (Conv): kernel_shape [3,0] has an entry < 1");
  EXPECT_HAS(lower_error(conv(2, 4, 2, 0, {})), "node 'conv1' (Conv): kernel shape [0,0] has an entry < 1");
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"group", int64_t{0}}})),
             "node 'conv1' (Conv): group 0 must be >= 1");
}

TEST(LoweringValidate, ConvGroupsDivideChannels) {
  EXPECT_HAS(lower_error(conv(3, 4, 1, 3, {{"group", int64_t{2}}})),
             "node 'conv1' (Conv): input channels C=3 are not divisible by group 2");
  EXPECT_HAS(lower_error(conv(4, 3, 2, 3, {{"group", int64_t{2}}})),
             "node 'conv1' (Conv): output channels M=3 are not divisible by group 2");
  EXPECT_HAS(lower_error(conv(4, 4, 4, 3, {{"group", int64_t{2}}})),
             "node 'conv1' (Conv): weight 'w' has 4 channels per group, input C=4 / group 2 = 2");
}

TEST(LoweringValidate, KernelMustFitThePaddedInput) {
  EXPECT_HAS(
      lower_error(conv(2, 4, 2, 9, {})),
      "node 'conv1' (Conv): kernel [9,9] (dilations [1,1]) does not fit the padded input: axis 2 has 8 + "
      "pads 0 = 8 elements, the kernel spans 9");
  // 3x3 dilated by 4 spans 9 > 8; with pads 1+0 it spans 9 <= 9 and is valid.
  EXPECT_HAS(lower_error(conv(2, 4, 2, 3, {{"dilations", Ints{4, 1}}})),
             "axis 2 has 8 + pads 0 = 8 elements");
  GraphBuilder ok = conv(2, 4, 2, 3, {{"dilations", Ints{4, 4}}, {"pads", Ints{1, 1, 0, 0}}});
  ok.g.tensors["y"].shape = {1, 4, 1, 1};
  const lowering::LoweringResult r = lowering::lower_graph(ok.g, small_config());
  EXPECT_EQ(r.nodes_fallback, 0);  // dilated taps: the im2col command's dilation field
  EXPECT_EQ(r.nodes_lowered, 1);
}

TEST(LoweringValidate, PoolingAttributes) {
  EXPECT_HAS(lower_error(pool("MaxPool", 4, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{0, 2}}})),
             "node 'pool1' (MaxPool): strides [0,2] has an entry < 1");
  EXPECT_HAS(lower_error(pool("AveragePool", 4, {{"kernel_shape", Ints{0, 2}}})),
             "node 'pool1' (AveragePool): kernel_shape [0,2] has an entry < 1");
  EXPECT_HAS(lower_error(pool("AveragePool", 4, {})),
             "node 'pool1' (AveragePool): missing attribute kernel_shape");
  EXPECT_HAS(lower_error(pool("MaxPool", 2, {{"kernel_shape", Ints{3, 3}}})),
             "node 'pool1' (MaxPool): kernel [3,3] (dilations [1,1]) does not fit the padded input");
  // The same kernel with one pixel of padding per side fits: 3x3 over 4x4 padded, stride 3 -> 1x1.
  GraphBuilder ok =
      pool("MaxPool", 2, {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{3, 3}}});
  const lowering::LoweringResult r = lowering::lower_graph(ok.g, small_config());
  EXPECT_EQ(r.nodes_lowered, 1);
  EXPECT_EQ(r.nodes_fallback, 0);
}

TEST(LoweringValidate, UnrepresentableTypesAreErrors) {
  GraphBuilder b;
  b.input("s", {2});
  b.g.tensors["s"].dtype = DType::Other;
  b.g.tensors["s"].source_type = "STRING";
  b.tensor("t", {2});
  b.g.tensors["t"].dtype = DType::Other;
  b.node("Identity", "id1", {"s"}, {"t"});
  b.g.outputs = {"t"};
  EXPECT_HAS(lower_error(b),
             "node 'id1' (Identity): tensor 's' has data type STRING, which the platform cannot represent");
}

TEST(LoweringValidate, WidenedFloatTypesAreComputedInFp32WithANote) {
  GraphBuilder b;
  b.input("x", {2, 3});
  b.g.tensors["x"].source_type = "DOUBLE";
  b.tensor("y", {2, 3});
  b.g.tensors["y"].source_type = "DOUBLE";
  b.node("Relu", "relu1", {"x"}, {"y"});
  b.g.outputs = {"y"};
  lowering::LoweringResult r;
  const auto out = run_graph(b, small_config(), &r);
  EXPECT_EQ(r.nodes_lowered, 1);
  EXPECT_TRUE(r.functional_valid);
  ASSERT_EQ(r.functional_notes.size(), 2u);
  EXPECT_EQ(r.functional_notes[0],
            "tensor 'x' is DOUBLE in the model; the platform holds and computes it in fp32");
  const auto& x = b.inputs.at("x");
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out.at("y")[i], x[i] > 0 ? x[i] : 0.0f) << i;
}

}  // namespace
}  // namespace photon::testing

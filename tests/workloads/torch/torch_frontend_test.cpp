// Torch frontend: ATen ops of hand-built traces map onto the operator graph as docs/torch.md
// says (op types, attributes, folding, decompositions), and every malformed trace is one error
// naming the op and the problem.
#include "workloads/torch/torch_frontend.h"

#include <gtest/gtest.h>

#include <climits>

#include "base/error.h"
#include "tests/workloads/torch/trace_util.h"
#include "workloads/torch/aten_builder.h"

namespace photon {
namespace {

using test::T;
using test::TraceBuilder;
using Ints = std::vector<int64_t>;

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> v;
  for (const auto& n : g.nodes) v.push_back(n.op_type);
  return v;
}

std::string load_error(const TraceBuilder& b, const std::string& stem) {
  const std::string path = test::write_trace(b, stem);
  try {
    load_op_trace(path);
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;  // the file comes first
    return what;
  }
  ADD_FAILURE() << "no error for " << stem;
  return "";
}

TEST(TorchFrontend, LinearMapsToGemmWithTheTransposedWeightFolded) {
  TraceBuilder b;
  const int64_t x = b.input({2, 4}, "x"), w = b.param({3, 4}, "fc.weight"), bias = b.param({3}, "fc.bias");
  const int64_t wt = b.op1("aten::t.default", {{"self", T(w)}}, {4, 3}, "fc");
  const int64_t y = b.op1("aten::addmm.default", {{"self", T(bias)}, {"mat1", T(x)}, {"mat2", T(wt)}, {"beta", 1}, {"alpha", 1}},
                          {2, 3}, "fc");
  const int64_t r = b.op1("aten::relu.default", {{"self", T(y)}}, {2, 3}, "act");
  b.outputs = {r};
  const TorchGraph tg = load_op_trace(test::write_trace(b, "linear"));
  const Graph& g = tg.graph;
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Gemm", "Relu"}));
  // addmm(bias, x, t(weight)) reads the weight as stored, transB = 1, as torch.onnx.export
  // writes a Linear: the folded t() is read by no node.
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"x", "fc.weight", "fc.bias"}));
  EXPECT_EQ(g.nodes[0].attr_int("transB", 0), 1);
  EXPECT_EQ(g.nodes[0].name, "fc/addmm#1");
  EXPECT_FLOAT_EQ(g.nodes[0].attr_float("alpha", 0), 1.0f);
  EXPECT_EQ(g.tensors.count("%3"), 0u);
  EXPECT_EQ(g.inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(g.outputs, (std::vector<std::string>{"%5"}));
  ASSERT_EQ(tg.ops.size(), 3u);
  EXPECT_EQ(tg.ops[0].node_count, 0u);
  EXPECT_EQ(tg.ops[0].note, "folded: data movement of constants");
  EXPECT_EQ(tg.ops[1].node_count, 1u);
  EXPECT_EQ(tg.ops[2].first_node, 1u);
}

TEST(TorchFrontend, InferenceBatchNormFoldsIntoThePrecedingConvolution) {
  TraceBuilder b;
  const int64_t x = b.input({1, 3, 8, 8}, "x"), w = b.param({4, 3, 3, 3}, "conv.weight");
  const int64_t g0 = b.param({4}, "bn.weight"), b0 = b.param({4}, "bn.bias"), m = b.param({4}, "bn.running_mean"),
                v = b.param({4}, "bn.running_var");
  const nlohmann::json conv_args = {{"input", T(x)}, {"weight", T(w)}, {"bias", nullptr}, {"stride", {2, 2}},
                                    {"padding", {1, 1}}, {"dilation", {1, 1}}, {"transposed", false},
                                    {"output_padding", {0, 0}}, {"groups", 1}};
  const int64_t c = b.op1("aten::convolution.default", conv_args, {1, 4, 4, 4}, "conv");
  auto bn = b.op("aten::native_batch_norm.default",
                 {{"input", T(c)}, {"weight", T(g0)}, {"bias", T(b0)}, {"running_mean", T(m)}, {"running_var", T(v)},
                  {"training", false}, {"momentum", 0.1}, {"eps", 1e-5}},
                 {{1, 4, 4, 4}, {0}, {0}}, "bn");
  const int64_t r = b.op1("aten::relu_.default", {{"self", T(bn[0])}}, {1, 4, 4, 4}, "relu");
  b.outputs = {r};
  const TorchGraph tg = load_op_trace(test::write_trace(b, "convbn"));
  const Graph& g = tg.graph;
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Conv", "Relu"}));
  const Node& cn = g.nodes[0];
  ASSERT_EQ(cn.inputs.size(), 3u);
  EXPECT_TRUE(g.tensor(cn.inputs[2]).is_constant);          // the folded bias
  EXPECT_EQ(cn.outputs[0], g.nodes[1].inputs[0]);            // conv writes the BatchNorm's output
  EXPECT_EQ(cn.attr_ints("strides", {}), (Ints{2, 2}));
  EXPECT_EQ(cn.attr_ints("pads", {}), (Ints{1, 1, 1, 1}));
  EXPECT_EQ(tg.ops[1].node_count, 0u);
  EXPECT_EQ(tg.ops[1].note, "folded into the convolution 'conv/convolution#0'");
  EXPECT_EQ(g.tensors.count("%6"), 0u);  // the conv's own output is gone
}

TEST(TorchFrontend, BatchNormStaysWhenTheConvolutionOutputHasAnotherReader) {
  TraceBuilder b;
  const int64_t x = b.input({1, 2, 4, 4}, "x"), w = b.param({2, 2, 1, 1}, "w"), s = b.param({2}, "s");
  const int64_t c = b.op1("aten::convolution.default",
                          {{"input", T(x)}, {"weight", T(w)}, {"bias", nullptr}, {"stride", {1, 1}}, {"padding", {0, 0}},
                           {"dilation", {1, 1}}, {"transposed", false}, {"output_padding", {0, 0}}, {"groups", 1}},
                          {1, 2, 4, 4});
  auto bn = b.op("aten::native_batch_norm.default",
                 {{"input", T(c)}, {"weight", T(s)}, {"bias", T(s)}, {"running_mean", T(s)}, {"running_var", T(s)},
                  {"training", false}, {"momentum", 0.1}, {"eps", 1e-3}},
                 {{1, 2, 4, 4}, {0}, {0}});
  const int64_t y = b.op1("aten::add.Tensor", {{"self", T(bn[0])}, {"other", T(c)}, {"alpha", 1}}, {1, 2, 4, 4});
  b.outputs = {y};
  const Graph g = load_op_trace(test::write_trace(b, "bnkeep")).graph;
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "BatchNormalization", "Add"}));
  EXPECT_FLOAT_EQ(g.nodes[1].attr_float("epsilon", 0), 1e-3f);
}

TEST(TorchFrontend, DecompositionsAndScalarOperands) {
  TraceBuilder b;
  const int64_t x = b.input({2, 8}, "x");
  const int64_t p = b.op1("aten::pow.Tensor_Scalar", {{"self", T(x)}, {"exponent", 2}}, {2, 8});
  const int64_t m = b.op1("aten::mean.dim", {{"self", T(p)}, {"dim", {-1}}, {"keepdim", true}, {"dtype", nullptr}}, {2, 1});
  const int64_t e = b.op1("aten::add.Tensor", {{"self", T(m)}, {"other", 1e-5}, {"alpha", 1}}, {2, 1});
  const int64_t r = b.op1("aten::rsqrt.default", {{"self", T(e)}}, {2, 1});
  const int64_t y = b.op1("aten::mul.Tensor", {{"self", T(x)}, {"other", T(r)}}, {2, 8});
  const int64_t s = b.op1("aten::silu.default", {{"self", T(y)}}, {2, 8});
  const int64_t h = b.op1("aten::slice.Tensor", {{"self", T(s)}, {"dim", 1}, {"start", 4}, {"end", LLONG_MAX}, {"step", 1}},
                          {2, 4});
  b.outputs = {h};
  const Graph g = load_op_trace(test::write_trace(b, "decomp")).graph;
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Pow", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul", "Sigmoid",
                                                   "Mul", "Slice"}));
  const TensorInfo& two = g.tensor(g.nodes[0].inputs[1]);
  EXPECT_TRUE(two.is_constant);
  EXPECT_EQ(two.data, (std::vector<float>{2.0f}));
  EXPECT_EQ(g.nodes[1].attr_ints("axes", {}), (Ints{1}));
  EXPECT_EQ(g.nodes[1].attr_int("keepdims", 0), 1);
  EXPECT_EQ(g.tensor(g.nodes[8].inputs[2]).int_data, (Ints{8}));  // slice end clamped to the axis
  EXPECT_EQ(g.nodes[8].name, "slice#6");
  EXPECT_EQ(g.nodes[3].name, "rsqrt#3");
  EXPECT_EQ(g.nodes[4].name, "rsqrt#3:1");
}

TEST(TorchFrontend, AtenOperatorsWithoutARowBecomeHostNodes) {
  TraceBuilder b;
  const int64_t x = b.input({4, 4}, "x");
  const int64_t y = b.op1("aten::cumsum.default", {{"self", T(x)}, {"dim", 0}, {"dtype", nullptr}}, {4, 4}, "blk");
  b.outputs = {y};
  const TorchGraph tg = load_op_trace(test::write_trace(b, "host"));
  ASSERT_EQ(tg.graph.nodes.size(), 1u);
  EXPECT_EQ(tg.graph.nodes[0].op_type, "aten::cumsum");
  EXPECT_EQ(tg.host_reasons.at("blk/cumsum#0"), "no device mapping for the ATen op 'aten::cumsum'");
}

TEST(TorchFrontend, EveryTableRowIsAnAtenOperatorOfTheRegistry) {
  // Oracle: the registry generated from torch's own schemas (scripts/gen_aten_registry.py).
  for (const auto& row : torch_frontend::aten_table()) EXPECT_TRUE(torch_frontend::is_aten_operator(row.name)) << row.name;
  EXPECT_TRUE(torch_frontend::is_aten_operator("aten::native_batch_norm_backward"));
  EXPECT_FALSE(torch_frontend::is_aten_operator("aten::frobnicate"));
  EXPECT_FALSE(torch_frontend::is_aten_operator("prims::add"));
}

TEST(TorchFrontend, MalformedFilesAreOneErrorNamingTheProblem) {
  TraceBuilder b;
  const int64_t x = b.input({2, 2}, "x");
  b.outputs = {b.op1("aten::relu.default", {{"self", T(x)}}, {2, 2})};
  const std::string full = b.json().dump();
  auto error_of = [](const std::string& text, const std::string& stem) {
    const std::string path = test::write_trace(text, stem);
    try {
      load_op_trace(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(full.substr(0, full.size() / 2), "trunc").find("not a complete JSON document: parse error at byte"),
            std::string::npos);
  EXPECT_NE(error_of(full.substr(0, full.size() / 2), "trunc").find("truncated"), std::string::npos);
  EXPECT_NE(error_of("", "empty").find("empty file, not an op trace"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1}", "notrace").find("not an op trace"), std::string::npos);
  nlohmann::json v2 = b.json();
  v2["version"] = 2;
  EXPECT_NE(error_of(v2.dump(), "v2").find("op trace version 2 is not supported (this reader: 1..1)"), std::string::npos);
  nlohmann::json bad_dtype = b.json();
  bad_dtype["tensors"][0]["dtype"] = "float8";
  EXPECT_NE(error_of(bad_dtype.dump(), "dtype").find("tensor 0: unknown dtype 'float8'"), std::string::npos);
}

TEST(TorchFrontend, UnknownOpsAreErrorsNamingTheOp) {
  TraceBuilder b;
  const int64_t x = b.input({2, 2}, "x");
  b.outputs = {b.op1("aten::frobnicate.default", {{"self", T(x)}}, {2, 2}, "layer1")};
  EXPECT_NE(load_error(b, "unknown").find("op 0 'aten::frobnicate.default' (module 'layer1'): unknown op "
                                          "'aten::frobnicate': not an ATen operator of torch 1.13"),
            std::string::npos);
  TraceBuilder c;
  const int64_t y = c.input({2, 2}, "x");
  c.outputs = {c.op1("mylib::fused.default", {{"self", T(y)}}, {2, 2})};
  EXPECT_NE(load_error(c, "custom").find("op 0 'mylib::fused.default': unknown op: only ATen operators"),
            std::string::npos);
}

TEST(TorchFrontend, InconsistentShapesAreErrorsNamingTheOp) {
  {
    TraceBuilder b;
    const int64_t x = b.input({2, 4}, "x"), w = b.param({5, 3}, "w");
    b.outputs = {b.op1("aten::mm.default", {{"self", T(x)}, {"mat2", T(w)}}, {2, 3})};
    EXPECT_NE(load_error(b, "mm").find("op 0 'aten::mm.default': inconsistent shapes: mm of [2,4] and [5,3]"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({1, 3, 8, 8}, "x"), w = b.param({4, 3, 3, 3}, "w");
    b.outputs = {b.op1("aten::convolution.default",
                       {{"input", T(x)}, {"weight", T(w)}, {"bias", nullptr}, {"stride", {1, 1}}, {"padding", {0, 0}},
                        {"dilation", {1, 1}}, {"transposed", false}, {"output_padding", {0, 0}}, {"groups", 1}},
                       {1, 4, 8, 8}, "c1")};
    EXPECT_NE(load_error(b, "conv").find("op 0 'aten::convolution.default' (module 'c1'): inconsistent shapes: "
                                         "convolution gives [1,4,6,6], output 0 is [1,4,8,8]"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({2, 3}, "x"), y = b.input({4, 3}, "y");
    b.outputs = {b.op1("aten::add.Tensor", {{"self", T(x)}, {"other", T(y)}, {"alpha", 1}}, {2, 3})};
    EXPECT_NE(load_error(b, "bcast").find("inconsistent shapes: [2,3] and [4,3] do not broadcast"), std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({2, 3}, "x");
    b.outputs = {b.op1("aten::view.default", {{"self", T(x)}, {"size", {7}}}, {7})};
    EXPECT_NE(load_error(b, "view").find("inconsistent shapes: a view of [2,3] as [7] changes the element count"),
              std::string::npos);
  }
}

TEST(TorchFrontend, BrokenReferencesTypesAndDtypesAreErrors) {
  {
    TraceBuilder b;
    const int64_t x = b.input({2}, "x");
    const int64_t later = b.tensor("value", {2});
    b.outputs = {b.op1("aten::add.Tensor", {{"self", T(x)}, {"other", T(later)}}, {2})};
    EXPECT_NE(load_error(b, "order").find("argument 'other' reads tensor 1 ('%1') before any op produces it"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({2}, "x");
    b.outputs = {b.op1("aten::relu.default", {{"self", T(42)}}, {2})};
    (void)x;
    EXPECT_NE(load_error(b, "range").find("argument 'self' names tensor 42, not one of the trace's tensors"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({2}, "x");
    const int64_t y = b.op1("aten::relu.default", {{"self", T(x)}}, {2});
    b.ops.push_back({{"op", "aten::neg.default"}, {"args", {{"self", T(x)}}}, {"outputs", {y}}});
    b.outputs = {y};
    EXPECT_NE(load_error(b, "twice").find("op 1 'aten::neg.default': output tensor 1 ('%1') is produced twice"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.tensor("input", {2, 2}, "z", "complex64");
    b.outputs = {b.op1("aten::neg.default", {{"self", T(x)}}, {2, 2})};
    EXPECT_NE(load_error(b, "complex").find("op 0 'aten::neg.default': tensor 'z' has dtype complex64, which the "
                                            "platform cannot represent"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({1, 1, 4, 4}, "x"), w = b.param({1, 1, 3, 3}, "w");
    b.outputs = {b.op1("aten::convolution.default",
                       {{"input", T(x)}, {"weight", T(w)}, {"bias", nullptr}, {"stride", "two"}, {"padding", {0, 0}},
                        {"dilation", {1, 1}}, {"transposed", false}, {"output_padding", {0, 0}}, {"groups", 1}},
                       {1, 1, 2, 2})};
    EXPECT_NE(load_error(b, "argtype").find("argument 'stride' is not a list of integers"), std::string::npos);
  }
}

}  // namespace
}  // namespace photon

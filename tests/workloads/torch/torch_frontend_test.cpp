// Torch frontend: ATen ops of hand-built traces map onto the operator graph as docs/torch.md
// says (op types, attributes, folding, decompositions), and every malformed trace is one error
// naming the op and the problem.
#include "workloads/torch/torch_frontend.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>

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
  const int64_t y =
      b.op1("aten::addmm.default",
            {{"self", T(bias)}, {"mat1", T(x)}, {"mat2", T(wt)}, {"beta", 1}, {"alpha", 1}}, {2, 3}, "fc");
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
  const int64_t g0 = b.param({4}, "bn.weight"), b0 = b.param({4}, "bn.bias"),
                m = b.param({4}, "bn.running_mean"), v = b.param({4}, "bn.running_var");
  const nlohmann::json conv_args = {{"input", T(x)},       {"weight", T(w)},           {"bias", nullptr},
                                    {"stride", {2, 2}},    {"padding", {1, 1}},        {"dilation", {1, 1}},
                                    {"transposed", false}, {"output_padding", {0, 0}}, {"groups", 1}};
  const int64_t c = b.op1("aten::convolution.default", conv_args, {1, 4, 4, 4}, "conv");
  auto bn = b.op("aten::native_batch_norm.default",
                 {{"input", T(c)},
                  {"weight", T(g0)},
                  {"bias", T(b0)},
                  {"running_mean", T(m)},
                  {"running_var", T(v)},
                  {"training", false},
                  {"momentum", 0.1},
                  {"eps", 1e-5}},
                 {{1, 4, 4, 4}, {0}, {0}}, "bn");
  const int64_t r = b.op1("aten::relu_.default", {{"self", T(bn[0])}}, {1, 4, 4, 4}, "relu");
  b.outputs = {r};
  const TorchGraph tg = load_op_trace(test::write_trace(b, "convbn"));
  const Graph& g = tg.graph;
  ASSERT_EQ(op_types(g), (std::vector<std::string>{"Conv", "Relu"}));
  const Node& cn = g.nodes[0];
  ASSERT_EQ(cn.inputs.size(), 3u);
  EXPECT_TRUE(g.tensor(cn.inputs[2]).is_constant);  // the folded bias
  EXPECT_EQ(cn.outputs[0], g.nodes[1].inputs[0]);   // conv writes the BatchNorm's output
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
                          {{"input", T(x)},
                           {"weight", T(w)},
                           {"bias", nullptr},
                           {"stride", {1, 1}},
                           {"padding", {0, 0}},
                           {"dilation", {1, 1}},
                           {"transposed", false},
                           {"output_padding", {0, 0}},
                           {"groups", 1}},
                          {1, 2, 4, 4});
  auto bn = b.op("aten::native_batch_norm.default",
                 {{"input", T(c)},
                  {"weight", T(s)},
                  {"bias", T(s)},
                  {"running_mean", T(s)},
                  {"running_var", T(s)},
                  {"training", false},
                  {"momentum", 0.1},
                  {"eps", 1e-3}},
                 {{1, 2, 4, 4}, {0}, {0}});
  const int64_t y =
      b.op1("aten::add.Tensor", {{"self", T(bn[0])}, {"other", T(c)}, {"alpha", 1}}, {1, 2, 4, 4});
  b.outputs = {y};
  const Graph g = load_op_trace(test::write_trace(b, "bnkeep")).graph;
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "BatchNormalization", "Add"}));
  EXPECT_FLOAT_EQ(g.nodes[1].attr_float("epsilon", 0), 1e-3f);
}

TEST(TorchFrontend, DecompositionsAndScalarOperands) {
  TraceBuilder b;
  const int64_t x = b.input({2, 8}, "x");
  const int64_t p = b.op1("aten::pow.Tensor_Scalar", {{"self", T(x)}, {"exponent", 2}}, {2, 8});
  const int64_t m =
      b.op1("aten::mean.dim", {{"self", T(p)}, {"dim", {-1}}, {"keepdim", true}, {"dtype", nullptr}}, {2, 1});
  const int64_t e = b.op1("aten::add.Tensor", {{"self", T(m)}, {"other", 1e-5}, {"alpha", 1}}, {2, 1});
  const int64_t r = b.op1("aten::rsqrt.default", {{"self", T(e)}}, {2, 1});
  const int64_t y = b.op1("aten::mul.Tensor", {{"self", T(x)}, {"other", T(r)}}, {2, 8});
  const int64_t s = b.op1("aten::silu.default", {{"self", T(y)}}, {2, 8});
  const int64_t h =
      b.op1("aten::slice.Tensor", {{"self", T(s)}, {"dim", 1}, {"start", 4}, {"end", LLONG_MAX}, {"step", 1}},
            {2, 4});
  b.outputs = {h};
  const Graph g = load_op_trace(test::write_trace(b, "decomp")).graph;
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Pow", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul",
                                                   "Sigmoid", "Mul", "Slice"}));
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
  const int64_t y =
      b.op1("aten::cumsum.default", {{"self", T(x)}, {"dim", 0}, {"dtype", nullptr}}, {4, 4}, "blk");
  b.outputs = {y};
  const TorchGraph tg = load_op_trace(test::write_trace(b, "host"));
  ASSERT_EQ(tg.graph.nodes.size(), 1u);
  EXPECT_EQ(tg.graph.nodes[0].op_type, "aten::cumsum");
  EXPECT_EQ(tg.host_reasons.at("blk/cumsum#0"), "no device mapping for the ATen op 'aten::cumsum'");
}

TEST(TorchFrontend, EveryTableRowIsAnAtenOperatorOfTheRegistry) {
  // Oracle: the registry generated from torch's own schemas (scripts/gen_aten_registry.py).
  for (const auto& row : torch_frontend::aten_table())
    EXPECT_TRUE(torch_frontend::is_aten_operator(row.name)) << row.name;
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
    } catch (const Error& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  EXPECT_NE(error_of(full.substr(0, full.size() / 2), "trunc")
                .find("not a complete JSON document: parse error at byte"),
            std::string::npos);
  EXPECT_NE(error_of(full.substr(0, full.size() / 2), "trunc").find("truncated"), std::string::npos);
  EXPECT_NE(error_of("", "empty").find("empty file, not an op trace"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1}", "notrace").find("not an op trace"), std::string::npos);
  nlohmann::json v2 = b.json();
  v2["version"] = 2;
  EXPECT_NE(error_of(v2.dump(), "v2").find("op trace version 2 is not supported (this reader: 1..1)"),
            std::string::npos);
  nlohmann::json bad_dtype = b.json();
  bad_dtype["tensors"][0]["dtype"] = "float8";
  EXPECT_NE(error_of(bad_dtype.dump(), "dtype").find("tensor 0: unknown dtype 'float8'"), std::string::npos);
}

TEST(TorchFrontend, UnknownOpsAreErrorsNamingTheOp) {
  TraceBuilder b;
  const int64_t x = b.input({2, 2}, "x");
  b.outputs = {b.op1("aten::frobnicate.default", {{"self", T(x)}}, {2, 2}, "layer1")};
  EXPECT_NE(load_error(b, "unknown")
                .find("op 0 'aten::frobnicate.default' (module 'layer1'): unknown op "
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
                       {{"input", T(x)},
                        {"weight", T(w)},
                        {"bias", nullptr},
                        {"stride", {1, 1}},
                        {"padding", {0, 0}},
                        {"dilation", {1, 1}},
                        {"transposed", false},
                        {"output_padding", {0, 0}},
                        {"groups", 1}},
                       {1, 4, 8, 8}, "c1")};
    EXPECT_NE(
        load_error(b, "conv").find("op 0 'aten::convolution.default' (module 'c1'): inconsistent shapes: "
                                   "convolution gives [1,4,6,6], output 0 is [1,4,8,8]"),
        std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({2, 3}, "x"), y = b.input({4, 3}, "y");
    b.outputs = {b.op1("aten::add.Tensor", {{"self", T(x)}, {"other", T(y)}, {"alpha", 1}}, {2, 3})};
    EXPECT_NE(load_error(b, "bcast").find("inconsistent shapes: [2,3] and [4,3] do not broadcast"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({2, 3}, "x");
    b.outputs = {b.op1("aten::view.default", {{"self", T(x)}, {"size", {7}}}, {7})};
    EXPECT_NE(
        load_error(b, "view").find("inconsistent shapes: a view of [2,3] as [7] changes the element count"),
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
    EXPECT_NE(
        load_error(b, "twice").find("op 1 'aten::neg.default': output tensor 1 ('%1') is produced twice"),
        std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.tensor("input", {2, 2}, "z", "complex64");
    b.outputs = {b.op1("aten::neg.default", {{"self", T(x)}}, {2, 2})};
    EXPECT_NE(load_error(b, "complex")
                  .find("op 0 'aten::neg.default': tensor 'z' has dtype complex64, which the "
                        "platform cannot represent"),
              std::string::npos);
  }
  {
    TraceBuilder b;
    const int64_t x = b.input({1, 1, 4, 4}, "x"), w = b.param({1, 1, 3, 3}, "w");
    b.outputs = {b.op1("aten::convolution.default",
                       {{"input", T(x)},
                        {"weight", T(w)},
                        {"bias", nullptr},
                        {"stride", "two"},
                        {"padding", {0, 0}},
                        {"dilation", {1, 1}},
                        {"transposed", false},
                        {"output_padding", {0, 0}},
                        {"groups", 1}},
                       {1, 1, 2, 2})};
    EXPECT_NE(load_error(b, "argtype").find("argument 'stride' is not a list of integers"),
              std::string::npos);
  }
}

// Every field of a trace given the wrong JSON type is an Error naming the field, never the JSON
// library's exception ("internal error" in the CLI). Oracle: the reader's documented checks.
TEST(TorchFrontend, WrongJsonTypesAreErrorsNamingTheField) {
  TraceBuilder b;
  const int64_t x = b.input({2, 2}, "x");
  const int64_t y = b.op1("aten::relu.default", {{"self", T(x)}}, {2, 2}, "act");
  b.outputs = {y};
  b.ops[0]["aliases"] = {nullptr};
  const nlohmann::json base = b.json();
  const std::vector<std::pair<std::vector<std::string>, std::string>> fields = {
      {{"format"}, "not an op trace"},
      {{"version"}, "\"version\" is not an integer"},
      {{"producer"}, "\"producer\" is not a string"},
      {{"model"}, "\"model\" is not a string"},
      {{"mode"}, "\"mode\" is not a string"},
      {{"tensors"}, "\"tensors\" is not a list"},
      {{"inputs"}, "inputs is not a list of tensor ids"},
      {{"outputs"}, "outputs is not a list of tensor ids"},
      {{"ops"}, "\"ops\" is not a list"}};
  const std::vector<nlohmann::json> wrong = {nlohmann::json(3),        nlohmann::json(true),
                                             nlohmann::json::object(), nlohmann::json::array({1}),
                                             nlohmann::json(nullptr),  nlohmann::json(2.5)};
  auto error_of = [](const nlohmann::json& j, const std::string& stem) {
    const std::string path = test::write_trace(j.dump(), stem);
    try {
      load_op_trace(path);
    } catch (const Error& e) { return std::string(e.what()); } catch (const std::exception& e) {
      return std::string("not a photon::Error: ") + e.what();
    }
    return std::string("no error");
  };
  for (const auto& [path, text] : fields)
    for (const auto& v : wrong) {
      nlohmann::json j = base;
      j[path[0]] = v;
      const std::string e = error_of(j, "types");
      EXPECT_EQ(e.rfind("not a photon::Error", 0), std::string::npos)
          << path[0] << " = " << v.dump() << ": " << e;
      // Values of the field's own JSON type are checked further (version 3, [1] as tensors).
      const bool own_type =
          (path[0] == "version" && v.is_number_integer()) || (v.is_array() && path[0] != "format");
      if (!own_type) {
        EXPECT_NE(e.find(text), std::string::npos) << path[0] << " = " << v.dump() << ": " << e;
      }
    }
  for (const auto& v : wrong) {
    if (v.is_boolean()) continue;
    nlohmann::json j = base;
    j["ops"][0]["aliases"] = {{{"arg", "self"}, {"write", v}}};
    EXPECT_NE(error_of(j, "alias").find("aliases entry 0: \"write\" is not a bool"), std::string::npos)
        << v.dump();
    j = base;
    j["ops"][0]["module"] = v;
    if (!v.is_string()) {
      EXPECT_NE(error_of(j, "module").find("op 0: \"module\" is not a string"), std::string::npos);
    }
  }
}

TEST(TorchFrontend, NonFiniteConstantsAreFloatObjects) {
  TraceBuilder b;
  const int64_t x = b.input({3}, "x");
  b.tensors.push_back({{"kind", "constant"},
                       {"shape", {3}},
                       {"dtype", "float32"},
                       {"name", "c"},
                       {"data", {{{"float", "inf"}}, {{"float", "-inf"}}, {{"float", "nan"}}}}});
  const int64_t c = 1;
  b.outputs = {b.op1("aten::add.Tensor", {{"self", T(x)}, {"other", T(c)}, {"alpha", 1}}, {3})};
  const TorchGraph tg = load_op_trace(test::write_trace(b, "nonfinite"));
  const auto& d = tg.graph.tensor("c").data;
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(std::isinf(d[0]) && d[0] > 0);
  EXPECT_TRUE(std::isinf(d[1]) && d[1] < 0);
  EXPECT_TRUE(std::isnan(d[2]));
}

TEST(TorchFrontend, FifosAndDevicesAreRefusedBeforeAnyRead) {
  const std::string fifo = photon_test::scratch_path("fifo.ptrace");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto error_of = [](const std::string& path) {
    try {
      load_op_trace(path);
    } catch (const Error& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  const std::string what = ", expected an op trace (.ptrace)";
  EXPECT_EQ(error_of(fifo), fifo + ": not a regular file (a FIFO)" + what);  // would block
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: not a regular file (a character device)" + what);
  EXPECT_EQ(error_of(::testing::TempDir()), ::testing::TempDir() + ": is a directory" + what);
  std::remove(fifo.c_str());
}

// Checks against the ATen schemas of torch 1.13 (aten_schemas.txt): overloads, argument names,
// kinds and presence, and the number of results.
TEST(TorchFrontend, OpsAreCheckedAgainstTheirSchema) {
  auto mm_with = [](const std::string& op, nlohmann::json args, int outputs = 1) {
    TraceBuilder b;
    const int64_t x = b.input({2, 4}, "x"), w = b.param({4, 3}, "w");
    args["self"] = T(x);
    if (!args.contains("mat2")) args["mat2"] = T(w);
    if (args["mat2"].is_null()) args.erase("mat2");
    std::vector<std::vector<int64_t>> outs(static_cast<size_t>(outputs), std::vector<int64_t>{2, 3});
    b.outputs = {b.op(op, args, outs)[0]};
    return b;
  };
  EXPECT_NE(
      load_error(mm_with("aten::mm.Tensor", {}), "overload")
          .find("op 0 'aten::mm.Tensor': unknown overload 'Tensor' of aten::mm: torch 1.13 has default, out"),
      std::string::npos);
  EXPECT_NE(load_error(mm_with("aten::mm.default", {{"alpha", 2}}), "extra")
                .find("unknown argument 'alpha': the schema of aten::mm.default has self, mat2"),
            std::string::npos);
  EXPECT_NE(load_error(mm_with("aten::mm.default", {{"mat2", "w"}}), "kind2")
                .find("argument 'mat2' is not a tensor (it is a JSON string)"),
            std::string::npos);
  EXPECT_NE(load_error(mm_with("aten::mm.default", {{"mat2", nullptr}}), "missing")
                .find("missing argument 'mat2' (the schema of aten::mm.default gives it no default)"),
            std::string::npos);
  EXPECT_NE(load_error(mm_with("aten::mm.default", {}, 2), "outs")
                .find("2 outputs, the schema of aten::mm.default returns 1"),
            std::string::npos);
  TraceBuilder h;  // an op without a table row (a host node) is checked too
  const int64_t x = h.input({2, 4}, "x");
  h.outputs = {h.op1("aten::cumsum.default", {{"self", T(x)}, {"dim", "one"}}, {2, 4})};
  EXPECT_NE(load_error(h, "host").find(
                "op 0 'aten::cumsum.default': argument 'dim' is not an integer (it is a JSON string)"),
            std::string::npos);
}

TEST(TorchFrontend, ShapesAreCheckedAgainstTheOpsArguments) {
  auto one = [](const std::string& op, nlohmann::json args, std::vector<int64_t> in,
                std::vector<int64_t> out) {
    TraceBuilder b;
    const int64_t x = b.input(in, "x");
    args["self"] = T(x);
    b.outputs = {b.op1(op, args, out)};
    return b;
  };
  EXPECT_NE(load_error(one("aten::view.default", {{"size", {3, 2}}}, {2, 3}, {2, 3}), "viewsize")
                .find("inconsistent shapes: size [3,2] gives [3,2], output 0 is [2,3]"),
            std::string::npos);
  EXPECT_NE(load_error(one("aten::view.default", {{"size", {-1, 2}}}, {2, 3}, {2, 3}), "viewinfer")
                .find("size [-1,2] gives [3,2], output 0 is [2,3]"),
            std::string::npos);
  EXPECT_NE(load_error(one("aten::expand.default", {{"size", {4, -1}}, {"implicit", false}}, {1, 3}, {5, 3}),
                       "expand")
                .find("expand to size [4,-1] gives [4,3], output 0 is [5,3]"),
            std::string::npos);
  EXPECT_NE(load_error(one("aten::zeros_like.default", {}, {2, 3}, {3, 3}), "like")
                .find("a result like self gives [2,3], output 0 is [3,3]"),
            std::string::npos);
  TraceBuilder f;
  f.outputs = {f.op1("aten::zeros.default", {{"size", {2, 2}}}, {2, 3})};
  EXPECT_NE(
      load_error(f, "zeros")
          .find("op 0 'aten::zeros.default': inconsistent shapes: size [2,2] gives [2,2], output 0 is [2,3]"),
      std::string::npos);
  TraceBuilder c;  // grad_output of the wrong spatial size for the forward convolution
  const int64_t g = c.input({1, 4, 7, 7}, "g"), x = c.input({1, 3, 8, 8}, "x"),
                w = c.param({4, 3, 3, 3}, "w");
  c.outputs = {c.op("aten::convolution_backward.default",
                    {{"grad_output", T(g)},
                     {"input", T(x)},
                     {"weight", T(w)},
                     {"bias_sizes", {4}},
                     {"stride", {1, 1}},
                     {"padding", {0, 0}},
                     {"dilation", {1, 1}},
                     {"transposed", false},
                     {"output_padding", {0, 0}},
                     {"groups", 1},
                     {"output_mask", {true, true, true}}},
                    {{1, 3, 8, 8}, {4, 3, 3, 3}, {4}})[0]};
  EXPECT_NE(load_error(c, "convbw")
                .find("inconsistent shapes: grad_output [1,4,7,7] is not the output of the convolution "
                      "of input [1,3,8,8] with weight [4,3,3,3]"),
            std::string::npos);
}

}  // namespace
}  // namespace photon

// Op traces as workloads: the command stream of a traced conv + ReLU equals that of the same
// layers as an ONNX model (one operator graph, one lowering), and the coverage counts ATen ops.
#include <gtest/gtest.h>

#include "base/error.h"
#include "tests/workloads/onnx/model_builder.h"
#include "tests/workloads/torch/trace_util.h"
#include "workloads/driver/workload.h"

namespace photon {
namespace {

using test::T;
using test::TraceBuilder;

nlohmann::json conv_args(int64_t x, int64_t w, nlohmann::json bias) {
  return {{"input", T(x)}, {"weight", T(w)}, {"bias", bias}, {"stride", {1, 1}}, {"padding", {1, 1}},
          {"dilation", {1, 1}}, {"transposed", false}, {"output_padding", {0, 0}}, {"groups", 1}};
}

TEST(TorchWorkload, TracedConvReluLowersToTheSameCommandsAsTheOnnxModel) {
  TraceBuilder b;
  const int64_t x = b.input({1, 8, 16, 16}, "x"), w = b.param({16, 8, 3, 3}, "w"), bias = b.param({16}, "b");
  const int64_t c = b.op1("aten::convolution.default", conv_args(x, w, T(bias)), {1, 16, 16, 16});
  b.outputs = {b.op1("aten::relu.default", {{"self", T(c)}}, {1, 16, 16, 16})};
  const RunConfig cfg;
  const CompiledWorkload tw = compile_workload(test::write_trace(b, "convrelu"), cfg);

  test::TempDir dir;
  onnx::ModelProto m = test::new_model(14);
  test::add_input(m, "x", {1, 8, 16, 16});
  test::add_float_init(m, "w", {16, 8, 3, 3}, std::vector<float>(16 * 8 * 9, 0.5f));
  test::add_float_init(m, "b", {16}, std::vector<float>(16, 0.25f));
  auto* conv = test::add_node(m, "Conv", {"x", "w", "b"}, {"c"});
  test::set_ints(conv, "pads", {1, 1, 1, 1});
  test::add_node(m, "Relu", {"c"}, {"y"});
  test::add_output(m, "y");
  const CompiledWorkload ow = compile_workload(test::write_model(dir, "convrelu.onnx", m), cfg);

  ASSERT_EQ(tw.frontend, "torch");
  ASSERT_EQ(tw.program.commands.size(), ow.program.commands.size());
  for (size_t i = 0; i < ow.program.commands.size(); ++i) {
    EXPECT_EQ(tw.program.commands[i].opcode, ow.program.commands[i].opcode) << "command " << i;
    EXPECT_EQ(tw.program.commands[i].body.index(), ow.program.commands[i].body.index()) << "command " << i;
  }
}

TEST(TorchWorkload, CoverageCountsAtenOpsAndHostFallbacksNameTheAtenOp) {
  TraceBuilder b;
  const int64_t x = b.input({4, 8}, "x"), w = b.param({16, 8}, "fc.weight");
  const int64_t wt = b.op1("aten::t.default", {{"self", T(w)}}, {8, 16}, "fc");
  const int64_t y = b.op1("aten::mm.default", {{"self", T(x)}, {"mat2", T(wt)}}, {4, 16}, "fc");
  const int64_t v = b.op1("aten::view.default", {{"self", T(y)}, {"size", {64}}}, {64});
  b.outputs = {b.op1("aten::cumsum.default", {{"self", T(v)}, {"dim", 0}, {"dtype", nullptr}}, {64})};
  const CompiledWorkload w_ = compile_workload(test::write_trace(b, "coverage"), RunConfig());
  // As the report serialises it (workload_info, unsupported).
  const nlohmann::json info = w_.info.to_json();
  const auto& c = info.at("coverage");
  EXPECT_EQ(c.at("unit"), "ATen ops");
  EXPECT_EQ(c.at("nodes"), 4);
  EXPECT_EQ(c.at("folded"), 1);    // t() of the weight
  EXPECT_EQ(c.at("lowered"), 1);   // mm
  EXPECT_EQ(c.at("free"), 1);      // view
  EXPECT_EQ(c.at("fallback"), 1);  // cumsum
  EXPECT_EQ(c.at("lowered_by_op").at("aten::mm"), 1);
  EXPECT_EQ(c.at("fallback_by_op").at("aten::cumsum"), 1);
  ASSERT_EQ(w_.unsupported.size(), 1u);
  const nlohmann::json u = w_.unsupported[0].to_json();
  EXPECT_EQ(u.at("op"), "aten::cumsum");
  EXPECT_EQ(u.at("name"), "cumsum#3");
  EXPECT_EQ(u.at("graph_op"), "aten::cumsum");
  EXPECT_EQ(u.at("reason"), "no device mapping for the ATen op 'aten::cumsum'");
  // kHostFixedNs + kHostNsPerElement * (64 + 64) elements (workloads/lowering/ai_lowering.h).
  EXPECT_DOUBLE_EQ(u.at("host_cost_ns").get<double>(), 10000.0 + 128.0);
  EXPECT_EQ(info.at("graph_coverage").at("nodes"), 3);  // graph nodes: MatMul, Reshape, cumsum
  EXPECT_EQ(info.at("model"), "Test");
  EXPECT_EQ(info.at("frontend"), "torch");
}

TEST(TorchWorkload, ShapeOverridesAreRefusedForTraces) {
  TraceBuilder b;
  const int64_t x = b.input({2}, "x");
  b.outputs = {b.op1("aten::relu.default", {{"self", T(x)}}, {2})};
  CompileOptions o;
  o.shapes["x"] = {4};
  try {
    compile_workload(test::write_trace(b, "shape"), RunConfig(), o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--shape does not apply to an op trace"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace photon

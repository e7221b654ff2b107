// The ONNX op table (workloads/lowering/onnx_ops.h): its rows are consistent, and the element-wise
// rows lower to their kernel and compute the ONNX definition (oracle: <cmath> formulas of the ONNX
// operator specification, evaluated in double).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "isa/vector_ops.h"
#include "lowering_harness.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::testing {
namespace {

using lowering::OnnxOpRow;
using V = pcs::Vector;

TEST(OnnxOps, RowsAreUniqueFoundByNameAndNameDefinedKernels) {
  std::set<std::string> seen;
  for (const OnnxOpRow& row : lowering::onnx_op_rows()) {
    EXPECT_TRUE(seen.insert(row.op_type).second) << row.op_type;
    EXPECT_EQ(lowering::onnx_op(row.op_type), &row);
    EXPECT_TRUE(row.lower || row.view) << row.op_type << " neither lowers nor is a view";
    if (row.kernel != lowering::kNoKernel) {
      EXPECT_NE(pcs::vector_op_info(row.kernel), nullptr) << row.op_type << " names no vector op";
    }
  }
  EXPECT_EQ(lowering::onnx_op("NoSuchOp"), nullptr);
}

// Rows lowered by lower_unary: one node y = op(x) is one vector command with the row's kernel.
TEST(OnnxOps, EveryUnaryRowLowersToItsKernel) {
  int rows = 0;
  for (const OnnxOpRow& row : lowering::onnx_op_rows()) {
    if (row.lower != lowering::lower_unary) continue;
    ++rows;
    GraphBuilder b;
    b.input("x", {4, 8});
    b.tensor("y", {4, 8});
    b.g.outputs = {"y"};
    b.node(row.op_type, "n", {"x"}, {"y"});
    const lowering::LoweringResult r = lowering::lower_graph(b.g, PlatformConfig());
    ASSERT_TRUE(r.unsupported.empty()) << row.op_type;
    int vector_cmds = 0;
    for (const auto& c : r.program.commands)
      if (const auto* v = std::get_if<V>(&c.body)) {
        ++vector_cmds;
        EXPECT_EQ(v->op, row.kernel) << row.op_type;
      }
    EXPECT_EQ(vector_cmds, 1) << row.op_type;
  }
  EXPECT_GE(rows, 10);
}

// ONNX definitions of the unary ops (onnx/docs/Operators.md); Silu is x * sigmoid(x) as in
// PyTorch's SiLU (torch.nn.SiLU documentation).
TEST(OnnxOps, UnaryOpsComputeTheirDefinition) {
  const std::map<std::string, std::function<double(double)>> def = {
      {"Abs", [](double x) { return std::fabs(x); }},
      {"Erf", [](double x) { return std::erf(x); }},
      {"Exp", [](double x) { return std::exp(x); }},
      {"Neg", [](double x) { return -x; }},
      {"Reciprocal", [](double x) { return 1.0 / x; }},
      {"Relu", [](double x) { return x > 0 ? x : 0.0; }},
      {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"Silu", [](double x) { return x / (1.0 + std::exp(-x)); }},
      {"Sqrt", [](double x) { return std::sqrt(x); }},
      {"Tanh", [](double x) { return std::tanh(x); }},
      {"Gelu", [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }},
  };
  for (const auto& [op, f] : def) {
    GraphBuilder b;
    b.input("x", {3, 40});
    for (auto& v : b.inputs["x"]) v = 0.05f + 2.0f * std::fabs(v);  // > 0 for Sqrt and Reciprocal
    b.tensor("y", {3, 40});
    b.g.outputs = {"y"};
    b.node(op, "n", {"x"}, {"y"});
    lowering::LoweringResult r;
    const auto y = run_graph(b, PlatformConfig(), &r)["y"];
    ASSERT_TRUE(r.unsupported.empty()) << op;
    const auto& x = b.inputs["x"];
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y[i], f(x[i]), 1e-5 * (1 + std::fabs(f(x[i])))) << op;
  }
}

}  // namespace
}  // namespace photon::testing

// Multi-node graphs: the semaphore protocol keeps results identical under any legal interleaving of
// the queues (cross-op hazards through HBM and scratchpad reuse would change them).
#include <gtest/gtest.h>

#include <cmath>

#include "lowering_harness.h"
#include "ref_interpreter.h"

namespace photon::testing {
namespace {

using Attrs = std::map<std::string, AttrValue>;

GraphBuilder mini_cnn() {
  GraphBuilder b;
  b.g.opset = 13;
  b.input("x", {2, 3, 16, 16});
  b.weight("w1", {8, 3, 3, 3});
  b.weight("b1", {8});
  b.weight("s", {8});
  b.weight("bb", {8});
  b.weight("mu", {8});
  b.weight("var", {8}, std::vector<float>(8, 0.7f));
  b.weight("w2", {8, 8, 3, 3});
  b.weight("fw", {10, 8});
  b.weight("fb", {10});
  b.tensor("c1", {2, 8, 16, 16});
  b.tensor("n1", {2, 8, 16, 16});
  b.tensor("r1", {2, 8, 16, 16});
  b.tensor("p1", {2, 8, 8, 8});
  b.tensor("c2", {2, 8, 8, 8});
  b.tensor("a2", {2, 8, 8, 8});
  b.tensor("r2", {2, 8, 8, 8});
  b.tensor("g", {2, 8, 1, 1});
  b.tensor("f", {2, 8});
  b.tensor("fc", {2, 10});
  b.tensor("y", {2, 10});
  b.g.outputs = {"y"};
  const Attrs k3{{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  b.node("Conv", "conv1", {"x", "w1", "b1"}, {"c1"}, k3);
  b.node("BatchNormalization", "bn1", {"c1", "s", "bb", "mu", "var"}, {"n1"});
  b.node("Relu", "relu1", {"n1"}, {"r1"});
  b.node("MaxPool", "pool1", {"r1"}, {"p1"},
         Attrs{{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  b.node("Conv", "conv2", {"p1", "w2"}, {"c2"}, k3);
  b.node("Add", "add", {"c2", "p1"}, {"a2"});
  b.node("Relu", "relu2", {"a2"}, {"r2"});
  b.node("GlobalAveragePool", "gap", {"r2"}, {"g"});
  b.node("Flatten", "flat", {"g"}, {"f"});
  b.node("Gemm", "fc", {"f", "fw", "fb"}, {"fc"}, Attrs{{"transB", int64_t(1)}});
  b.node("Softmax", "prob", {"fc"}, {"y"});
  return b;
}

TEST(LoweringGraph, MiniCnnSameResultUnderRandomInterleavings) {
  GraphBuilder b = mini_cnn();
  for (const PlatformConfig& cfg : {PlatformConfig(), small_config()}) {
    lowering::LoweringResult r;
    auto ref = run_graph(b, cfg, &r)["y"];
    EXPECT_TRUE(r.functional_valid);
    EXPECT_EQ(r.nodes_free, 1);
    double s = 0;
    for (float v : ref) s += v;
    EXPECT_NEAR(s, 2.0, 1e-5);  // two softmax rows
    for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8})
      EXPECT_EQ(run_graph(b, cfg, nullptr, true, seed)["y"], ref) << "seed " << seed;
  }
}

TEST(LoweringGraph, AttentionHeadAsExported) {
  // q, k, v [1, 2 heads, 6 tokens, 4]; scores = softmax(q k^T / 2); out = scores v.
  GraphBuilder b;
  b.g.opset = 13;
  b.input("q", {1, 2, 6, 4});
  b.input("k", {1, 2, 6, 4});
  b.input("v", {1, 2, 6, 4});
  b.weight("scale", {}, {2.0f});
  b.tensor("kt", {1, 2, 4, 6});
  b.tensor("s", {1, 2, 6, 6});
  b.tensor("sd", {1, 2, 6, 6});
  b.tensor("p", {1, 2, 6, 6});
  b.tensor("o", {1, 2, 6, 4});
  b.g.outputs = {"o"};
  b.node("Transpose", "kT", {"k"}, {"kt"}, Attrs{{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  b.node("MatMul", "qk", {"q", "kt"}, {"s"});
  b.node("Div", "scale", {"s", "scale"}, {"sd"});
  b.node("Softmax", "softmax", {"sd"}, {"p"}, Attrs{{"axis", int64_t(-1)}});
  b.node("MatMul", "pv", {"p", "v"}, {"o"});
  const auto &Q = b.inputs["q"], &K = b.inputs["k"], &Vv = b.inputs["v"];
  std::vector<float> want(48);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 6; ++i) {
      double sc[6], mx = -1e30, sum = 0;
      for (int j = 0; j < 6; ++j) {
        double d = 0;
        for (int e = 0; e < 4; ++e) d += double(Q[(h * 6 + i) * 4 + e]) * K[(h * 6 + j) * 4 + e];
        sc[j] = d / 2.0;
        mx = std::max(mx, sc[j]);
      }
      for (double& x : sc) sum += (x = std::exp(x - mx));
      for (int e = 0; e < 4; ++e) {
        double o = 0;
        for (int j = 0; j < 6; ++j) o += sc[j] / sum * Vv[(h * 6 + j) * 4 + e];
        want[(h * 6 + i) * 4 + e] = float(o);
      }
    }
  auto got = run_graph(b, small_config(), nullptr, true, 12)["o"];
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

}  // namespace
}  // namespace photon::testing

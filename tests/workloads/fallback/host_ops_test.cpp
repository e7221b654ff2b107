// Host fallback references (workloads/fallback/host_ops.h) against PyTorch and NumPy: every case
// of host_op_cases.json (written by make_host_op_cases.py) is one node whose output must match
// the oracle's within fp32 rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "workloads/fallback/host_ops.h"

namespace photon::fallback {
namespace {

nlohmann::json cases() {
  std::ifstream in(std::string(PHOTON_SOURCE_DIR) + "/tests/workloads/fallback/host_op_cases.json");
  return nlohmann::json::parse(in);
}

HostTensor tensor_of(const nlohmann::json& j) {
  return {j["shape"].get<std::vector<int64_t>>(), j["data"].get<std::vector<float>>()};
}

// The case as a one-node graph: inputs in0.., output y.
Graph graph_of(const nlohmann::json& c) {
  Graph g;
  g.opset = 13;
  Node n;
  n.name = c["name"];
  n.op_type = c["op"];
  for (const auto& [k, v] : c["attrs"].items()) {
    if (v.is_string())
      n.attrs[k] = v.get<std::string>();
    else if (v.is_array())
      n.attrs[k] = v.get<std::vector<int64_t>>();
    else
      n.attrs[k] = v.get<int64_t>();
  }
  for (size_t k = 0; k < c["inputs"].size(); ++k) {
    const std::string name = "in" + std::to_string(k);
    n.inputs.push_back(name);
    TensorInfo t;
    t.name = name;
    t.shape = c["inputs"][k]["shape"].get<std::vector<int64_t>>();
    g.tensors[name] = t;
  }
  n.outputs = {"y"};
  TensorInfo y;
  y.name = "y";
  y.shape = c["output"]["shape"].get<std::vector<int64_t>>();
  g.tensors["y"] = y;
  g.nodes.push_back(n);
  return g;
}

TEST(HostOps, MatchTorchAndNumpy) {
  const auto all = cases()["cases"];
  ASSERT_GE(all.size(), 19u);
  for (const auto& c : all) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Graph g = graph_of(c);
    ASSERT_TRUE(has_host_op(g.nodes[0], g));
    std::vector<HostTensor> held;
    for (const auto& i : c["inputs"]) held.push_back(tensor_of(i));
    std::vector<const HostTensor*> inputs;
    for (const auto& h : held) inputs.push_back(&h);
    const auto out = run_host_op(g.nodes[0], g, inputs);
    ASSERT_EQ(out.size(), 1u);
    const HostTensor want = tensor_of(c["output"]);
    ASSERT_EQ(out[0].shape, want.shape);
    ASSERT_EQ(out[0].data.size(), want.data.size());
    for (size_t k = 0; k < want.data.size(); ++k)
      EXPECT_NEAR(out[0].data[k], want.data[k], 2e-5 * (1 + std::fabs(want.data[k]))) << "element " << k;
  }
}

TEST(HostOps, GatherIndexOutOfRangeIsAnError) {
  Graph g;
  Node n;
  n.name = "g";
  n.op_type = "Gather";
  n.inputs = {"d", "i"};
  n.outputs = {"y"};
  g.tensors["d"].shape = {3};
  g.tensors["i"].shape = {1};
  g.tensors["y"].shape = {1};
  g.nodes.push_back(n);
  const HostTensor d{{3}, {1, 2, 3}}, i{{1}, {3}};
  try {
    run_host_op(g.nodes[0], g, {&d, &i});
    FAIL() << "no Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of range for axis 0 of size 3"), std::string::npos) << e.what();
  }
}

TEST(HostOps, UnsupportedModesSayWhy) {
  Graph g;
  Node n;
  n.op_type = "Resize";
  n.inputs = {"x"};
  n.attrs["mode"] = std::string("lanczos");
  g.tensors["x"].shape = {1, 1, 2, 2};
  std::string why;
  EXPECT_FALSE(has_host_op(n, g, &why));
  EXPECT_EQ(why, "Resize mode 'lanczos' has no host reference");
  n.op_type = "MaxPool";
  n.outputs = {"y", "indices"};
  EXPECT_FALSE(has_host_op(n, g, &why));
  EXPECT_EQ(why, "MaxPool's Indices output has no host reference");
  n.op_type = "LpPool";
  EXPECT_FALSE(has_host_op(n, g, &why));
  EXPECT_EQ(why, "op type LpPool has no host reference");
}

// Cubic with exclude_outside and cubic_coeff_a = -0.5 (no PyTorch equivalent), against Keys'
// kernel in closed form: upsampling [a b c d] by 2 (half_pixel), output 0 sits at source
// coordinate -0.25, so its taps are -2, -1, 0, 1 at distances 1.75, 0.75, 0.25, 1.25; the two
// outside the input are excluded and the weights of 0 and 1 renormalised.
TEST(HostOps, CubicExcludeOutsideRenormalisesTheInsideTaps) {
  Graph g;
  Node n;
  n.op_type = "Resize";
  n.inputs = {"x"};
  n.outputs = {"y"};
  n.attrs["mode"] = std::string("cubic");
  n.attrs["cubic_coeff_a"] = -0.5f;
  n.attrs["exclude_outside"] = int64_t{1};
  g.tensors["x"].shape = {4};
  g.tensors["y"].shape = {8};
  g.nodes.push_back(n);
  const HostTensor x{{4}, {1.0f, 3.0f, -2.0f, 5.0f}};
  const auto y = run_host_op(g.nodes[0], g, {&x});
  const double A = -0.5;
  auto near = [&](double d) { return (A + 2) * d * d * d - (A + 3) * d * d + 1; };
  auto far = [&](double d) { return A * d * d * d - 5 * A * d * d + 8 * A * d - 4 * A; };
  const double w0 = near(0.25), w1 = far(1.25);
  EXPECT_NEAR(y[0].data[0], (w0 * 1.0 + w1 * 3.0) / (w0 + w1), 1e-6);
  // Output 3 (source 1.25) has all four taps inside: 0..3 at distances 1.25, 0.25, 0.75, 1.75.
  EXPECT_NEAR(y[0].data[3], far(1.25) * 1.0 + near(0.25) * 3.0 + near(0.75) * -2.0 + far(1.75) * 5.0, 1e-6);
}

}  // namespace
}  // namespace photon::fallback

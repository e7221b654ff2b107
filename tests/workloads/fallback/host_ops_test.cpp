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
  ASSERT_GE(all.size(), 11u);
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
  n.attrs["mode"] = std::string("cubic");
  g.tensors["x"].shape = {1, 1, 2, 2};
  std::string why;
  EXPECT_FALSE(has_host_op(n, g, &why));
  EXPECT_EQ(why, "Resize mode 'cubic' has no host reference");
  n.op_type = "MaxPool";
  EXPECT_FALSE(has_host_op(n, g, &why));
  EXPECT_EQ(why, "op type MaxPool has no host reference");
}

}  // namespace
}  // namespace photon::fallback

// Test helpers: build small graphs by hand, lower them, run them on the reference interpreter.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "soc/platform_config.h"
#include "workloads/graph/graph.h"
#include "workloads/lowering/ai_lowering.h"

namespace photon::testing {

struct GraphBuilder {
  Graph g;
  std::mt19937 rng{1234};

  std::vector<float> random(int64_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  }
  static int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
  }
  /// Graph input with random data (returned in `inputs`).
  void input(const std::string& name, const std::vector<int64_t>& shape) {
    TensorInfo t;
    t.name = name;
    t.shape = shape;
    g.tensors[name] = t;
    g.inputs.push_back(name);
    inputs[name] = random(numel(shape));
  }
  /// Constant with the given data (random if empty).
  void weight(const std::string& name, const std::vector<int64_t>& shape, std::vector<float> data = {}) {
    TensorInfo t;
    t.name = name;
    t.shape = shape;
    t.is_constant = true;
    t.data = data.empty() ? random(numel(shape)) : std::move(data);
    g.tensors[name] = t;
  }
  void ints(const std::string& name, const std::vector<int64_t>& vals) {
    TensorInfo t;
    t.name = name;
    t.dtype = DType::Int64;
    t.shape = {static_cast<int64_t>(vals.size())};
    t.is_constant = true;
    t.int_data = vals;
    g.tensors[name] = t;
  }
  void tensor(const std::string& name, const std::vector<int64_t>& shape) {
    TensorInfo t;
    t.name = name;
    t.shape = shape;
    g.tensors[name] = t;
  }
  Node& node(const std::string& op, const std::string& name, std::vector<std::string> ins,
             std::vector<std::string> outs, std::map<std::string, AttrValue> attrs = {}) {
    Node n;
    n.op_type = op;
    n.name = name;
    n.inputs = std::move(ins);
    n.outputs = std::move(outs);
    n.attrs = std::move(attrs);
    g.nodes.push_back(n);
    return g.nodes.back();
  }
  std::map<std::string, std::vector<float>> inputs;
};

/// Lowers and runs; returns every graph output. `interleaved` runs queues concurrently (seeded).
std::map<std::string, std::vector<float>> run_graph(const GraphBuilder& b, const PlatformConfig& cfg,
                                                    lowering::LoweringResult* out = nullptr,
                                                    bool interleaved = false, uint64_t seed = 1);

/// Small platform: 64 KiB scratchpad, 8 x 8 optical array, 4 wavelengths (forces tiling).
PlatformConfig small_config();

// Naive ONNX reference implementations (fp32 in, double accumulation).
std::vector<float> ref_conv(const std::vector<float>& x, const std::vector<int64_t>& xs,
                            const std::vector<float>& w, const std::vector<int64_t>& ws,
                            const std::vector<float>* bias, int64_t group, int64_t stride, int64_t pad,
                            std::vector<int64_t>& ys);
std::vector<float> ref_matmul(const std::vector<float>& a, std::vector<int64_t> as,
                              const std::vector<float>& b, std::vector<int64_t> bs, std::vector<int64_t>& ys);
/// Multidirectional broadcasting binary op: op in {'+','-','*','/','^','M','m'}.
std::vector<float> ref_broadcast(const std::vector<float>& a, std::vector<int64_t> as,
                                 const std::vector<float>& b, std::vector<int64_t> bs, char op,
                                 std::vector<int64_t>& ys);

}  // namespace photon::testing

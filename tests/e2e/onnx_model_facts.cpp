#include "tests/e2e/onnx_model_facts.h"

#include <cstring>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

namespace photon_e2e {
namespace {

uint64_t product(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) n *= uint64_t(d);
  return n;
}

// Values of an INT64 TensorProto (raw_data little-endian, or int64_data).
std::vector<int64_t> int64_values(const onnx::TensorProto& t) {
  std::vector<int64_t> v;
  if (!t.raw_data().empty()) {
    v.resize(t.raw_data().size() / 8);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 8);
  } else {
    v.assign(t.int64_data().begin(), t.int64_data().end());
  }
  return v;
}

}  // namespace

OnnxFacts read_onnx_facts(const std::string& path) {
  OnnxFacts f;
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  if (!in || !model.ParseFromIstream(&in)) {
    ADD_FAILURE() << "cannot parse " << path;
    return f;
  }
  const onnx::GraphProto& g = model.graph();
  std::set<std::string> constant;
  std::map<std::string, uint64_t> float_numel;  // float constants whose element count is known
  std::map<std::string, const onnx::TensorProto*> init;
  for (const auto& t : g.initializer()) {
    constant.insert(t.name());
    init[t.name()] = &t;
    if (t.data_type() == onnx::TensorProto::FLOAT)
      float_numel[t.name()] = product({t.dims().begin(), t.dims().end()});
  }
  for (const auto& vi : g.input()) {
    if (constant.count(vi.name())) continue;
    std::vector<int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim())
      dims.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : -1);
    f.inputs[vi.name()] = dims;
  }
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    bool all_const = true;
    for (const auto& x : n.input())
      if (!x.empty() && !constant.count(x)) all_const = false;
    if (n.op_type() == "Shape" || n.op_type() == "Size" || all_const) {
      for (const auto& y : n.output()) constant.insert(y);
    } else {
      f.compute_nodes.push_back(n.name().empty() ? n.op_type() + "_" + std::to_string(k) : n.name());
    }
    if (n.op_type() == "ConstantOfShape" && n.input_size() == 1 && init.count(n.input(0))) {
      int32_t type = onnx::TensorProto::FLOAT;  // ONNX default: a float 0
      for (const auto& a : n.attribute())
        if (a.name() == "value") type = a.t().data_type();
      if (type == onnx::TensorProto::FLOAT)
        float_numel[n.output(0)] = product(int64_values(*init.at(n.input(0))));
    }
  }
  std::set<std::string> weights;
  for (const auto& n : g.node())
    if ((n.op_type() == "Conv" || n.op_type() == "Gemm" || n.op_type() == "MatMul") && n.input_size() > 1 &&
        float_numel.count(n.input(1)))
      weights.insert(n.input(1));
  for (const auto& w : weights) f.gemm_weight_bytes += 4 * float_numel.at(w);
  return f;
}

}  // namespace photon_e2e

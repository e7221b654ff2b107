#include "workloads/torch/torch_frontend.h"
#include "base/file_read.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/torch/aten_builder.h"
#include "workloads/torch/op_trace.h"

namespace photon {
namespace {

using torch_frontend::AtenBuilder;
using torch_frontend::GraphState;

// torch dtype -> graph dtype; source_type names the model's type when DType does not (the
// ONNX spelling, as TensorInfo::source_type documents).
void set_dtype(TensorInfo& t, const std::string& d) {
  if (d == "float32")
    t.dtype = DType::Float32;
  else if (d == "float64")
    t.dtype = DType::Float32, t.source_type = "DOUBLE";
  else if (d == "bfloat16")
    t.dtype = DType::Float32, t.source_type = "BFLOAT16";
  else if (d == "float16")
    t.dtype = DType::Float16;
  else if (d == "int64")
    t.dtype = DType::Int64;
  else if (d == "int32")
    t.dtype = DType::Int32;
  else if (d == "int16")
    t.dtype = DType::Int32, t.source_type = "INT16";
  else if (d == "int8")
    t.dtype = DType::Int32, t.source_type = "INT8";
  else if (d == "uint8")
    t.dtype = DType::Int32, t.source_type = "UINT8";
  else if (d == "bool")
    t.dtype = DType::Bool;
  else
    t.dtype = DType::Other, t.source_type = d == "complex32"   ? "COMPLEX32"
                                            : d == "complex64" ? "COMPLEX64"
                                                               : "COMPLEX128";
}

TensorInfo tensor_info(const TraceTensor& tt) {
  TensorInfo t;
  t.name = tt.name;
  t.shape = tt.shape;
  set_dtype(t, tt.dtype);
  t.is_constant = tt.kind == TraceTensor::Kind::Param || tt.kind == TraceTensor::Kind::Constant;
  if (tt.kind == TraceTensor::Kind::Constant) {
    t.data.assign(tt.data.begin(), tt.data.end());
    if (t.dtype == DType::Int64 || t.dtype == DType::Int32 || t.dtype == DType::Bool)
      for (double v : tt.data) t.int_data.push_back(static_cast<int64_t>(v));
  }
  return t;
}

// Tensor ids an op's arguments reference.
std::vector<int64_t> arg_tensors(const TraceOp& op) {
  std::vector<int64_t> ids;
  for (const auto& [name, v] : op.args.items()) {
    if (!v.is_object()) continue;
    if (v.contains("tensor")) ids.push_back(v["tensor"].get<int64_t>());
    if (v.contains("tensors"))
      for (const auto& e : v["tensors"])
        if (!e.is_null()) ids.push_back(e.get<int64_t>());
  }
  return ids;
}

TorchGraph build(const OpTrace& trace) {
  TorchGraph r;
  r.model = trace.model;
  r.mode = trace.mode;
  r.producer = trace.producer;
  Graph& g = r.graph;
  g.name = trace.model.empty() ? "op_trace" : trace.model;
  g.opset = 17;  // nodes follow the ONNX operator definitions of opset 17 (docs/torch.md)
  for (const auto& tt : trace.tensors) g.tensors[tt.name] = tensor_info(tt);
  GraphState st{trace, g, std::vector<int>(trace.tensors.size(), 0), {}, {}, {}, {}};
  for (const auto& op : trace.ops)
    for (int64_t id : arg_tensors(op)) ++st.uses[static_cast<size_t>(id)];
  for (int64_t id : trace.outputs) ++st.uses[static_cast<size_t>(id)];

  for (const auto& op : trace.ops) {
    with_error_context(op_context(op), [&] {
      if (op.name.rfind("aten::", 0) != 0)
        throw Error("unknown op: only ATen operators (namespace aten) can be traced");
      const auto* row = torch_frontend::find_aten_row(op.name);
      if (!row && !torch_frontend::is_aten_operator(op.name))
        throw Error(fmt::format("unknown op '{}': not an ATen operator of torch 1.13", op.name));
      torch_frontend::check_schema(op);
      std::vector<int64_t> ids = arg_tensors(op);
      ids.insert(ids.end(), op.outputs.begin(), op.outputs.end());
      for (int64_t id : ids) {
        if (id < 0) continue;
        const TensorInfo& t = g.tensors.at(trace.tensors[static_cast<size_t>(id)].name);
        if (t.dtype == DType::Other)
          throw Error(fmt::format("tensor '{}' has dtype {}, which the platform cannot represent", t.name,
                                  trace.tensors[static_cast<size_t>(id)].dtype));
      }
      AtenOpRecord rec;
      rec.trace_index = op.index;
      rec.op = op.name;
      rec.module = op.module;
      rec.first_node = g.nodes.size();
      AtenBuilder b(st, op);
      bool all_const = true, any_tensor = false;
      for (int64_t id : arg_tensors(op)) {
        any_tensor = true;
        all_const = all_const && g.tensors.at(trace.tensors[static_cast<size_t>(id)].name).is_constant;
      }
      const bool any_output =
          std::any_of(op.outputs.begin(), op.outputs.end(), [](int64_t id) { return id >= 0; });
      if (!any_output) {
        b.set_note("no tensor result (a query of sizes or metadata)");
      } else if (row && row->movement && any_tensor && all_const) {
        for (size_t i = 0; i < op.outputs.size(); ++i)
          if (op.outputs[i] >= 0) b.make_constant(trace.tensors[static_cast<size_t>(op.outputs[i])].name);
        b.set_note("folded: data movement of constants");
        if (const auto src = torch_frontend::transposed_2d(b)) st.transpose_of[b.out(0)] = *src;
      } else if (row) {
        row->build(b);
      } else {
        b.host_node(fmt::format("no device mapping for the ATen op '{}'", op.name));
      }
      rec.node_count = g.nodes.size() - rec.first_node;
      rec.note = b.note();
      // Every result something reads must come from a node or be a constant.
      for (size_t i = 0; i < op.outputs.size(); ++i) {
        if (op.outputs[i] < 0 || st.uses[static_cast<size_t>(op.outputs[i])] == 0) continue;
        const std::string& name = trace.tensors[static_cast<size_t>(op.outputs[i])].name;
        if (!st.producer.count(name) && !g.tensors.at(name).is_constant)
          throw Error(fmt::format("output {} ('{}') is read later but the op's mapping does not produce it",
                                  i, name));
      }
      r.ops.push_back(std::move(rec));
    });
  }
  for (int64_t id : trace.inputs) g.inputs.push_back(trace.tensors[static_cast<size_t>(id)].name);
  for (int64_t id : trace.outputs) g.outputs.push_back(trace.tensors[static_cast<size_t>(id)].name);
  // Keep exactly the tensors the nodes, inputs and outputs reference.
  std::set<std::string> used(g.inputs.begin(), g.inputs.end());
  used.insert(g.outputs.begin(), g.outputs.end());
  for (const Node& n : g.nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    used.insert(n.outputs.begin(), n.outputs.end());
  }
  for (auto it = g.tensors.begin(); it != g.tensors.end();)
    it = used.count(it->first) ? std::next(it) : g.tensors.erase(it);
  r.host_reasons = std::move(st.host_reasons);
  return r;
}

}  // namespace

TorchGraph load_op_trace(const std::string& path) {
  regular_file_size(path, "an op trace (.ptrace)");  // its errors name the path themselves
  return with_error_context(path, [&] { return build(read_op_trace(path)); });
}

}  // namespace photon

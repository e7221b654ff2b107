// Torch frontend: an op trace (.ptrace, docs/torch.md) -> photon::Graph, the same operator
// graph the ONNX frontend builds, so traces and ONNX models share one lowering. Each ATen op
// becomes zero or more graph nodes through the ATen op table (aten_table.cpp, one row per op).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "workloads/graph/graph.h"

namespace photon {

/// Where one ATen op of the trace went in the graph.
struct AtenOpRecord {
  size_t trace_index = 0;   ///< position in the trace's ops
  std::string op;           ///< "aten::convolution" (without overload)
  std::string module;       ///< nn.Module path, "" if none
  size_t first_node = 0;    ///< graph nodes [first_node, first_node + node_count)
  size_t node_count = 0;    ///< 0: folded away (a view of constants, a factory, a BatchNorm folded into a conv)
  std::string note;         ///< why no nodes, e.g. "folded into the convolution 'conv1/convolution#0'"
};

/// A trace as an operator graph, with its provenance.
struct TorchGraph {
  Graph graph;              ///< nodes topologically sorted (trace order), every tensor static
  std::vector<AtenOpRecord> ops;  ///< one per trace op, in trace order
  std::map<std::string, std::string> host_reasons;  ///< graph node -> why it has no device mapping
  std::string model, mode, producer;  ///< from the trace header
};

/// Loads the op trace at `path`. Parameters and buffers become constants without data (a trace
/// has no weights), constants of the trace keep their values, inputs become graph inputs.
/// ATen ops with a table row are mapped onto ONNX-semantics nodes; data-movement ops whose
/// tensor arguments are all constants fold away; ATen operators without a row become host nodes
/// (op_type = the ATen name), which the lowering reports as host fallbacks.
/// Throws photon::Error with the file as the first context element and the op ("op 12
/// 'aten::mm.default' (module 'fc')") as the next for: anything read_op_trace() rejects, an op
/// outside namespace aten or not an ATen operator of the supported torch version ("unknown op"),
/// arguments of the wrong type, inconsistent shapes (outputs that do not follow from the inputs
/// under the op's semantics), and tensors of a dtype the platform cannot hold (complex).
TorchGraph load_op_trace(const std::string& path);

}  // namespace photon

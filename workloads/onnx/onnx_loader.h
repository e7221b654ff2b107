// ONNX frontend: .onnx file -> photon::Graph with every tensor's shape static and every
// shape-computation subgraph folded away.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/graph/graph.h"

namespace photon::onnx_frontend {

/// Loads the ONNX model at `path` and returns its operator graph.
///
/// Steps: parse the ModelProto; check the default-domain opset is in 9..17; give every graph
/// input (that is not an initializer) a static shape, from the model or from `shapes`
/// (name -> dims, the CLI's `--shape NAME=1x3x224x224`); run ONNX shape inference (with data
/// propagation); constant-fold every node computable from constants (initializers, Constant,
/// ConstantOfShape, Shape/Size of static shapes, and the shape arithmetic of const_fold.h);
/// re-run shape inference on the folded graph until every tensor has a static shape.
///
/// Result: `nodes` are the remaining compute nodes, topologically sorted, unnamed ones named
/// "<OpType>_<index in the file>"; `tensors` holds every tensor those nodes, the inputs and the
/// outputs reference. Constants have is_constant = true: ConstantOfShape results (and
/// initializers whose values are all equal) are splats (splat = true, splat_value, no data);
/// other constants carry data as fp32, integer ones also int_data. Node attributes of type
/// TENSOR, GRAPH, STRINGS etc. are not copied into Node::attrs.
///
/// Unsupported op types are kept (the lowering decides). Throws photon::Error, with the file as
/// the first context element, for: unreadable/non-ONNX/truncated file, empty graph, opset outside
/// 9..17, a node input or graph output that no node/input/initializer defines, a cycle, a symbolic
/// or missing input dimension without `shapes`, a `shapes` entry for an unknown input or of the
/// wrong rank, initializers of unsupported data types, shape inference failures, and any tensor
/// left without a static shape.
Graph load_onnx(const std::string& path, const std::map<std::string, std::vector<int64_t>>& shapes = {});

}  // namespace photon::onnx_frontend

// Facts about an ONNX model read straight from its ModelProto, without the photon frontend, so
// that they can serve as an independent oracle for the frontend's and the report's numbers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace photon_e2e {

struct OnnxFacts {
  /// Compute nodes: the nodes that remain once every node computable from constants is folded.
  /// A tensor is constant if it is an initializer or an output of a constant node; a node is
  /// constant if it is Shape or Size (every input shape is static once the inputs are) or if all
  /// its non-empty inputs are constant (Constant has none). Named as the loader names them: the
  /// node name, or "<OpType>_<index in the file>" when the node is unnamed.
  std::vector<std::string> compute_nodes;
  /// Graph inputs that are not initializers, with their dims (-1 where the model gives a
  /// symbolic or missing dimension).
  std::map<std::string, std::vector<int64_t>> inputs;
  /// fp32 weight bytes of the distinct B operands (input 1) of Conv, Gemm and MatMul nodes that
  /// are float initializers or outputs of ConstantOfShape with an initializer shape (the light
  /// model-zoo and torch exports replace weights by ConstantOfShape). Each must cross the HBM
  /// interface at least once on its way to the optical engine.
  uint64_t gemm_weight_bytes = 0;
};

/// Reads `path` (an ONNX ModelProto) and derives the facts above. Fails the test on an
/// unreadable file.
OnnxFacts read_onnx_facts(const std::string& path);

}  // namespace photon_e2e

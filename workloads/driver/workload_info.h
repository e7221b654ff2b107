// What a frontend and its lowering tell the report about a workload: facts per frontend
// (`workload_info`) and the ops that were not mapped to the device (`unsupported`).
// Typed here, serialised once by to_json() (docs/report.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace photon {

/// An op that fell back to the host or was skipped, and why.
struct UnsupportedOp {
  std::string op;                       ///< ONNX op type, ATen op or FHE op
  std::optional<std::string> name;      ///< graph node name (graph frontends)
  std::optional<std::string> location;  ///< file:line:col (HEIR)
  std::string reason;
  std::optional<double> host_cost_ns;  ///< stated host cost of a fallback, ns
  std::optional<std::string> graph_op;  ///< op traces: the graph op type the ATen op became
  nlohmann::json to_json() const;
};

/// Operator-graph frontends (ONNX): node coverage by outcome.
struct GraphInfo {
  std::string graph;
  int64_t opset = 0;
  int64_t opset_converted_from = 0;  ///< the file's opset when the frontend converted the model, else 0
  int nodes = 0, lowered = 0, free = 0, folded = 0, fallback = 0;
  std::map<std::string, int> lowered_by_op, fallback_by_op;
  double host_fallback_ns = 0;       ///< sum of the fallbacks' host_cost_ns
  uint64_t hbm_footprint_bytes = 0;  ///< from noc.hbm_base
  std::string unit = "nodes";        ///< what the coverage counts: "nodes", or "ATen ops" (op traces)
};

/// Op traces (PyTorch, docs/torch.md): the trace's header and the lowering's count of graph
/// nodes (GraphInfo's coverage then counts ATen ops).
struct TraceInfo {
  std::string model, mode, producer;
  int nodes = 0, lowered = 0, free = 0, folded = 0, fallback = 0;  ///< graph nodes by outcome
};

/// FHE frontends (HEIR): the program's scheme ops and the parameters derived for it.
struct FheInfo {
  std::string scheme;
  uint64_t fhe_ops = 0;
  std::map<std::string, int> fhe_op_counts;  ///< by kind
  std::vector<std::string> derived;          ///< parameters the IR left implicit, and how they were derived
  std::vector<std::string> warnings;
};

struct WorkloadInfo {
  std::string frontend;   ///< "onnx", "torch", "heir", "pcs", "pasm"
  uint64_t commands = 0;  ///< commands in the stream
  std::optional<GraphInfo> graph;
  std::optional<FheInfo> fhe;
  std::optional<TraceInfo> trace;
  /// Why functional outputs are not exact, precision notes, missing inputs.
  std::vector<std::string> functional_notes;
  nlohmann::json to_json() const;
};

}  // namespace photon

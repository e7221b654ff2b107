// The part of a workload that every AI frontend (ONNX models, op traces) shares once its graph
// is lowered: splat fills, unsupported list, input/output bindings, the command-ring check and
// the graph-node coverage.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "soc/platform_config.h"
#include "workloads/driver/workload.h"
#include "workloads/graph/graph.h"
#include "workloads/lowering/ai_lowering.h"

namespace photon {

/// Moves the lowered program of `g` into a CompiledWorkload (frontend and info left for the
/// caller). Throws Error (context: `path`) if a graph input or output was not placed, or if
/// cpu.ring_base lies inside the model's HBM footprint.
CompiledWorkload ai_workload(const Graph& g, lowering::LoweringResult& r, const std::string& path,
                             const PlatformConfig& cfg);

/// Coverage of the graph's nodes by outcome, the report's `workload_info.coverage` keys: nodes,
/// lowered, free, folded, fallback, lowered_by_op, fallback_by_op.
nlohmann::json graph_coverage(const lowering::LoweringResult& r);

}  // namespace photon

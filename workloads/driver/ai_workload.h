// The part of a workload that every AI frontend (ONNX models, op traces) shares once its graph
// is lowered: splat fills, unsupported list, input/output bindings, the command-ring check and
// the graph-node coverage.
#pragma once

#include <string>

#include "soc/platform_config.h"
#include "workloads/driver/workload.h"
#include "workloads/graph/graph.h"
#include "workloads/lowering/ai_lowering.h"

namespace photon {

/// Moves the lowered program of `g` into a CompiledWorkload: program, fills, bindings,
/// functional_exact, one UnsupportedOp per host fallback, and info.graph with the coverage of
/// the graph's nodes (frontend and the rest of info are the caller's). Throws Error (context:
/// `path`) if a graph input or output was not placed, or if cpu.ring_base lies inside the model's
/// HBM footprint.
CompiledWorkload ai_workload(const Graph& g, lowering::LoweringResult& r, const std::string& path,
                             const PlatformConfig& cfg);

}  // namespace photon

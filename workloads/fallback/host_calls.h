// The host side of host fallback in functional mode: the program the AI lowering emits hands
// each fallback node with a host reference (host_ops.h) to the host through two semaphores
// (LoweringResult::host_call_nodes); the host reads the node's inputs from HBM (constants from the
// graph), computes it and writes its outputs to HBM. Tensors in HBM are row-major fp32, integer
// tensors (indices) as fp32 values, as the platform's tensor bindings hold them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "soc/platform.h"
#include "workloads/graph/graph.h"

namespace photon::fallback {

/// What the host needs to serve a program's host calls.
struct HostCallPlan {
  Graph graph;                              ///< the lowered graph (shapes, attributes, constants)
  std::vector<size_t> nodes;                ///< per host call, in program order: index into graph.nodes
  std::vector<double> cost_ns;              ///< per host call: simulated host time, ns (ai_lowering.h)
  std::map<std::string, uint64_t> address;  ///< data-NoC address of every placed tensor
  uint32_t request_sem = 0, done_sem = 0;
};

/// Installs the host side of `plan` on `p` (Platform::serve_host_calls): host call k computes
/// node plan.nodes[k] with run_host_op() and takes plan.cost_ns[k] of simulated time. A request
/// beyond the plan, or a node the reference rejects (a Gather index out of range), ends the run
/// with an error naming the node.
void serve_host_calls(Platform& p, const HostCallPlan& plan);

}  // namespace photon::fallback

#include "workloads/driver/ai_workload.h"

#include "base/error.h"

namespace photon {

CompiledWorkload ai_workload(const Graph& g, lowering::LoweringResult& r, const std::string& path,
                             const PlatformConfig& cfg) {
  CompiledWorkload w;
  w.program = std::move(r.program);
  for (const auto& f : r.splat_fills) w.fills.push_back(FloatFill{f.address, f.bytes / 4, f.value});
  for (const auto& u : r.unsupported)
    w.unsupported.push_back({u.op, u.node, std::nullopt, u.reason, u.host_cost_ns, std::nullopt});
  auto bind = [&](const std::string& name) {
    auto it = r.tensor_address.find(name);
    if (it == r.tensor_address.end())
      throw Error("graph tensor '" + name + "' was not placed in HBM by the lowering").with_context(path);
    return TensorBinding{name, it->second, g.tensor(name).shape};
  };
  for (const auto& in : g.inputs) w.inputs.push_back(bind(in));
  for (const auto& out : g.outputs) w.outputs.push_back(bind(out));
  w.functional_exact = r.functional_valid;
  if (!r.host_call_nodes.empty()) {
    auto plan = std::make_shared<fallback::HostCallPlan>();
    plan->graph = g;
    plan->nodes = r.host_call_nodes;
    plan->address = r.tensor_address;
    plan->request_sem = r.host_request_sem;
    plan->done_sem = r.host_done_sem;
    for (size_t k : r.host_call_nodes) {
      double ns = 0;
      for (const auto& u : r.unsupported)
        if (u.node == g.nodes[k].name) ns = u.host_cost_ns;
      plan->cost_ns.push_back(ns);
    }
    w.host_calls = std::move(plan);
  }
  const uint64_t ring_lo = cfg.noc.hbm_base + cfg.cpu.ring_base;
  if (ring_lo < cfg.noc.hbm_base + r.hbm_bytes)
    throw Error("cpu.ring_base: the command ring at " + std::to_string(cfg.cpu.ring_base) +
                " lies inside the model's HBM footprint of " + std::to_string(r.hbm_bytes) + " bytes")
        .with_context(path);
  GraphInfo info;
  info.graph = g.name;
  info.opset = g.opset;
  info.opset_converted_from = g.opset_converted_from;
  info.nodes = r.nodes_total;
  info.lowered = r.nodes_lowered;
  info.free = r.nodes_free;
  info.folded = r.nodes_folded;
  info.fallback = r.nodes_fallback;
  info.lowered_by_op = r.lowered_by_op;
  info.fallback_by_op = r.fallback_by_op;
  info.host_fallback_ns = r.host_fallback_ns;
  info.hbm_footprint_bytes = r.hbm_bytes;
  w.info.graph = info;
  w.info.functional_notes = r.functional_notes;
  return w;
}

}  // namespace photon

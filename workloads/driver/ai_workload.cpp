#include "workloads/driver/ai_workload.h"

#include "base/error.h"

namespace photon {

CompiledWorkload ai_workload(const Graph& g, lowering::LoweringResult& r, const std::string& path,
                             const PlatformConfig& cfg) {
  CompiledWorkload w;
  w.program = std::move(r.program);
  for (const auto& f : r.splat_fills) w.fills.push_back(FloatFill{f.address, f.bytes / 4, f.value});
  for (const auto& u : r.unsupported)
    w.unsupported.push_back({{"op", u.op}, {"name", u.node}, {"reason", u.reason},
                             {"host_cost_ns", u.host_cost_ns}});
  auto bind = [&](const std::string& name) {
    auto it = r.tensor_address.find(name);
    if (it == r.tensor_address.end())
      throw Error("graph tensor '" + name + "' was not placed in HBM by the lowering").with_context(path);
    return TensorBinding{name, it->second, g.tensor(name).shape};
  };
  for (const auto& in : g.inputs) w.inputs.push_back(bind(in));
  for (const auto& out : g.outputs) w.outputs.push_back(bind(out));
  w.functional_exact = r.functional_valid;
  const uint64_t ring_lo = cfg.noc.hbm_base + cfg.cpu.ring_base;
  if (ring_lo < cfg.noc.hbm_base + r.hbm_bytes)
    throw Error("cpu.ring_base: the command ring at " + std::to_string(cfg.cpu.ring_base) +
                " lies inside the model's HBM footprint of " + std::to_string(r.hbm_bytes) + " bytes")
        .with_context(path);
  return w;
}

nlohmann::json graph_coverage(const lowering::LoweringResult& r) {
  return {{"nodes", r.nodes_total}, {"lowered", r.nodes_lowered}, {"free", r.nodes_free},
          {"folded", r.nodes_folded}, {"fallback", r.nodes_fallback}, {"lowered_by_op", r.lowered_by_op},
          {"fallback_by_op", r.fallback_by_op}};
}

}  // namespace photon

// .ptrace -> torch frontend -> AI lowering. Coverage counts ATen ops the way the ONNX path counts
// nodes: an ATen op is "fallback" if any of its graph nodes runs on the host, else "lowered" if
// any runs on the device, else "free" if it is only views, else "folded" (docs/torch.md).
#include <map>

#include "base/error.h"
#include "workloads/driver/ai_workload.h"
#include "workloads/driver/workload.h"
#include "workloads/lowering/ai_lowering.h"
#include "workloads/lowering/memory_plan.h"
#include "workloads/torch/torch_frontend.h"

namespace photon {

CompiledWorkload compile_torch(const std::string& path, const RunConfig& cfg) {
  TorchGraph tg = load_op_trace(path);
  const Graph& g = tg.graph;
  lowering::LoweringResult r = with_error_context(path, [&] { return lowering::lower_graph(g, cfg); });
  std::map<std::string, lowering::Fallback> fallback;
  for (const auto& u : r.unsupported) fallback[u.node] = u;
  CompiledWorkload w = ai_workload(g, r, path, cfg);
  w.frontend = "torch";
  TraceInfo trace{tg.model, tg.mode, tg.producer, w.info.graph->nodes, w.info.graph->lowered, w.info.graph->free,
                  w.info.graph->folded, w.info.graph->fallback};
  GraphInfo& cov = *w.info.graph;
  cov.unit = "ATen ops";
  cov.nodes = static_cast<int>(tg.ops.size());
  cov.lowered = cov.free = cov.folded = cov.fallback = 0;
  cov.lowered_by_op.clear();
  cov.fallback_by_op.clear();
  // Host fallbacks by ATen op, with the frontend's reason where it has one.
  w.unsupported.clear();
  for (const AtenOpRecord& rec : tg.ops) {
    bool any_host = false, any_device = false, any_view = false;
    for (size_t i = rec.first_node; i < rec.first_node + rec.node_count; ++i) {
      const Node& n = g.nodes[i];
      auto f = fallback.find(n.name);
      if (f != fallback.end()) {
        any_host = true;
        auto why = tg.host_reasons.find(n.name);
        w.unsupported.push_back({rec.op, n.name, std::nullopt,
                                 why != tg.host_reasons.end() ? why->second : f->second.reason,
                                 f->second.host_cost_ns, n.op_type});
      } else if (lowering::is_folded_node(n, g)) {
      } else if (lowering::is_view_node(n, g)) {
        any_view = true;
      } else {
        any_device = true;
      }
    }
    if (any_host) ++cov.fallback, ++cov.fallback_by_op[rec.op];
    else if (any_device) ++cov.lowered, ++cov.lowered_by_op[rec.op];
    else if (any_view) ++cov.free, ++cov.lowered_by_op[rec.op];
    else ++cov.folded;
  }
  w.info.trace = trace;
  return w;
}

}  // namespace photon

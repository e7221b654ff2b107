// .ptrace -> torch frontend -> AI lowering. Coverage counts ATen ops the way the ONNX path counts
// nodes: an ATen op is "fallback" if any of its graph nodes runs on the host, else "lowered" if
// any runs on the device, else "free" if it is only views, else "folded".
#include <set>

#include "base/error.h"
#include "workloads/driver/ai_workload.h"
#include "workloads/driver/workload.h"
#include "workloads/lowering/ai_lowering.h"
#include "workloads/lowering/memory_plan.h"
#include "workloads/torch/torch_frontend.h"

namespace photon {

CompiledWorkload compile_torch(const std::string& path, const RunConfig& cfg, const CompileOptions& opts) {
  if (!opts.shapes.empty())
    throw Error("--shape does not apply to an op trace: its shapes were fixed when it was traced").with_context(path);
  TorchGraph tg = load_op_trace(path);
  const Graph& g = tg.graph;
  lowering::LoweringResult r = with_error_context(path, [&] { return lowering::lower_graph(g, cfg); });
  std::map<std::string, const lowering::Fallback*> fallback;
  for (const auto& u : r.unsupported) fallback[u.node] = &u;
  const nlohmann::json nodes = graph_coverage(r);
  CompiledWorkload w = ai_workload(g, r, path, cfg);
  w.frontend = "torch";
  // Host fallbacks by ATen op, with the frontend's reason where it has one.
  w.unsupported = nlohmann::json::array();
  int lowered = 0, free_ops = 0, folded = 0, host = 0;
  std::map<std::string, int> lowered_by_op, fallback_by_op;
  for (const AtenOpRecord& rec : tg.ops) {
    bool any_host = false, any_device = false, any_view = false;
    for (size_t i = rec.first_node; i < rec.first_node + rec.node_count; ++i) {
      const Node& n = g.nodes[i];
      auto f = fallback.find(n.name);
      if (f != fallback.end()) {
        any_host = true;
        auto why = tg.host_reasons.find(n.name);
        w.unsupported.push_back({{"op", rec.op}, {"name", n.name}, {"graph_op", n.op_type},
                                 {"reason", why != tg.host_reasons.end() ? why->second : f->second->reason},
                                 {"host_cost_ns", f->second->host_cost_ns}});
      } else if (lowering::is_folded_node(n, g)) {
      } else if (lowering::is_view_node(n, g)) {
        any_view = true;
      } else {
        any_device = true;
      }
    }
    if (any_host) ++host, ++fallback_by_op[rec.op];
    else if (any_device) ++lowered, ++lowered_by_op[rec.op];
    else if (any_view) ++free_ops, ++lowered_by_op[rec.op];
    else ++folded;
  }
  nlohmann::json coverage = {{"nodes", static_cast<int>(tg.ops.size())}, {"lowered", lowered}, {"free", free_ops},
                             {"folded", folded}, {"fallback", host}, {"lowered_by_op", lowered_by_op},
                             {"fallback_by_op", fallback_by_op}, {"unit", "ATen ops"}};
  w.info = {{"graph", g.name}, {"model", tg.model}, {"mode", tg.mode}, {"producer", tg.producer},
            {"coverage", coverage}, {"graph_coverage", nodes}, {"host_fallback_ns", r.host_fallback_ns},
            {"hbm_footprint_bytes", r.hbm_bytes}, {"functional_notes", r.functional_notes}};
  return w;
}

}  // namespace photon

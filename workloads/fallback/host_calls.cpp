#include "workloads/fallback/host_calls.h"

#include "base/error.h"
#include "workloads/fallback/host_ops.h"

namespace photon::fallback {
namespace {

HostTensor read_tensor(const Platform& p, const HostCallPlan& plan, const std::string& name) {
  const TensorInfo& t = plan.graph.tensor(name);
  HostTensor h;
  h.shape = t.shape;
  const size_t n = size_t(t.numel());
  if (t.is_constant) {
    if (!t.data.empty())
      h.data = t.data;
    else if (t.splat)
      h.data.assign(n, t.splat_value);
    else if (n)
      throw Error("constant '" + name + "' has no data");
    return h;
  }
  h.data.resize(n);
  if (n) p.read(plan.address.at(name), h.data.data(), n * 4);
  return h;
}

void compute(Platform& p, const HostCallPlan& plan, const Node& n) {
  std::vector<HostTensor> held;
  held.reserve(n.inputs.size());
  for (const auto& nm : n.inputs) held.push_back(nm.empty() ? HostTensor{} : read_tensor(p, plan, nm));
  std::vector<const HostTensor*> inputs;
  for (size_t k = 0; k < n.inputs.size(); ++k) inputs.push_back(n.inputs[k].empty() ? nullptr : &held[k]);
  std::vector<HostTensor> out = run_host_op(n, plan.graph, inputs);
  for (size_t k = 0; k < n.outputs.size() && k < out.size(); ++k) {
    auto a = plan.address.find(n.outputs[k]);
    if (n.outputs[k].empty() || a == plan.address.end() || out[k].data.empty()) continue;
    p.write(a->second, out[k].data.data(), out[k].data.size() * 4);
  }
}

}  // namespace

void serve_host_calls(Platform& p, const HostCallPlan& plan) {
  if (plan.nodes.empty()) return;
  p.serve_host_calls(plan.request_sem, plan.done_sem, [&p, &plan](uint32_t k) {
    if (k >= plan.nodes.size())
      throw Error("request beyond the " + std::to_string(plan.nodes.size()) + " host calls of the program");
    const Node& n = plan.graph.nodes[plan.nodes[k]];
    with_error_context("node '" + n.name + "' (" + n.op_type + ")", [&] { compute(p, plan, n); });
    return plan.cost_ns[k];
  });
}

}  // namespace photon::fallback

#include "workloads/lowering/ai_lowering.h"

#include <cstring>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {
namespace {

bool is_fp32_device_tensor(const TensorInfo& t) { return t.dtype == DType::Float32; }

/// Constant data of the plan's fp32 constants: a segment for materialised data, a fill for a
/// splat; a constant without either makes functional outputs invalid.
void place_constants(const Graph& g, const HbmPlan& plan, LoweringResult& res) {
  for (const auto& [name, addr] : plan.address) {
    auto it = g.tensors.find(name);
    if (it == g.tensors.end() || !it->second.is_constant) continue;
    const TensorInfo& t = it->second;
    if (t.dtype != DType::Float32) continue;
    if (!t.data.empty()) {
      if (static_cast<int64_t>(t.data.size()) != t.numel())
        throw Error(fmt::format("constant '{}': {} values for {} elements", name, t.data.size(), t.numel()));
      pcs::Segment s;
      s.address = addr;
      s.bytes.resize(t.data.size() * 4);
      std::memcpy(s.bytes.data(), t.data.data(), s.bytes.size());
      res.program.segments.push_back(std::move(s));
    } else if (auto v = splat_of(t)) {
      res.splat_fills.push_back({name, addr, uint64_t(t.numel()) * 4, *v});
    } else if (t.numel() > 0) {
      res.functional_valid = false;
      res.functional_notes.push_back(fmt::format("constant '{}' has no data", name));
    }
  }
}

/// Records node `n` (op-table entry `tag`) as a host fallback for `reason`, with its host cost
/// (kHostFixedNs + kHostNsPerElement * input and output elements).
void fall_back(const Node& n, const Graph& g, uint32_t tag, const std::string& reason, LoweringResult& res) {
  double elems = 0;
  for (const auto& nm : n.inputs)
    if (!nm.empty() && g.tensors.count(nm)) elems += double(g.tensors.at(nm).numel());
  for (const auto& nm : n.outputs)
    if (!nm.empty() && g.tensors.count(nm)) elems += double(g.tensors.at(nm).numel());
  Fallback f{n.op_type, n.name, reason, kHostFixedNs + kHostNsPerElement * elems};
  res.program.ops[tag].detail = "host fallback: " + reason;
  res.host_fallback_ns += f.host_cost_ns;
  res.unsupported.push_back(f);
  ++res.nodes_fallback;
  ++res.fallback_by_op[n.op_type];
  res.functional_valid = false;
  res.functional_notes.push_back(fmt::format(
      "node '{}' ({}) runs on the host; the device leaves its outputs unwritten", n.name, n.op_type));
}

}  // namespace

LoweringResult lower_graph(const Graph& g, const PlatformConfig& cfg) {
  LoweringResult res;
  // Bad attributes or unrepresentable types are errors of the model, found before any planning.
  for (const Node& n : g.nodes)
    with_error_context(fmt::format("node '{}' ({})", n.name, n.op_type), [&] { validate_node(n, g); });
  // Tensors held as fp32 although the model declares another float type (TensorInfo::source_type).
  for (const auto& [name, t] : g.tensors)
    if (t.dtype == DType::Float32 && !t.source_type.empty())
      res.functional_notes.push_back(fmt::format(
          "tensor '{}' is {} in the model; the platform holds and computes it in fp32", name, t.source_type));
  HbmPlan plan = plan_hbm(g, cfg);
  place_constants(g, plan, res);
  SemTable sems;
  Ctx base{g, cfg, res, plan};
  base.sems = &sems;
  base.spm_base = cfg.noc.scratchpad_base;
  base.spm_bytes = cfg.scratchpad.size_bytes();
  for (const Node& n : g.nodes) {
    ++res.nodes_total;
    if (is_folded_node(n, g)) {
      ++res.nodes_folded;
      res.program.add_op({n.name, n.op_type, "folded: every output is a constant, no commands"});
      continue;
    }
    if (is_view_node(n, g)) {
      ++res.nodes_free;
      ++res.lowered_by_op[n.op_type];
      res.program.add_op({n.name, n.op_type, "view: same HBM address as the input, no commands"});
      continue;
    }
    const uint32_t tag = res.program.add_op({n.name, n.op_type, ""});
    Ctx c = base;
    c.node = &n;
    c.tag = tag;
    const size_t cmd0 = res.program.commands.size(), seg0 = res.program.segments.size(),
                 fill0 = res.splat_fills.size();
    try {
      c.row = onnx_op(n.op_type);
      if (!c.row || !c.row->lower) throw Unsupported{"no device mapping for this op type"};
      for (const auto& nm : n.inputs)
        if (!nm.empty() && !c.t(nm).is_constant && !is_fp32_device_tensor(c.t(nm)))
          throw Unsupported{fmt::format("input '{}' is not fp32", nm)};
      for (const auto& nm : n.outputs)
        if (!nm.empty() && !is_fp32_device_tensor(c.t(nm)))
          throw Unsupported{fmt::format("output '{}' is not fp32", nm)};
      res.program.ops[tag].detail = c.row->lower(c);
      ++res.nodes_lowered;
      ++res.lowered_by_op[n.op_type];
    } catch (const Unsupported& u) {
      res.program.commands.resize(cmd0);
      res.program.segments.resize(seg0);
      res.splat_fills.resize(fill0);
      fall_back(n, g, tag, u.reason, res);
    } catch (Error& e) {
      if (e.message().rfind("node '", 0) != 0)
        e.with_context(fmt::format("node '{}' ({})", n.name, n.op_type));
      throw;
    }
  }
  pcs::Command end;
  end.opcode = pcs::Opcode::End;
  end.body = pcs::End{};
  res.program.commands.push_back(end);
  res.tensor_address = plan.address;
  res.hbm_bytes = plan.end - plan.base;
  return res;
}

}  // namespace photon::lowering

#include "models/vector/vector_engine.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "isa/vector_ops.h"
#include "models/vector/vector_kernels.h"

namespace photon {

namespace {

std::vector<float> load(const MemView& spm, uint64_t off, uint64_t bytes) {
  std::vector<float> v(bytes / 4);
  if (bytes) std::memcpy(v.data(), spm.data + off, bytes);
  return v;
}

}  // namespace

VectorEngine::VectorEngine(const VectorConfig& cfg) : cfg_(cfg) {
  if (cfg_.lanes == 0) throw Error("vector.lanes must be positive");
  if (!(cfg_.clock_ghz > 0)) throw Error("vector.clock_ghz must be positive");
}

IssueResult VectorEngine::issue(const pcs::Command& cmd, uint64_t now_cycle, const MemView& spm) {
  const auto* vp = std::get_if<pcs::Vector>(&cmd.body);
  if (cmd.opcode != pcs::Opcode::Vector || !vp)
    throw UnitFault(UnitErrorCode::DECODE, "vector: command is not a vector op");
  const pcs::Vector& v = *vp;
  const VectorPlan plan = vector_plan(cfg_, v);

  if (spm.data || spm.size) {
    spm.check(v.src0, plan.src0_bytes, "vector src0");
    if (plan.src1_bytes) spm.check(v.src1, plan.src1_bytes, "vector src1");
    if (plan.src2_bytes) spm.check(v.src2, plan.src2_bytes, "vector src2");
    spm.check(v.dst, plan.dst_bytes, "vector dst");
  }

  if (spm.data) {
    const std::vector<float> x = load(spm, v.src0, plan.src0_bytes);
    const std::vector<float> s1 = load(spm, v.src1, plan.src1_bytes);
    const std::vector<float> s2 = load(spm, v.src2, plan.src2_bytes);
    std::vector<float> y(plan.dst_bytes / 4);
    const uint64_t n = v.n;
    switch (pcs::vector_op_info(v.op)->cls) {  // vector_plan() rejected undefined ops
      case pcs::VectorClass::Unary:
        for (uint64_t i = 0; i < n; ++i) y[i] = vec::unary(v.op, x[i]);
        break;
      case pcs::VectorClass::Binary:
        for (uint64_t i = 0; i < n; ++i)
          y[i] = vec::binary(v.op, x[i], s1[(i / v.bcast_inner) % v.bcast_len]);
        break;
      case pcs::VectorClass::Scalar:
        for (uint64_t i = 0; i < n; ++i) y[i] = vec::scalar(v.op, x[i], v.imm0, v.imm1);
        break;
      case pcs::VectorClass::Softmax: vec::softmax_rows(x.data(), y.data(), plan.rows, v.inner); break;
      case pcs::VectorClass::LayerNorm:
        vec::layernorm_rows(x.data(), s1.data(), s2.data(), v.imm0, y.data(), plan.rows, v.inner);
        break;
      case pcs::VectorClass::Reduce: vec::reduce_rows(v.op, x.data(), y.data(), plan.rows, v.inner); break;
      case pcs::VectorClass::Pool:
        if (v.op == pcs::Vector::kMaxPool)
          vec::max_pool(x.data(), y.data(), vec::window_of(v));
        else
          vec::avg_pool(x.data(), y.data(), vec::window_of(v), v.count_include_pad != 0);
        break;
      case pcs::VectorClass::Im2col: vec::im2col(x.data(), y.data(), vec::window_of(v)); break;
      case pcs::VectorClass::Transpose: vec::transpose(x.data(), y.data(), plan.rows, v.inner); break;
    }
    if (!y.empty()) std::memcpy(spm.data + v.dst, y.data(), plan.dst_bytes);
  }

  ++commands_;
  elements_ += plan.elements;
  element_ops_ += plan.element_ops;
  IssueResult r;
  const uint64_t start = std::max(now_cycle, next_free_cycle_);
  r.done_cycle = start + plan.cycles;
  r.accept_cycle = r.done_cycle;
  next_free_cycle_ = r.done_cycle;
  r.energy_pj = plan.energy_pj;
  r.spm_bytes_read = plan.src0_bytes + plan.src1_bytes + plan.src2_bytes;
  r.spm_bytes_written = plan.dst_bytes;
  return r;
}

std::map<std::string, double> VectorEngine::counters() const {
  return {{"commands", double(commands_)},
          {"elements", double(elements_)},
          {"element_ops", double(element_ops_)}};
}

}  // namespace photon

#include "models/vector/vector_plan.h"

#include <string>

#include "isa/vector_ops.h"
#include "platform/engine.h"

namespace photon {

namespace {

[[noreturn]] void bad(const std::string& what) { throw UnitFault(UnitErrorCode::DECODE, "vector: " + what); }

struct Passes {
  const VectorConfig& cfg;
  VectorPlan& p;
  void add(uint64_t elements, uint64_t cost) {
    const uint64_t lanes = cfg.lanes ? cfg.lanes : 1;
    p.cycles += (elements + lanes - 1) / lanes * cost;
    p.element_ops += elements * cost;
  }
};

void check_window(const pcs::Vector& v, bool pooling) {
  if (v.h == 0 || v.w == 0 || v.oh == 0 || v.ow == 0 || v.kh == 0 || v.kw == 0 || v.sh == 0 || v.sw == 0)
    bad("zero pooling geometry (h w oh ow kh kw sh sw must be positive)");
  const uint64_t hw = uint64_t(v.h) * v.w;
  if (v.n % hw != 0) bad("n " + std::to_string(v.n) + " is not a multiple of h*w " + std::to_string(hw));
  if (!pooling) return;
  // Every pooling window must hold at least one in-image element.
  if (v.pad_top >= v.kh || v.pad_left >= v.kw) bad("padding not smaller than the kernel");
  if (int64_t(v.oh - 1) * v.sh - v.pad_top >= v.h || int64_t(v.ow - 1) * v.sw - v.pad_left >= v.w)
    bad("oh/ow give windows that start outside the image");
}

}  // namespace

VectorPlan vector_plan(const VectorConfig& cfg, const pcs::Vector& v) {
  using V = pcs::Vector;
  VectorPlan p;
  Passes pass{cfg, p};
  const uint64_t n = v.n, T = cfg.transcendental_cycles;
  const pcs::VectorOpInfo* info = pcs::vector_op_info(v.op);
  if (!info) bad("unknown op " + std::to_string(v.op));
  using C = pcs::VectorClass;
  const C cls = info->cls;
  if (n == 0) bad("n is 0");
  const bool row_op = cls == C::Softmax || cls == C::LayerNorm || cls == C::Reduce || cls == C::Transpose;
  if (row_op) {
    if (v.inner == 0) bad("inner is 0");
    if (n % v.inner != 0)
      bad("n " + std::to_string(n) + " is not a multiple of inner " + std::to_string(v.inner));
    p.rows = n / v.inner;
  }
  const uint64_t c = info->transcendental ? T : 1;
  p.src0_bytes = 4 * n;
  p.dst_bytes = 4 * n;
  p.elements = n;
  switch (cls) {
    case C::Unary:
    case C::Scalar:
    case C::Transpose: pass.add(n, c); break;
    case C::Binary:
      if (v.bcast_inner == 0 || v.bcast_len == 0) bad("bcast_inner and bcast_len must be positive");
      p.src1_bytes = 4ull * v.bcast_len;
      pass.add(n, c);
      break;
    case C::Softmax:
      pass.add(n, 1);
      pass.add(n, T);
      pass.add(n, 1);
      pass.add(p.rows, 1);
      break;
    case C::LayerNorm:
      p.src1_bytes = p.src2_bytes = 4ull * v.inner;
      for (int i = 0; i < 4; ++i) pass.add(n, 1);
      pass.add(p.rows, T);
      break;
    case C::Reduce:
      p.dst_bytes = 4 * p.rows;
      p.elements = p.rows;
      pass.add(n, 1);
      if (v.op == V::kReduceMean) pass.add(p.rows, 1);
      break;
    case C::Pool: {
      check_window(v, true);
      const uint64_t outs = n / (uint64_t(v.h) * v.w) * v.oh * v.ow;
      p.dst_bytes = 4 * outs;
      p.elements = outs;
      pass.add(outs * v.kh * v.kw, 1);
      if (v.op == V::kAvgPool) pass.add(outs, 1);
      break;
    }
    case C::Im2col: {
      check_window(v, false);
      const uint64_t outs = n / (uint64_t(v.h) * v.w) * v.kh * v.kw * v.oh * v.ow;
      p.dst_bytes = 4 * outs;
      p.elements = outs;
      pass.add(outs, 1);
      break;
    }
  }
  p.cycles += cfg.pipeline_depth;
  p.energy_pj = cfg.energy_pj_per_op * static_cast<double>(p.element_ops);
  return p;
}

}  // namespace photon

// Element-wise ops on the vector unit with ONNX multidirectional broadcasting
// (docs/lowering.md, "Element-wise ops and broadcasting").
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "workloads/lowering/lower_elementwise.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

namespace {
using V = pcs::Vector;

struct Axis {
  int64_t n;
  bool full;  ///< the broadcast operand varies along this axis
};
}  // namespace

std::string emit_elementwise(Ctx& c, Pipeline& pl, const EwProgram& e) {
  const std::vector<int64_t>& o = e.oshape;
  int64_t E = 1;
  for (auto d : o) E *= d;
  if (E == 0) return "empty";
  const size_t nb = e.b_addr.size();
  // Broadcast operand geometry (all operands share bshape).
  std::vector<int64_t> bsh = e.bshape.empty() ? std::vector<int64_t>(o.size(), 1) : e.bshape;
  if (nb == 0) bsh = o;
  std::vector<int64_t> bstr = strides_of(bsh);
  for (size_t d = 0; d < o.size(); ++d)
    if (bsh[d] == 1) bstr[d] = 0;
  std::vector<Axis> ax;
  for (size_t d = 0; d < o.size(); ++d) {
    if (o[d] == 1) continue;
    bool full = bsh[d] == o[d];
    if (!ax.empty() && ax.back().full == full)
      ax.back().n *= o[d];
    else
      ax.push_back({o[d], full});
  }
  int f = -1;
  for (int i = static_cast<int>(ax.size()) - 1; i >= 0; --i)
    if (ax[i].full) {
      f = i;
      break;
    }
  int64_t I = 1, F = 1, Q = E;
  if (f < 0) {
    I = E;
  } else {
    for (size_t i = f + 1; i < ax.size(); ++i) I *= ax[i].n;
    F = ax[f].n;
    int last_outer = -1;
    for (int i = f - 1; i >= 0; --i)
      if (ax[i].full) {
        last_outer = i;
        break;
      }
    if (last_outer >= 0) {
      Q = 1;
      for (size_t i = last_outer + 1; i < ax.size(); ++i) Q *= ax[i].n;
    }
  }
  const int64_t P = F * I;
  auto b_off = [&](int64_t flat) {
    int64_t off = 0;
    for (int d = static_cast<int>(o.size()) - 1; d >= 0; --d) {
      off += (flat % o[d]) * bstr[d];
      flat /= o[d];
    }
    return off;
  };
  // Scratchpad: per slot one x buffer of T elements and one buffer per B operand.
  const int64_t T = static_cast<int64_t>((c.spm_bytes / 2 / (1 + nb)) / kSpmAlign * kSpmAlign / 4);
  if (T < 1) c.fail("scratchpad too small for one element-wise tile");
  uint64_t cmds = 0;
  auto emit_piece = [&](int64_t s0, int64_t len, int64_t binner, int64_t blen) {
    const uint32_t slot = static_cast<uint32_t>((pl.steps() % 2) * (c.spm_bytes / 2));
    const uint32_t x = slot;
    Step st;
    st.loads.push_back(dma1(e.a + uint64_t(s0) * 4, c.spm(x), uint64_t(len) * 4));
    const int64_t boff = nb ? b_off(s0) : 0;
    for (size_t j = 0; j < nb; ++j) {
      const uint32_t bj = slot + static_cast<uint32_t>((j + 1) * T * 4);
      st.loads.push_back(dma1(e.b_addr[j] + uint64_t(boff) * 4, c.spm(bj), uint64_t(blen) * 4));
    }
    for (const auto& op : e.ops) {
      V v;
      v.op = op.op;
      v.src0 = x;
      v.dst = x;
      v.n = static_cast<uint32_t>(len);
      v.imm0 = op.imm0;
      v.imm1 = op.imm1;
      if (op.b >= 0) {
        const uint32_t bj = slot + static_cast<uint32_t>((op.b + 1) * T * 4);
        if (op.recip_b) {
          V r;
          r.op = V::kRecip;
          r.src0 = bj;
          r.dst = bj;
          r.n = static_cast<uint32_t>(blen);
          st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(r, c.tag));
        }
        v.src1 = bj;
        v.bcast_inner = static_cast<uint32_t>(binner);
        v.bcast_len = static_cast<uint32_t>(blen);
      }
      st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
    }
    cmds += st.compute.size();
    st.stores.push_back(dma1(c.spm(x), e.y + uint64_t(s0) * 4, uint64_t(len) * 4));
    pl.push(std::move(st));
  };
  for (int64_t q0 = 0; q0 < E; q0 += Q) {
    if (P <= T) {
      const int64_t chunk = std::min(Q, T / P * P);
      for (int64_t s = q0; s < q0 + Q; s += chunk) emit_piece(s, std::min(chunk, q0 + Q - s), I, F);
    } else if (I <= T) {
      const int64_t piece = T / I * I;
      for (int64_t pst = q0; pst < q0 + Q; pst += P)
        for (int64_t s = pst; s < pst + P; s += piece) {
          int64_t len = std::min(piece, pst + P - s);
          emit_piece(s, len, I, len / I);
        }
    } else {
      for (int64_t ist = q0; ist < q0 + Q; ist += I)
        for (int64_t s = ist; s < ist + I; s += T) {
          int64_t len = std::min(T, ist + I - s);
          emit_piece(s, len, len, 1);
        }
    }
  }
  return fmt::format(
      "vector; elements {}; broadcast period {} inner {} block {}; tile {} elements; steps {}; "
      "vector cmds {}",
      E, P, I, Q, T, pl.steps(), cmds);
}

namespace {

std::vector<int64_t> pad_to(std::vector<int64_t> s, size_t r) {
  while (s.size() < r) s.insert(s.begin(), 1);
  return s;
}

/// Scalar value of a one-element constant operand, if known.
std::optional<float> scalar_const(const Ctx& c, const std::string& name) {
  const TensorInfo& t = c.t(name);
  if (!t.is_constant || t.numel() != 1) return std::nullopt;
  return const_value(t, 0);
}

/// Output 0 = `ops` applied to input 0 (the one-input ops).
std::string lower_one_input(Ctx& c, std::vector<EwOp> ops) {
  const Node& n = *c.node;
  Pipeline pl(c);
  EwProgram e;
  e.oshape = c.t(n.outputs.at(0)).shape;
  e.y = c.addr(n.outputs[0]);
  e.a = c.addr(n.inputs.at(0));
  e.ops = std::move(ops);
  std::string d = emit_elementwise(c, pl, e);
  pl.finish();
  return n.op_type + " " + d;
}

/// x (op) v for a scalar constant v, as scalar ops on x; empty for a kernel without a scalar
/// form (then v is read as a broadcast operand).
std::vector<EwOp> scalar_rhs_ops(uint8_t op, float v) {
  switch (op) {
    case V::kAdd: return {{V::kAddScalar, v, 0}};
    case V::kSub: return {{V::kAddScalar, -v, 0}};
    case V::kMul: return {{V::kMulScalar, v, 0}};
    case V::kDiv: return {{V::kMulScalar, 1.0f / v, 0}};
    case V::kPow: return {{V::kPowScalar, v, 0}};
    case V::kMax: return {{V::kClip, v, FLT_MAX}};
    case V::kMin: return {{V::kClip, -FLT_MAX, v}};
  }
  return {};
}

/// v (op) x for a scalar constant v, as unary and scalar ops on x; empty for a kernel without
/// such a form (Pow, and any other: then v is read as a broadcast operand).
std::vector<EwOp> scalar_lhs_ops(uint8_t op, float v) {
  switch (op) {
    case V::kAdd: return {{V::kAddScalar, v, 0}};
    case V::kSub: return {{V::kNeg, 0, 0}, {V::kAddScalar, v, 0}};
    case V::kMul: return {{V::kMulScalar, v, 0}};
    case V::kDiv: return {{V::kRecip, 0, 0}, {V::kMulScalar, v, 0}};
    case V::kMax: return {{V::kClip, v, FLT_MAX}};
    case V::kMin: return {{V::kClip, -FLT_MAX, v}};
  }
  return {};
}

/// a (op) b with the broadcast operand a read as B and the full-shape b streamed as x.
std::vector<EwOp> swapped_ops(uint8_t op) {
  switch (op) {
    case V::kSub: return {{V::kSub, 0, 0, 0}, {V::kNeg, 0, 0}};    // a - b = -(b - a)
    case V::kDiv: return {{V::kRecip, 0, 0}, {V::kMul, 0, 0, 0}};  // a / b = (1/b) * a
    case V::kPow: throw Unsupported{"Pow whose base is broadcast against the exponent"};
    case V::kAdd:
    case V::kMul:
    case V::kMax:
    case V::kMin: return {{op, 0, 0, 0}};  // commute
  }
  throw Unsupported{"the first operand is broadcast and the op does not commute"};
}

/// Fills `e` for a (op) b and returns the detail's head: a scalar-constant operand becomes a
/// scalar op; otherwise the operand with the output's shape streams and the other is broadcast.
std::string two_operands(Ctx& c, EwProgram& e, uint8_t op, const std::string& a, const std::string& b) {
  const std::string& type = c.node->op_type;
  const size_t r = e.oshape.size();
  auto as = pad_to(c.t(a).shape, r), bs = pad_to(c.t(b).shape, r);
  const bool afull = as == e.oshape, bfull = bs == e.oshape;
  auto sa = scalar_const(c, a), sb = scalar_const(c, b);
  const std::vector<EwOp> rhs = afull && sb ? scalar_rhs_ops(op, *sb) : std::vector<EwOp>{};
  if (!rhs.empty()) {
    e.a = c.addr(a);
    e.ops = rhs;
    return fmt::format("{} scalar {} ", type, *sb);
  }
  const std::vector<EwOp> lhs = bfull && sa ? scalar_lhs_ops(op, *sa) : std::vector<EwOp>{};
  if (!lhs.empty()) {
    e.a = c.addr(b);
    e.ops = lhs;
    return fmt::format("scalar {} {} ", *sa, type);
  }
  if (afull) {
    e.a = c.addr(a);
    e.b_addr = {c.addr(b)};
    e.bshape = bs;
    e.ops.push_back({op, 0, 0, 0});
  } else if (bfull) {
    e.a = c.addr(b);
    e.b_addr = {c.addr(a)};
    e.bshape = as;
    e.ops = swapped_ops(op);
  } else {
    throw Unsupported{"both operands broadcast (neither has the output shape)"};
  }
  return type + " ";
}

/// Binary and n-ary ops with the row's kernel; `mean` scales the result by 1 / inputs.
std::string lower_nary(Ctx& c, bool mean) {
  const Node& n = *c.node;
  const uint8_t op = c.row->kernel;
  const TensorInfo& y = c.t(n.outputs.at(0));
  Pipeline pl(c);
  EwProgram e;
  e.oshape = y.shape;
  e.y = c.addr(n.outputs[0]);
  std::vector<std::string> ins;
  for (const auto& i : n.inputs)
    if (!i.empty()) ins.push_back(i);
  if (ins.empty()) c.fail("no inputs");
  std::string head = n.op_type + " ";
  if (ins.size() == 1) {
    e.a = c.addr(ins[0]);
    e.ops.push_back({V::kCopy, 0, 0});
  } else if (ins.size() == 2) {
    head = two_operands(c, e, op, ins[0], ins[1]);
    if (mean) e.ops.push_back({V::kMulScalar, 0.5f, 0});
  } else {  // n-ary Sum / Mean / Max / Min: every input must have the output shape
    for (const auto& i : ins)
      if (pad_to(c.t(i).shape, y.shape.size()) != y.shape) throw Unsupported{"n-ary op with broadcasting"};
    e.a = c.addr(ins[0]);
    e.bshape = y.shape;
    for (size_t j = 1; j < ins.size(); ++j) {
      e.b_addr.push_back(c.addr(ins[j]));
      e.ops.push_back({op, 0, 0, static_cast<int>(j - 1)});
    }
    if (mean) e.ops.push_back({V::kMulScalar, 1.0f / ins.size(), 0});
  }
  std::string d = emit_elementwise(c, pl, e);
  pl.finish();
  return head + d;
}

}  // namespace

std::string lower_unary(Ctx& c) { return lower_one_input(c, {{c.row->kernel, 0, 0}}); }

std::string lower_gelu(Ctx& c) {
  if (attr_s(*c.node, "approximate", "none") != "none") throw Unsupported{"Gelu approximate=tanh"};
  return lower_unary(c);
}

std::string lower_leaky_relu(Ctx& c) {
  return lower_one_input(c, {{c.row->kernel, attr_f(*c.node, "alpha", 0.01f), 0}});
}

std::string lower_clip(Ctx& c) {
  const Node& n = *c.node;
  float lo = attr_f(n, "min", -FLT_MAX), hi = attr_f(n, "max", FLT_MAX);
  for (size_t i = 1; i < 3 && i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    auto v = scalar_const(c, n.inputs[i]);
    if (!v) throw Unsupported{"Clip bound not a known constant"};
    (i == 1 ? lo : hi) = *v;
  }
  return lower_one_input(c, {{c.row->kernel, lo, hi}});
}

std::string lower_binary(Ctx& c) { return lower_nary(c, false); }

std::string lower_mean(Ctx& c) { return lower_nary(c, true); }

}  // namespace photon::lowering

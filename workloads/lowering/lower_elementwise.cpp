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

const std::map<std::string, uint8_t>& unary_ops() {
  static const std::map<std::string, uint8_t> m = {
      {"Relu", V::kRelu}, {"Sigmoid", V::kSigmoid}, {"Tanh", V::kTanh},        {"Erf", V::kErf},
      {"Exp", V::kExp},   {"Sqrt", V::kSqrt},       {"Reciprocal", V::kRecip}, {"Neg", V::kNeg},
      {"Abs", V::kAbs},   {"Gelu", V::kGelu},       {"Silu", V::kSilu}};
  return m;
}

const std::map<std::string, uint8_t>& binary_ops() {
  static const std::map<std::string, uint8_t> m = {{"Add", V::kAdd}, {"Sub", V::kSub}, {"Mul", V::kMul},
                                                   {"Div", V::kDiv}, {"Pow", V::kPow}, {"Max", V::kMax},
                                                   {"Min", V::kMin}, {"Sum", V::kAdd}, {"Mean", V::kAdd}};
  return m;
}

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

}  // namespace

std::string lower_elementwise(Ctx& c) {
  const Node& n = *c.node;
  const std::string& op = n.op_type;
  const TensorInfo& y = c.t(n.outputs.at(0));
  Pipeline pl(c);
  EwProgram e;
  e.oshape = y.shape;
  e.y = c.addr(n.outputs[0]);
  std::string head;
  if (unary_ops().count(op) || op == "LeakyRelu" || op == "Clip") {
    e.a = c.addr(n.inputs.at(0));
    if (op == "Gelu" && attr_s(n, "approximate", "none") != "none")
      throw Unsupported{"Gelu approximate=tanh"};
    if (op == "LeakyRelu") {
      e.ops.push_back({V::kLeakyRelu, attr_f(n, "alpha", 0.01f), 0});
    } else if (op == "Clip") {
      float lo = attr_f(n, "min", -FLT_MAX), hi = attr_f(n, "max", FLT_MAX);
      for (size_t i = 1; i < 3 && i < n.inputs.size(); ++i) {
        if (n.inputs[i].empty()) continue;
        auto v = scalar_const(c, n.inputs[i]);
        if (!v) throw Unsupported{"Clip bound not a known constant"};
        (i == 1 ? lo : hi) = *v;
      }
      e.ops.push_back({V::kClip, lo, hi});
    } else {
      e.ops.push_back({unary_ops().at(op), 0, 0});
    }
    head = op + " ";
  } else if (binary_ops().count(op)) {
    const uint8_t bop = binary_ops().at(op);
    std::vector<std::string> ins;
    for (const auto& i : n.inputs)
      if (!i.empty()) ins.push_back(i);
    if (ins.empty()) c.fail("no inputs");
    const size_t r = y.shape.size();
    if (ins.size() == 1) {
      e.a = c.addr(ins[0]);
      e.ops.push_back({V::kCopy, 0, 0});
    } else if (ins.size() == 2) {
      auto as = pad_to(c.t(ins[0]).shape, r), bs = pad_to(c.t(ins[1]).shape, r);
      const bool afull = as == y.shape, bfull = bs == y.shape;
      auto sa = scalar_const(c, ins[0]), sb = scalar_const(c, ins[1]);
      if (afull && sb) {  // x op scalar constant
        e.a = c.addr(ins[0]);
        float v = *sb;
        switch (bop) {
          case V::kAdd: e.ops.push_back({V::kAddScalar, v, 0}); break;
          case V::kSub: e.ops.push_back({V::kAddScalar, -v, 0}); break;
          case V::kMul: e.ops.push_back({V::kMulScalar, v, 0}); break;
          case V::kDiv: e.ops.push_back({V::kMulScalar, 1.0f / v, 0}); break;
          case V::kPow: e.ops.push_back({V::kPowScalar, v, 0}); break;
          case V::kMax: e.ops.push_back({V::kClip, v, FLT_MAX}); break;
          case V::kMin: e.ops.push_back({V::kClip, -FLT_MAX, v}); break;
        }
        head = fmt::format("{} scalar {} ", op, v);
      } else if (bfull && sa && bop != V::kPow) {  // scalar constant op x
        e.a = c.addr(ins[1]);
        float v = *sa;
        switch (bop) {
          case V::kAdd: e.ops.push_back({V::kAddScalar, v, 0}); break;
          case V::kSub:
            e.ops.push_back({V::kNeg, 0, 0});
            e.ops.push_back({V::kAddScalar, v, 0});
            break;
          case V::kMul: e.ops.push_back({V::kMulScalar, v, 0}); break;
          case V::kDiv:
            e.ops.push_back({V::kRecip, 0, 0});
            e.ops.push_back({V::kMulScalar, v, 0});
            break;
          case V::kMax: e.ops.push_back({V::kClip, v, FLT_MAX}); break;
          case V::kMin: e.ops.push_back({V::kClip, -FLT_MAX, v}); break;
        }
        head = fmt::format("scalar {} {} ", v, op);
      } else if (afull) {
        e.a = c.addr(ins[0]);
        e.b_addr = {c.addr(ins[1])};
        e.bshape = bs;
        e.ops.push_back({bop, 0, 0, 0});
      } else if (bfull) {  // broadcast first operand: reorder
        e.a = c.addr(ins[1]);
        e.b_addr = {c.addr(ins[0])};
        e.bshape = as;
        if (bop == V::kSub) {  // a - b = -(b - a)
          e.ops.push_back({V::kSub, 0, 0, 0});
          e.ops.push_back({V::kNeg, 0, 0});
        } else if (bop == V::kDiv) {  // a / b = (1/b) * a
          e.ops.push_back({V::kRecip, 0, 0});
          e.ops.push_back({V::kMul, 0, 0, 0});
        } else if (bop == V::kPow) {
          throw Unsupported{"Pow whose base is broadcast against the exponent"};
        } else {
          e.ops.push_back({bop, 0, 0, 0});
        }
      } else {
        throw Unsupported{"both operands broadcast (neither has the output shape)"};
      }
      if (op == "Mean") e.ops.push_back({V::kMulScalar, 0.5f, 0});
    } else {  // n-ary Sum / Mean / Max / Min: every input must have the output shape
      for (const auto& i : ins)
        if (pad_to(c.t(i).shape, r) != y.shape) throw Unsupported{"n-ary op with broadcasting"};
      e.a = c.addr(ins[0]);
      e.bshape = y.shape;
      for (size_t j = 1; j < ins.size(); ++j) {
        e.b_addr.push_back(c.addr(ins[j]));
        e.ops.push_back({bop, 0, 0, static_cast<int>(j - 1)});
      }
      if (op == "Mean") e.ops.push_back({V::kMulScalar, 1.0f / ins.size(), 0});
    }
    if (head.empty()) head = op + " ";
  } else {
    throw Unsupported{"not an element-wise op"};
  }
  std::string d = emit_elementwise(c, pl, e);
  pl.finish();
  return head + d;
}

std::string lower_batchnorm(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  if (x.shape.size() < 2) throw Unsupported{"BatchNormalization input of rank < 2"};
  if (n.outputs.size() > 1)
    for (size_t i = 1; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty()) throw Unsupported{"BatchNormalization training outputs"};
  const int64_t C = x.shape[1];
  const float eps = attr_f(n, "epsilon", 1e-5f);
  // Fold scale, B, mean, var into y = x * s + t, s = scale / sqrt(var + eps), t = B - mean * s.
  std::vector<float> s(C), t(C);
  bool known = true;
  for (int64_t ch = 0; ch < C; ++ch) {
    auto sc = const_value(c.t(n.inputs.at(1)), ch), b = const_value(c.t(n.inputs.at(2)), ch);
    auto m = const_value(c.t(n.inputs.at(3)), ch), v = const_value(c.t(n.inputs.at(4)), ch);
    if (!sc || !b || !m || !v) {
      known = false;
      break;
    }
    s[ch] = *sc / std::sqrt(*v + eps);
    t[ch] = *b - *m * s[ch];
  }
  if (!known) throw Unsupported{"BatchNormalization parameters are not constants with known values"};
  bool uniform = std::all_of(s.begin(), s.end(), [&](float q) { return q == s[0]; }) &&
                 std::all_of(t.begin(), t.end(), [&](float q) { return q == t[0]; });
  const uint64_t sa = c.plan.alloc_extra(C * 4, n.name + " folded scale");
  const uint64_t ta = c.plan.alloc_extra(C * 4, n.name + " folded shift");
  if (uniform) {  // all parameters splat: fill HBM directly
    c.res.splat_fills.push_back({n.name + ".bn_scale", sa, uint64_t(C) * 4, s[0]});
    c.res.splat_fills.push_back({n.name + ".bn_shift", ta, uint64_t(C) * 4, t[0]});
  } else {
    pcs::Segment ss, ts;
    ss.address = sa;
    ts.address = ta;
    ss.bytes.resize(C * 4);
    ts.bytes.resize(C * 4);
    std::memcpy(ss.bytes.data(), s.data(), C * 4);
    std::memcpy(ts.bytes.data(), t.data(), C * 4);
    c.res.program.segments.push_back(std::move(ss));
    c.res.program.segments.push_back(std::move(ts));
  }
  Pipeline pl(c);
  EwProgram e;
  e.oshape = x.shape;
  e.a = c.addr(n.inputs[0]);
  e.y = c.addr(n.outputs.at(0));
  e.bshape.assign(x.shape.size(), 1);
  e.bshape[1] = C;
  e.b_addr = {sa, ta};
  e.ops.push_back({V::kMul, 0, 0, 0});
  e.ops.push_back({V::kAdd, 0, 0, 1});
  std::string d = emit_elementwise(c, pl, e);
  pl.finish();
  return "folded scale/shift per channel; " + d;
}

}  // namespace photon::lowering

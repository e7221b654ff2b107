// BatchNormalization (inference) on the vector unit: per-channel scale and shift folded at
// lowering time (docs/lowering.md, "Element-wise ops and broadcasting").
#include <algorithm>
#include <cmath>
#include <cstring>

#include "workloads/lowering/lower_elementwise.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

namespace {
using V = pcs::Vector;
}  // namespace

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

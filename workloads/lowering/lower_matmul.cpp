// Conv, Gemm and MatMul as GEMM problems on the optical engine (gemm_core.h; docs/lowering.md,
// "GEMM core").
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "workloads/lowering/gemm_core.h"

namespace photon::lowering {
namespace {

/// Tiles `shape` (every problem of the op has its sizes), emits every problem in `probs` through
/// one pipeline and returns the detail string, `head` first.
std::string lower_problems(Ctx& c, const MmProblem& shape, const std::vector<MmProblem>& probs,
                           const std::string& head) {
  const Tiling t = choose_tiling(c, shape);
  const Layout L = make_layout(c, shape, t);
  Pipeline pl(c);
  WeightTracker wt;
  MmStats st;
  uint64_t out_tiles = 0, instance = 0;
  for (const auto& q : probs) emit_problem(c, pl, q, t, L, instance++, out_tiles, wt, st);
  pl.finish();
  std::string s =
      fmt::format("{}M={} N={} K={}; tiles m{} n{} k{}", head, shape.M, shape.N, shape.K, t.mt, t.nt, t.kt);
  if (shape.conv) s += fmt::format(" (rows {} channels {})", t.rows, t.cc);
  s += fmt::format("; problems {}; gemm cmds {}; weight tiles {} (reused {}); {}; spm {}", st.problems,
                   st.gemm_cmds, st.weight_tiles, st.reused,
                   t.resident ? "weights resident" : "weights streamed", fmt_bytes(t.total_bytes));
  return s;
}

}  // namespace

std::string lower_conv(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const TensorInfo& w = c.t(n.inputs.at(1));
  const TensorInfo& y = c.t(n.outputs.at(0));
  if (x.shape.size() != 4 || w.shape.size() != 4) throw Unsupported{"only 2-D convolution (4-D tensors)"};
  const auto dil = attr_is(n, "dilations", {1, 1});
  for (auto d : dil)
    if (d > 16) throw Unsupported{"dilation > 16 (beyond the vector unit's im2col dilation field)"};
  const int64_t group = attr_i(n, "group", 1);
  ConvGeom cg;
  cg.C = x.shape[1] / group;
  cg.H = x.shape[2];
  cg.W = x.shape[3];
  cg.kh = w.shape[2];
  cg.kw = w.shape[3];
  cg.dh = dil.at(0);
  cg.dw = dil.at(1);
  auto strides = attr_is(n, "strides", {1, 1});
  cg.sh = strides.at(0);
  cg.sw = strides.at(1);
  cg.OH = y.shape[2];
  cg.OW = y.shape[3];
  std::string auto_pad = attr_s(n, "auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    auto pads = attr_is(n, "pads", {0, 0, 0, 0});
    cg.pt = pads.at(0);
    cg.pl = pads.at(1);
  } else if (auto_pad != "VALID") {
    int64_t th = std::max<int64_t>(0, (cg.OH - 1) * cg.sh + cg.ext_h() - cg.H);
    int64_t tw = std::max<int64_t>(0, (cg.OW - 1) * cg.sw + cg.ext_w() - cg.W);
    cg.pt = auto_pad == "SAME_LOWER" ? (th + 1) / 2 : th / 2;
    cg.pl = auto_pad == "SAME_LOWER" ? (tw + 1) / 2 : tw / 2;
  }
  if (cg.pt > 255 || cg.pl > 255 || cg.kh > 255 || cg.kw > 255 || cg.sh > 255 || cg.sw > 255 ||
      cg.H > 65535 || cg.W > 65535)
    throw Unsupported{"kernel, stride, pad or image size beyond the vector unit's im2col fields"};
  const int64_t cout = w.shape[0], cout_g = cout / group;
  MmProblem p;
  p.conv = true;
  p.cg = cg;
  p.M = cg.OH * cg.OW;
  p.N = cout_g;
  p.K = cg.C * cg.kh * cg.kw;
  p.b_trans = true;
  p.b_ld = p.K;
  p.y_trans = true;
  p.y_ld = p.M;
  p.has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  std::vector<MmProblem> probs;
  const uint64_t xa = c.addr(n.inputs[0]), wa = c.addr(n.inputs[1]), ya = c.addr(n.outputs[0]);
  const uint64_t ba = p.has_bias ? c.addr(n.inputs[2]) : 0;
  for (int64_t b = 0; b < x.shape[0]; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      MmProblem q = p;
      q.a_addr = xa + uint64_t((b * x.shape[1] + gi * cg.C) * cg.H * cg.W) * 4;
      q.b_addr = wa + uint64_t(gi * cout_g * p.K) * 4;
      q.bias_addr = ba + uint64_t(gi * cout_g) * 4;
      q.y_addr = ya + uint64_t((b * cout + gi * cout_g) * p.M) * 4;
      probs.push_back(q);
    }
  std::string head =
      fmt::format("{} {}x{} s{} g{}", pointwise(cg) ? "pointwise" : "im2col", cg.kh, cg.kw, cg.sh, group);
  if (cg.dh != 1 || cg.dw != 1) head += fmt::format(" d{}x{}", cg.dh, cg.dw);
  return lower_problems(c, p, probs, head + "; ");
}

std::string lower_gemm(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& a = c.t(n.inputs.at(0));
  const TensorInfo& b = c.t(n.inputs.at(1));
  if (a.shape.size() != 2 || b.shape.size() != 2) throw Unsupported{"Gemm operands must be 2-D"};
  MmProblem p;
  p.a_trans = attr_i(n, "transA", 0) != 0;
  p.b_trans = attr_i(n, "transB", 0) != 0;
  p.M = p.a_trans ? a.shape[1] : a.shape[0];
  p.K = p.a_trans ? a.shape[0] : a.shape[1];
  p.N = p.b_trans ? b.shape[0] : b.shape[1];
  p.a_addr = c.addr(n.inputs[0]);
  p.a_ld = a.shape[1];
  p.b_addr = c.addr(n.inputs[1]);
  p.b_ld = b.shape[1];
  p.alpha = attr_f(n, "alpha", 1.0f);
  p.beta = attr_f(n, "beta", 1.0f);
  p.y_addr = c.addr(n.outputs.at(0));
  p.y_ld = p.N;
  if (n.inputs.size() > 2 && !n.inputs[2].empty() && p.beta != 0.0f) {
    const TensorInfo& ct = c.t(n.inputs[2]);
    std::vector<int64_t> s = ct.shape;
    while (s.size() < 2) s.insert(s.begin(), 1);
    if (s.size() != 2) throw Unsupported{"Gemm C of rank > 2"};
    const bool row = s[0] == 1 && s[1] == p.N;
    if (row && p.alpha == 1.0f && p.beta == 1.0f) {
      p.has_bias = true;
      p.bias_addr = c.addr(n.inputs[2]);
    } else {
      p.has_cadd = true;
      p.cadd_addr = c.addr(n.inputs[2]);
      p.cs_m = s[0] == 1 ? 0 : s[1];
      p.cs_n = s[1] == 1 ? 0 : 1;
    }
  }
  return lower_problems(c, p, {p},
                        fmt::format("gemm{}{}; ", p.a_trans ? " transA" : "", p.b_trans ? " transB" : ""));
}

std::string lower_matmul(Ctx& c) {
  const Node& n = *c.node;
  std::vector<int64_t> as = c.t(n.inputs.at(0)).shape, bs = c.t(n.inputs.at(1)).shape;
  if (as.empty() || bs.empty()) throw Unsupported{"MatMul of a scalar"};
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    c.fail(fmt::format("MatMul inner dimensions {} and {} differ", K, bs[bs.size() - 2]));
  // Broadcast batch dimensions.
  const size_t rb = std::max(as.size(), bs.size()) - 2;
  std::vector<int64_t> ab(rb, 1), bb(rb, 1), ob(rb, 1);
  for (size_t i = 0; i + 2 < as.size(); ++i) ab[rb - (as.size() - 2) + i] = as[i];
  for (size_t i = 0; i + 2 < bs.size(); ++i) bb[rb - (bs.size() - 2) + i] = bs[i];
  int64_t batches = 1, bbatch = 1;
  for (size_t i = 0; i < rb; ++i) {
    if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1) c.fail("MatMul batch dimensions do not broadcast");
    ob[i] = std::max(ab[i], bb[i]);
    batches *= ob[i];
    bbatch *= bb[i];
  }
  MmProblem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.a_ld = K;
  p.b_ld = N;
  p.y_ld = N;
  const uint64_t aa = c.addr(n.inputs[0]), ba = c.addr(n.inputs[1]), ya = c.addr(n.outputs[0]);
  std::vector<MmProblem> probs;
  if (bbatch == 1) {  // weights shared by every batch: fold the batch into M (A rows are contiguous)
    p.M = M * batches;
    p.a_addr = aa;
    p.b_addr = ba;
    p.y_addr = ya;
    probs.push_back(p);
  } else {
    auto ast = strides_of(ab), bst = strides_of(bb);
    std::vector<int64_t> idx(rb, 0);
    for (int64_t bi = 0; bi < batches; ++bi) {
      int64_t ao = 0, bo = 0, r = bi;
      for (int i = static_cast<int>(rb) - 1; i >= 0; --i) {
        idx[i] = r % ob[i];
        r /= ob[i];
        ao += (ab[i] == 1 ? 0 : idx[i]) * ast[i];
        bo += (bb[i] == 1 ? 0 : idx[i]) * bst[i];
      }
      MmProblem q = p;
      q.a_addr = aa + uint64_t(ao * M * K) * 4;
      q.b_addr = ba + uint64_t(bo * K * N) * 4;
      q.y_addr = ya + uint64_t(bi * M * N) * 4;
      probs.push_back(q);
    }
  }
  return lower_problems(c, probs.empty() ? p : probs[0], probs, fmt::format("matmul batch {}; ", batches));
}

}  // namespace photon::lowering

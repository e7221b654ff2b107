// Conv, Gemm and MatMul: a tiled GEMM core on the optical engine (docs/lowering.md, "GEMM core").
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {
namespace {

/// One 2-D convolution of a C x H x W image (ONNX Conv, docs/Operators.md): kernel kh x kw with
/// taps dh, dw apart (dilations), strides sh, sw, top/left padding pt, pl, output OH x OW.
struct ConvGeom {
  int64_t C = 0, H = 0, W = 0, kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, OH = 0, OW = 0, dh = 1, dw = 1;
  /// Input rows / columns one kernel window spans: dilation * (k - 1) + 1.
  int64_t ext_h() const { return dh * (kh - 1) + 1; }
  int64_t ext_w() const { return dw * (kw - 1) + 1; }
};

/// One GEMM problem: Y = alpha * A[M x K] * B[K x N] (+ bias[N]) (+ beta * Cadd), fp32, in HBM.
struct MmProblem {
  int64_t M = 0, N = 0, K = 0;
  bool conv = false;  ///< A is the im2col of a C x H x W image at a_addr
  ConvGeom cg;
  uint64_t a_addr = 0;
  int64_t a_ld = 0;      ///< elements between rows of A as stored
  bool a_trans = false;  ///< A stored K x M
  uint64_t b_addr = 0;
  int64_t b_ld = 0;
  bool b_trans = false;  ///< B stored N x K (ONNX conv weights, Gemm transB)
  bool has_bias = false;
  uint64_t bias_addr = 0;
  float alpha = 1.0f;
  // Additive C operand of Gemm: element (m, n) at cadd_addr + (m*cs_m + n*cs_n)*4.
  bool has_cadd = false;
  uint64_t cadd_addr = 0;
  int64_t cs_m = 0, cs_n = 0;
  float beta = 1.0f;
  uint64_t y_addr = 0;
  int64_t y_ld = 0;
  bool y_trans = false;  ///< Y stored N x M (conv output, NCHW)
};

struct Tiling {
  int64_t mt = 0, nt = 0, kt = 0;  ///< tile sizes (conv: mt = rows * OW, kt = cc * kh * kw)
  int64_t rows = 0, cc = 0;        ///< conv: output rows and input channels per tile
  bool resident = false;           ///< whole B (+ bias) loaded once per problem (ping/pong)
  uint64_t slot_bytes = 0, total_bytes = 0;
};

struct Layout {
  uint32_t a_in = 0, a = 0, b = 0, bias = 0, cadd = 0, tout = 0;  ///< per slot, relative
  uint32_t slot[2] = {0, 0};
  uint32_t acc[2] = {0, 0};
  uint32_t res[2] = {0, 0};  ///< resident B; resident bias follows B
  uint64_t res_b_bytes = 0;
};

/// 1x1 kernel, stride 1, no padding: GEMM reads the input band directly (no im2col).
bool pointwise(const ConvGeom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0;
}

int64_t band_rows(const ConvGeom& g, int64_t rows) { return std::min(g.H, (rows - 1) * g.sh + g.ext_h()); }

/// Bytes of one slot and of the whole arrangement for tile sizes t.
void size_tiling(const MmProblem& p, Tiling& t) {
  auto al = [](uint64_t b) { return align_up(b, kSpmAlign); };
  uint64_t slot = 0;
  if (p.conv) {
    t.mt = t.rows * p.cg.OW;
    t.kt = t.cc * p.cg.kh * p.cg.kw;
    slot += al(uint64_t(t.cc) * band_rows(p.cg, t.rows) * p.cg.W * 4);
  }
  if (!(p.conv && pointwise(p.cg))) slot += al(uint64_t(t.mt) * t.kt * 4);
  if (!t.resident) slot += al(uint64_t(t.kt) * t.nt * 4) + (p.has_bias ? al(t.nt * 4) : 0);
  if (p.has_cadd) slot += al(uint64_t(t.mt) * t.nt * 4);
  if (p.y_trans) slot += al(uint64_t(t.mt) * t.nt * 4);
  uint64_t total = 2 * slot + 2 * al(uint64_t(t.mt) * t.nt * 4);
  if (t.resident) total += 2 * (al(uint64_t(p.K) * p.N * 4) + (p.has_bias ? al(p.N * 4) : 0));
  t.slot_bytes = slot;
  t.total_bytes = total;
}

Tiling choose_tiling(Ctx& c, const MmProblem& p) {
  const auto& oc = c.cfg.optical_gemm;
  const uint64_t cap = c.spm_bytes;
  Tiling t;
  t.resident = 2 * uint64_t(p.K) * p.N * 4 <= cap / 4;
  t.nt = p.N;
  if (p.conv) {
    t.rows = p.cg.OH;
    t.cc = p.cg.C;
  } else {
    t.mt = p.M;
    t.kt = p.K;
  }
  auto fits = [&]() {
    size_tiling(p, t);
    return t.total_bytes <= cap;
  };
  auto round_to = [](int64_t v, int64_t q) { return v > q ? v / q * q : v; };
  // 1. Shrink M down to m_min rows: the rows whose streaming time equals one weight programming
  //    (ceil(m / wavelengths) / modulation_ghz >= weight_program_ns), at least 256, so programming
  //    stays at most about half of the engine time.
  const int64_t m_min = std::max<int64_t>(
      256, static_cast<int64_t>(std::ceil(oc.weight_program_ns * oc.modulation_ghz * oc.wavelengths)));
  while (!fits()) {
    if (p.conv) {
      if ((t.rows + 1) / 2 * p.cg.OW < m_min || t.rows == 1) break;
      t.rows = (t.rows + 1) / 2;
    } else {
      if ((t.mt + 1) / 2 < m_min) break;
      t.mt = round_to((t.mt + 1) / 2, oc.wavelengths);
    }
  }
  // 2. Drop weight residency. 3. Halve N and K, the larger relative to the array first, down to the
  //    array's rows and columns (conv: whole input channels).
  if (!fits() && t.resident) t.resident = false;
  while (!fits()) {
    const int64_t kcur = p.conv ? t.cc * p.cg.kh * p.cg.kw : t.kt;
    const bool n_ok = t.nt > int64_t(oc.rows);
    const bool k_ok = p.conv ? (kcur > int64_t(oc.cols) && t.cc > 1) : t.kt > int64_t(oc.cols);
    if (!n_ok && !k_ok) break;
    if (n_ok && (!k_ok || t.nt * int64_t(oc.cols) >= kcur * int64_t(oc.rows))) {
      t.nt = round_to((t.nt + 1) / 2, oc.rows);
    } else if (p.conv) {
      t.cc = (t.cc + 1) / 2;
    } else {
      t.kt = round_to((t.kt + 1) / 2, oc.cols);
    }
  }
  // 4. Then everything down to 1.
  while (!fits()) {
    bool changed = false;
    if (p.conv ? t.rows > 1 : t.mt > 1) {
      if (p.conv)
        t.rows = (t.rows + 1) / 2;
      else
        t.mt = (t.mt + 1) / 2;
      changed = true;
    } else if (t.nt > 1) {
      t.nt = (t.nt + 1) / 2;
      changed = true;
    } else if (p.conv ? t.cc > 1 : t.kt > 1) {
      if (p.conv)
        t.cc = (t.cc + 1) / 2;
      else
        t.kt = (t.kt + 1) / 2;
      changed = true;
    }
    if (!changed) {
      c.fail(fmt::format("cannot tile into the scratchpad ({} bytes): one minimal tile needs {} bytes", cap,
                         t.total_bytes));
    }
  }
  return t;
}

Layout make_layout(Ctx& c, const MmProblem& p, const Tiling& t) {
  SpmArena ar(c.spm_bytes);
  Layout L;
  const std::string w = c.node->name;
  for (int s = 0; s < 2; ++s) {
    uint32_t base = static_cast<uint32_t>(ar.used());
    L.slot[s] = base;
    if (p.conv) {
      uint32_t o = ar.alloc(uint64_t(t.cc) * band_rows(p.cg, t.rows) * p.cg.W * 4, w + " input band");
      if (s == 0) L.a_in = o - base;
    }
    uint32_t o = 0;
    if (!(p.conv && pointwise(p.cg))) {
      o = ar.alloc(uint64_t(t.mt) * t.kt * 4, w + " A tile");
      if (s == 0) L.a = o - base;
    }
    if (!t.resident) {
      o = ar.alloc(uint64_t(t.kt) * t.nt * 4, w + " B tile");
      if (s == 0) L.b = o - base;
      if (p.has_bias) {
        o = ar.alloc(t.nt * 4, w + " bias");
        if (s == 0) L.bias = o - base;
      }
    }
    if (p.has_cadd) {
      o = ar.alloc(uint64_t(t.mt) * t.nt * 4, w + " C tile");
      if (s == 0) L.cadd = o - base;
    }
    if (p.y_trans) {
      o = ar.alloc(uint64_t(t.mt) * t.nt * 4, w + " transposed output");
      if (s == 0) L.tout = o - base;
    }
  }
  for (int s = 0; s < 2; ++s) L.acc[s] = ar.alloc(uint64_t(t.mt) * t.nt * 4, w + " accumulator");
  if (t.resident) {
    L.res_b_bytes = align_up(uint64_t(p.K) * p.N * 4, kSpmAlign);
    for (int s = 0; s < 2; ++s) {
      L.res[s] = ar.alloc(uint64_t(p.K) * p.N * 4, w + " resident weights");
      if (p.has_bias) ar.alloc(p.N * 4, w + " resident bias");
    }
  }
  return L;
}

/// Statistics for the detail string and tests.
struct MmStats {
  uint64_t gemm_cmds = 0, weight_tiles = 0, reused = 0, problems = 0;
};

/// Emits the steps of one problem. `instance` counts problems of this op (resident parity).
void emit_problem(Ctx& c, Pipeline& pl, const MmProblem& p, const Tiling& t, const Layout& L,
                  uint64_t instance, uint64_t& out_tiles, WeightTracker& wt, MmStats& st) {
  const auto& oc = c.cfg.optical_gemm;
  const int64_t kblocks = (p.K + t.kt - 1) / t.kt;
  bool first_step = true;
  const uint32_t res = L.res[instance % 2];
  for (int64_t m0 = 0; m0 < p.M; m0 += t.mt) {
    const int64_t mt = std::min(t.mt, p.M - m0);
    for (int64_t n0 = 0; n0 < p.N; n0 += t.nt) {
      const int64_t nt = std::min(t.nt, p.N - n0);
      const uint32_t acc = L.acc[out_tiles % 2];
      ++out_tiles;
      for (int64_t kb = 0; kb < kblocks; ++kb) {
        const int64_t k0 = kb * t.kt, kt = std::min(t.kt, p.K - k0);
        const bool last_k = kb == kblocks - 1;
        const uint32_t slot = L.slot[pl.steps() % 2];
        Step s;
        // Resident weights (and bias) are loaded with the problem's first step.
        if (t.resident && first_step) {
          s.loads.push_back(p.b_trans ? dma2(p.b_addr, c.spm(res), p.K * 4, p.N, p.b_ld * 4, p.K * 4)
                                      : dma2(p.b_addr, c.spm(res), p.N * 4, p.K, p.b_ld * 4, p.N * 4));
          if (p.has_bias) s.loads.push_back(dma1(p.bias_addr, c.spm(res + L.res_b_bytes), p.N * 4));
        }
        first_step = false;
        // A operand.
        pcs::Gemm g;
        g.m = mt;
        g.n = nt;
        g.k = kt;
        g.c = acc;
        g.ldc = nt;
        if (p.conv) {
          const ConvGeom& cg = p.cg;
          const int64_t rows = mt / cg.OW, oy0 = m0 / cg.OW;
          const int64_t c0 = k0 / (cg.kh * cg.kw), cc = kt / (cg.kh * cg.kw);
          const int64_t r0 = oy0 * cg.sh - cg.pt;
          const int64_t ra = std::max<int64_t>(0, r0);
          const int64_t rb = std::min(cg.H, r0 + (rows - 1) * cg.sh + cg.ext_h());
          const int64_t bh = rb - ra;
          const uint32_t in = slot + L.a_in;
          if (bh > 0)
            s.loads.push_back(dma2(p.a_addr + uint64_t(c0 * cg.H * cg.W + ra * cg.W) * 4, c.spm(in),
                                   bh * cg.W * 4, cc, cg.H * cg.W * 4, bh * cg.W * 4));
          g.flags |= pcs::Gemm::kTransposeA;
          g.lda = mt;
          if (pointwise(cg)) {  // 1x1, stride 1, no padding: the input band is already K x M
            g.a = in;
          } else {
            pcs::Vector v;
            v.op = pcs::Vector::kIm2col;
            v.src0 = in;
            v.dst = slot + L.a;
            v.n = static_cast<uint32_t>(cc * std::max<int64_t>(bh, 0) * cg.W);
            v.h = static_cast<uint16_t>(std::max<int64_t>(bh, 0));
            v.w = static_cast<uint16_t>(cg.W);
            v.oh = static_cast<uint16_t>(rows);
            v.ow = static_cast<uint16_t>(cg.OW);
            v.kh = static_cast<uint8_t>(cg.kh);
            v.kw = static_cast<uint8_t>(cg.kw);
            v.sh = static_cast<uint8_t>(cg.sh);
            v.sw = static_cast<uint8_t>(cg.sw);
            v.pad_top = static_cast<uint8_t>(std::max<int64_t>(0, -r0));
            v.pad_left = static_cast<uint8_t>(cg.pl);
            v.dilation =
                pcs::Vector::pack_dilation(static_cast<uint32_t>(cg.dh), static_cast<uint32_t>(cg.dw));
            s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
            g.a = slot + L.a;
          }
        } else if (p.a_trans) {
          s.loads.push_back(dma2(p.a_addr + uint64_t(k0 * p.a_ld + m0) * 4, c.spm(slot + L.a), mt * 4, kt,
                                 p.a_ld * 4, mt * 4));
          g.a = slot + L.a;
          g.flags |= pcs::Gemm::kTransposeA;
          g.lda = mt;
        } else {
          s.loads.push_back(dma2(p.a_addr + uint64_t(m0 * p.a_ld + k0) * 4, c.spm(slot + L.a), kt * 4, mt,
                                 p.a_ld * 4, kt * 4));
          g.a = slot + L.a;
          g.lda = kt;
        }
        // B operand (weights).
        uint64_t b_hbm;
        if (p.b_trans) {
          b_hbm = p.b_addr + uint64_t(n0 * p.b_ld + k0) * 4;
          g.flags |= pcs::Gemm::kTransposeB;
          if (t.resident) {
            g.b = res + static_cast<uint32_t>((n0 * p.K + k0) * 4);
            g.ldb = p.K;
          } else {
            s.loads.push_back(dma2(b_hbm, c.spm(slot + L.b), kt * 4, nt, p.b_ld * 4, kt * 4));
            g.b = slot + L.b;
            g.ldb = kt;
          }
        } else {
          b_hbm = p.b_addr + uint64_t(k0 * p.b_ld + n0) * 4;
          if (t.resident) {
            g.b = res + static_cast<uint32_t>((k0 * p.N + n0) * 4);
            g.ldb = p.N;
          } else {
            s.loads.push_back(dma2(b_hbm, c.spm(slot + L.b), nt * 4, kt, p.b_ld * 4, nt * 4));
            g.b = slot + L.b;
            g.ldb = nt;
          }
        }
        if (kb > 0) g.flags |= pcs::Gemm::kAccumulate;
        if (p.has_bias && kb == 0) {
          g.flags |= pcs::Gemm::kBias;
          if (t.resident) {
            g.bias = res + static_cast<uint32_t>(L.res_b_bytes + n0 * 4);
          } else {
            s.loads.push_back(dma1(p.bias_addr + n0 * 4, c.spm(slot + L.bias), nt * 4));
            g.bias = slot + L.bias;
          }
        }
        // Weight reuse: same single-array-tile B (same HBM weights) as the previous GEMM command.
        const bool single = kt <= int64_t(oc.cols) && nt <= int64_t(oc.rows);
        const uint8_t tb = g.flags & pcs::Gemm::kTransposeB;
        if (single && wt.valid && wt.generation == b_hbm && wt.k == kt && wt.n == nt &&
            wt.ldb == static_cast<uint32_t>(p.b_ld) && wt.tb == tb) {
          g.flags |= pcs::Gemm::kReuseWeights;
          ++st.reused;
        }
        wt.valid = single;
        wt.generation = b_hbm;
        wt.k = kt;
        wt.n = nt;
        wt.ldb = static_cast<uint32_t>(p.b_ld);
        wt.tb = tb;
        st.weight_tiles += uint64_t((kt + oc.cols - 1) / oc.cols) * ((nt + oc.rows - 1) / oc.rows);
        ++st.gemm_cmds;
        s.compute.emplace_back(pcs::Queue::Gemm, pcs::make_gemm(g, c.tag));
        if (last_k) {
          const uint32_t n = static_cast<uint32_t>(mt * nt);
          if (p.alpha != 1.0f) {
            pcs::Vector v;
            v.op = pcs::Vector::kMulScalar;
            v.src0 = acc;
            v.dst = acc;
            v.n = n;
            v.imm0 = p.alpha;
            s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
          }
          if (p.has_cadd) {
            const uint32_t cd = slot + L.cadd;
            pcs::Vector v;
            v.op = pcs::Vector::kAdd;
            v.src0 = acc;
            v.dst = acc;
            v.n = n;
            v.src1 = cd;
            uint64_t base = p.cadd_addr + uint64_t(m0 * p.cs_m + n0 * p.cs_n) * 4;
            if (p.cs_m && p.cs_n) {  // full C tile
              s.loads.push_back(dma2(base, c.spm(cd), nt * 4, mt, p.cs_m * 4, nt * 4));
              v.bcast_inner = 1;
              v.bcast_len = n;
            } else if (p.cs_n) {  // row vector: C[n]
              s.loads.push_back(dma1(base, c.spm(cd), nt * 4));
              v.bcast_inner = 1;
              v.bcast_len = nt;
            } else if (p.cs_m) {  // column vector: C[m]
              s.loads.push_back(dma1(base, c.spm(cd), mt * 4));
              v.bcast_inner = nt;
              v.bcast_len = mt;
            } else {  // scalar
              s.loads.push_back(dma1(base, c.spm(cd), 4));
            }
            if (p.beta != 1.0f) {
              pcs::Vector sc;
              sc.op = pcs::Vector::kMulScalar;
              sc.src0 = cd;
              sc.dst = cd;
              sc.n = (p.cs_m && p.cs_n) ? n : p.cs_n ? nt : p.cs_m ? mt : 1;
              sc.imm0 = p.beta;
              s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(sc, c.tag));
            }
            s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
          }
          if (p.y_trans) {
            pcs::Vector v;
            v.op = pcs::Vector::kTranspose;
            v.src0 = acc;
            v.dst = slot + L.tout;
            v.n = n;
            v.inner = static_cast<uint32_t>(nt);
            s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
            s.stores.push_back(dma2(c.spm(slot + L.tout), p.y_addr + uint64_t(n0 * p.y_ld + m0) * 4, mt * 4,
                                    nt, mt * 4, p.y_ld * 4));
          } else {
            s.stores.push_back(
                dma2(c.spm(acc), p.y_addr + uint64_t(m0 * p.y_ld + n0) * 4, nt * 4, mt, nt * 4, p.y_ld * 4));
          }
        }
        pl.push(std::move(s));
      }
    }
  }
  ++st.problems;
}

std::string detail(const std::string& head, const MmProblem& p, const Tiling& t, const MmStats& st) {
  std::string s = fmt::format("{}M={} N={} K={}; tiles m{} n{} k{}", head, p.M, p.N, p.K, t.mt, t.nt, t.kt);
  if (p.conv) s += fmt::format(" (rows {} channels {})", t.rows, t.cc);
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
  Tiling t = choose_tiling(c, p);
  Layout L = make_layout(c, p, t);
  Pipeline pl(c);
  WeightTracker wt;
  MmStats st;
  uint64_t out_tiles = 0, instance = 0;
  const uint64_t xa = c.addr(n.inputs[0]), wa = c.addr(n.inputs[1]), ya = c.addr(n.outputs[0]);
  const uint64_t ba = p.has_bias ? c.addr(n.inputs[2]) : 0;
  for (int64_t b = 0; b < x.shape[0]; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      MmProblem q = p;
      q.a_addr = xa + uint64_t((b * x.shape[1] + gi * cg.C) * cg.H * cg.W) * 4;
      q.b_addr = wa + uint64_t(gi * cout_g * p.K) * 4;
      q.bias_addr = ba + uint64_t(gi * cout_g) * 4;
      q.y_addr = ya + uint64_t((b * cout + gi * cout_g) * p.M) * 4;
      emit_problem(c, pl, q, t, L, instance++, out_tiles, wt, st);
    }
  pl.finish();
  std::string head =
      fmt::format("{} {}x{} s{} g{}", pointwise(cg) ? "pointwise" : "im2col", cg.kh, cg.kw, cg.sh, group);
  if (cg.dh != 1 || cg.dw != 1) head += fmt::format(" d{}x{}", cg.dh, cg.dw);
  return detail(head + "; ", p, t, st);
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
  Tiling t = choose_tiling(c, p);
  Layout L = make_layout(c, p, t);
  Pipeline pl(c);
  WeightTracker wt;
  MmStats st;
  uint64_t out_tiles = 0;
  emit_problem(c, pl, p, t, L, 0, out_tiles, wt, st);
  pl.finish();
  return detail(fmt::format("gemm{}{}; ", p.a_trans ? " transA" : "", p.b_trans ? " transB" : ""), p, t, st);
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
  Tiling t = choose_tiling(c, probs[0]);
  Layout L = make_layout(c, probs[0], t);
  Pipeline pl(c);
  WeightTracker wt;
  MmStats st;
  uint64_t out_tiles = 0, instance = 0;
  for (const auto& q : probs) emit_problem(c, pl, q, t, L, instance++, out_tiles, wt, st);
  pl.finish();
  return detail(fmt::format("matmul batch {}; ", batches), probs[0], t, st);
}

}  // namespace photon::lowering

// The command steps of a GEMM problem (gemm_core.h): operand loads, im2col, GEMM commands with
// accumulation and weight reuse, and the epilogue, pushed through the double-buffered Pipeline.
#include "workloads/lowering/gemm_core.h"

namespace photon::lowering {

namespace {

/// One step's tile: rows [m0, m0 + mt), columns [n0, n0 + nt), reduction block kb over
/// [k0, k0 + kt) (of kblocks), in the buffer set at scratchpad offset `slot`, accumulating at `acc`.
struct TileRef {
  int64_t m0 = 0, mt = 0, n0 = 0, nt = 0, k0 = 0, kt = 0, kb = 0, kblocks = 0;
  uint32_t slot = 0, acc = 0;
  bool last_k() const { return kb == kblocks - 1; }
};

/// Emits the steps of one problem: per output tile and K block one GEMM command with its operand
/// loads; after the last K block the epilogue (alpha, the C operand, the transposed store).
class ProblemEmitter {
 public:
  /// `instance` counts problems of this op (resident parity); `out_tiles` counts output tiles
  /// across problems (accumulator parity).
  ProblemEmitter(Ctx& c, Pipeline& pl, const MmProblem& p, const Tiling& t, const Layout& L,
                 uint64_t instance, uint64_t& out_tiles, WeightTracker& wt, MmStats& st)
      : c_(c),
        pl_(pl),
        p_(p),
        t_(t),
        L_(L),
        res_(L.res[instance % 2]),
        out_tiles_(out_tiles),
        wt_(wt),
        st_(st) {}

  void run() {
    TileRef r;
    r.kblocks = (p_.K + t_.kt - 1) / t_.kt;
    for (r.m0 = 0; r.m0 < p_.M; r.m0 += t_.mt) {
      r.mt = std::min(t_.mt, p_.M - r.m0);
      for (r.n0 = 0; r.n0 < p_.N; r.n0 += t_.nt) {
        r.nt = std::min(t_.nt, p_.N - r.n0);
        r.acc = L_.acc[out_tiles_ % 2];
        ++out_tiles_;
        for (r.kb = 0; r.kb < r.kblocks; ++r.kb) {
          r.k0 = r.kb * t_.kt;
          r.kt = std::min(t_.kt, p_.K - r.k0);
          r.slot = L_.slot[pl_.steps() % 2];
          pl_.push(step(r));
        }
      }
    }
    ++st_.problems;
  }

 private:
  Step step(const TileRef& r) {
    Step s;
    // Resident weights (and bias) are loaded with the problem's first step.
    if (t_.resident && first_step_) load_resident(s);
    first_step_ = false;
    pcs::Gemm g;
    g.m = r.mt;
    g.n = r.nt;
    g.k = r.kt;
    g.c = r.acc;
    g.ldc = r.nt;
    a_operand(s, g, r);
    const uint64_t b_hbm = b_operand(s, g, r);
    if (r.kb > 0) g.flags |= pcs::Gemm::kAccumulate;
    if (p_.has_bias && r.kb == 0) bias_operand(s, g, r);
    track_weights(g, b_hbm, r);
    s.compute.emplace_back(pcs::Queue::Gemm, pcs::make_gemm(g, c_.tag));
    if (r.last_k()) epilogue(s, r);
    return s;
  }

  void load_resident(Step& s) {
    const MmProblem& p = p_;
    s.loads.push_back(p.b_trans ? dma2(p.b_addr, c_.spm(res_), p.K * 4, p.N, p.b_ld * 4, p.K * 4)
                                : dma2(p.b_addr, c_.spm(res_), p.N * 4, p.K, p.b_ld * 4, p.N * 4));
    if (p.has_bias) s.loads.push_back(dma1(p.bias_addr, c_.spm(res_ + L_.res_b_bytes), p.N * 4));
  }

  /// A operand: the conv input band (im2col'd unless pointwise), or a tile of A as stored.
  void a_operand(Step& s, pcs::Gemm& g, const TileRef& r) {
    const MmProblem& p = p_;
    if (p.conv) return conv_operand(s, g, r);
    if (p.a_trans) {
      s.loads.push_back(dma2(p.a_addr + uint64_t(r.k0 * p.a_ld + r.m0) * 4, c_.spm(r.slot + L_.a), r.mt * 4,
                             r.kt, p.a_ld * 4, r.mt * 4));
      g.a = r.slot + L_.a;
      g.flags |= pcs::Gemm::kTransposeA;
      g.lda = r.mt;
    } else {
      s.loads.push_back(dma2(p.a_addr + uint64_t(r.m0 * p.a_ld + r.k0) * 4, c_.spm(r.slot + L_.a), r.kt * 4,
                             r.mt, p.a_ld * 4, r.kt * 4));
      g.a = r.slot + L_.a;
      g.lda = r.kt;
    }
  }

  /// Conv: the input rows the tile's output rows read, for its input channels, then im2col to a
  /// K x M operand (a pointwise conv's band already is one).
  void conv_operand(Step& s, pcs::Gemm& g, const TileRef& r) {
    const ConvGeom& cg = p_.cg;
    const int64_t rows = r.mt / cg.OW, oy0 = r.m0 / cg.OW;
    const int64_t c0 = r.k0 / (cg.kh * cg.kw), cc = r.kt / (cg.kh * cg.kw);
    const int64_t r0 = oy0 * cg.sh - cg.pt;
    const int64_t ra = std::max<int64_t>(0, r0);
    const int64_t rb = std::min(cg.H, r0 + (rows - 1) * cg.sh + cg.ext_h());
    const int64_t bh = rb - ra;
    const uint32_t in = r.slot + L_.a_in;
    if (bh > 0)
      s.loads.push_back(dma2(p_.a_addr + uint64_t(c0 * cg.H * cg.W + ra * cg.W) * 4, c_.spm(in),
                             bh * cg.W * 4, cc, cg.H * cg.W * 4, bh * cg.W * 4));
    g.flags |= pcs::Gemm::kTransposeA;
    g.lda = r.mt;
    if (pointwise(cg)) {  // 1x1, stride 1, no padding: the input band is already K x M
      g.a = in;
      return;
    }
    pcs::Vector v;
    v.op = pcs::Vector::kIm2col;
    v.src0 = in;
    v.dst = r.slot + L_.a;
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
    v.dilation = pcs::Vector::pack_dilation(static_cast<uint32_t>(cg.dh), static_cast<uint32_t>(cg.dw));
    s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c_.tag));
    g.a = r.slot + L_.a;
  }

  /// B operand (weights): from the resident copy or loaded with the tile. Returns the HBM address
  /// of the tile's weights (the weight tracker's identity of the tile). B is stored K x N, or N x K
  /// with b_trans (ONNX conv weights, Gemm transB): the tile is `rows` stored rows of `cols`.
  uint64_t b_operand(Step& s, pcs::Gemm& g, const TileRef& r) {
    const MmProblem& p = p_;
    if (p.b_trans) g.flags |= pcs::Gemm::kTransposeB;
    const int64_t row0 = p.b_trans ? r.n0 : r.k0, col0 = p.b_trans ? r.k0 : r.n0;
    const int64_t rows = p.b_trans ? r.nt : r.kt, cols = p.b_trans ? r.kt : r.nt;
    const uint64_t b_hbm = p.b_addr + uint64_t(row0 * p.b_ld + col0) * 4;
    if (t_.resident) {  // the whole of B, stored as in HBM with rows of K (b_trans) or N
      const int64_t ld = p.b_trans ? p.K : p.N;
      g.b = res_ + static_cast<uint32_t>((row0 * ld + col0) * 4);
      g.ldb = ld;
    } else {
      s.loads.push_back(dma2(b_hbm, c_.spm(r.slot + L_.b), cols * 4, rows, p.b_ld * 4, cols * 4));
      g.b = r.slot + L_.b;
      g.ldb = cols;
    }
    return b_hbm;
  }

  void bias_operand(Step& s, pcs::Gemm& g, const TileRef& r) {
    g.flags |= pcs::Gemm::kBias;
    if (t_.resident) {
      g.bias = res_ + static_cast<uint32_t>(L_.res_b_bytes + r.n0 * 4);
    } else {
      s.loads.push_back(dma1(p_.bias_addr + r.n0 * 4, c_.spm(r.slot + L_.bias), r.nt * 4));
      g.bias = r.slot + L_.bias;
    }
  }

  /// Weight reuse: sets kReuseWeights when the command's B is the same single-array-tile B (same
  /// HBM weights, shape and layout) as the previous GEMM command's; counts array tiles programmed.
  void track_weights(pcs::Gemm& g, uint64_t b_hbm, const TileRef& r) {
    const auto& oc = c_.cfg.optical_gemm;
    const bool single = r.kt <= int64_t(oc.cols) && r.nt <= int64_t(oc.rows);
    const uint8_t tb = g.flags & pcs::Gemm::kTransposeB;
    const auto ldb = static_cast<uint32_t>(p_.b_ld);
    if (single && wt_.valid && wt_.generation == b_hbm && wt_.k == r.kt && wt_.n == r.nt && wt_.ldb == ldb &&
        wt_.tb == tb) {
      g.flags |= pcs::Gemm::kReuseWeights;
      ++st_.reused;
    }
    wt_.valid = single;
    wt_.generation = b_hbm;
    wt_.k = r.kt;
    wt_.n = r.nt;
    wt_.ldb = ldb;
    wt_.tb = tb;
    st_.weight_tiles += uint64_t((r.kt + oc.cols - 1) / oc.cols) * ((r.nt + oc.rows - 1) / oc.rows);
    ++st_.gemm_cmds;
  }

  /// After the last K block: y = alpha * acc (+ beta * C), stored as Y or transposed (conv NCHW).
  void epilogue(Step& s, const TileRef& r) {
    const MmProblem& p = p_;
    const uint32_t n = static_cast<uint32_t>(r.mt * r.nt);
    if (p.alpha != 1.0f) {
      pcs::Vector v;
      v.op = pcs::Vector::kMulScalar;
      v.src0 = r.acc;
      v.dst = r.acc;
      v.n = n;
      v.imm0 = p.alpha;
      s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c_.tag));
    }
    if (p.has_cadd) add_c(s, r);
    if (p.y_trans) {
      pcs::Vector v;
      v.op = pcs::Vector::kTranspose;
      v.src0 = r.acc;
      v.dst = r.slot + L_.tout;
      v.n = n;
      v.inner = static_cast<uint32_t>(r.nt);
      s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c_.tag));
      s.stores.push_back(dma2(c_.spm(r.slot + L_.tout), p.y_addr + uint64_t(r.n0 * p.y_ld + r.m0) * 4,
                              r.mt * 4, r.nt, r.mt * 4, p.y_ld * 4));
    } else {
      s.stores.push_back(dma2(c_.spm(r.acc), p.y_addr + uint64_t(r.m0 * p.y_ld + r.n0) * 4, r.nt * 4, r.mt,
                              r.nt * 4, p.y_ld * 4));
    }
  }

  /// acc += beta * C for Gemm's C operand: a full tile, a row vector C[n], a column vector C[m] or
  /// a scalar, loaded with the step and broadcast by the vector unit.
  void add_c(Step& s, const TileRef& r) {
    const MmProblem& p = p_;
    const uint32_t n = static_cast<uint32_t>(r.mt * r.nt);
    const uint32_t cd = r.slot + L_.cadd;
    pcs::Vector v;
    v.op = pcs::Vector::kAdd;
    v.src0 = r.acc;
    v.dst = r.acc;
    v.n = n;
    v.src1 = cd;
    const uint64_t base = p.cadd_addr + uint64_t(r.m0 * p.cs_m + r.n0 * p.cs_n) * 4;
    if (p.cs_m && p.cs_n) {  // full C tile
      s.loads.push_back(dma2(base, c_.spm(cd), r.nt * 4, r.mt, p.cs_m * 4, r.nt * 4));
      v.bcast_inner = 1;
      v.bcast_len = n;
    } else if (p.cs_n) {  // row vector: C[n]
      s.loads.push_back(dma1(base, c_.spm(cd), r.nt * 4));
      v.bcast_inner = 1;
      v.bcast_len = r.nt;
    } else if (p.cs_m) {  // column vector: C[m]
      s.loads.push_back(dma1(base, c_.spm(cd), r.mt * 4));
      v.bcast_inner = r.nt;
      v.bcast_len = r.mt;
    } else {  // scalar
      s.loads.push_back(dma1(base, c_.spm(cd), 4));
    }
    if (p.beta != 1.0f) {
      pcs::Vector sc;
      sc.op = pcs::Vector::kMulScalar;
      sc.src0 = cd;
      sc.dst = cd;
      sc.n = (p.cs_m && p.cs_n) ? n : p.cs_n ? r.nt : p.cs_m ? r.mt : 1;
      sc.imm0 = p.beta;
      s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(sc, c_.tag));
    }
    s.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c_.tag));
  }

  Ctx& c_;
  Pipeline& pl_;
  const MmProblem& p_;
  const Tiling& t_;
  const Layout& L_;
  const uint32_t res_;  ///< resident B of this problem (ping/pong by instance)
  uint64_t& out_tiles_;
  WeightTracker& wt_;
  MmStats& st_;
  bool first_step_ = true;
};

}  // namespace

void emit_problem(Ctx& c, Pipeline& pl, const MmProblem& p, const Tiling& t, const Layout& L,
                  uint64_t instance, uint64_t& out_tiles, WeightTracker& wt, MmStats& st) {
  ProblemEmitter(c, pl, p, t, L, instance, out_tiles, wt, st).run();
}

}  // namespace photon::lowering

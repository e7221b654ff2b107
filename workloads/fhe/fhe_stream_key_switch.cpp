// Streamed hybrid key switching (docs/fhe.md "Key switching with little memory"): the commands of
// fhe_key_switch.cpp (ModUp, inner product with the key, ModDown) in one of the dataflows of
// StreamShape, tile by tile, with the key streamed from HBM unless it has a slot.
//
// Work is the resident lowering's, term for term: per digit j an INTT of its d_j limbs, a BConv to
// its K+alpha-d_j targets and their NTT; per limb and key polynomial one MulMod and beta-1
// MulAccMod; ModDown INTT alpha, BConv alpha -> K, NTT K, subtract, scale. Only the order and the
// data movement differ.
#include <algorithm>

#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_op_traits.h"
#include "workloads/fhe/fhe_stream_internal.h"

namespace photon::fhe {

namespace {

TileOperand reads(const PolyRef& r, uint32_t polys, uint32_t lo, uint32_t n, ByteClass cls) {
  return operand(r, polys, lo, n, true, false, cls, cls);
}

/// A ring slot of `polys` x n limbs with no HBM side (a tile's scratch).
TileOperand scratch(uint32_t polys, uint32_t n) {
  PolyRef r;
  return operand(r, polys, 0, n, false, false, ByteClass::Spill, ByteClass::Spill);
}

uint64_t at(const TileView& v, size_t p, uint32_t poly) { return v.at[p] + poly * v.poly_stride[p]; }

struct Digit {
  uint32_t js, je;
};

}  // namespace

void StreamLowerer::key_switch(const PolyRef& c, ByteClass c_cls, const PolyRef& key, const KsFinish& fin,
                               uint32_t galois) {
  const uint32_t E = K + A, q = plan.mem->q_slots;
  auto digit = [&](uint32_t j) { return Digit{j * A, std::min(j * A + A, K)}; };
  // Digit j's targets: the other digits' Q limbs and the P limbs (compact index).
  auto targets = [&](uint32_t j) {
    const Digit d = digit(j);
    LimbRuns r;
    if (d.js > 0) r.push_back({0, d.js});
    r.push_back({d.je, E});
    return r;
  };
  auto first_op = [](bool first) { return first ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod; };
  const PolyRef ks = key;  // polynomial 2j + k: digit j, component k
  // Finish operands for Q limbs [lo, lo+n) at positions `base`...
  auto fin_ops = [&](Tile& t, uint32_t lo, uint32_t n) {
    for (TileOperand o : fin.ops) {
      o.lo = lo;
      o.n = n;
      t.ops.push_back(o);
    }
  };

  if (shape.ks == StreamShape::kAccResident) {
    // ModUp digit by digit fused with the inner product: both accumulators on chip.
    const PolyRef acc = alloc(E, 2), coeff = alloc(A);
    // Key digits: two buffers of one digit (both polynomials, Q then P limbs), digit j+1 loaded
    // while digit j is used.
    const bool by_digit = shape.key_digits && !ks.spm;
    PolyRef kbuf[2];
    if (by_digit) kbuf[0] = alloc(E, 2), kbuf[1] = alloc(E, 2);
    auto load_digit = [&](uint32_t j) {
      const PolyRef& b = kbuf[j % 2];
      const uint64_t src = ks.addr + 2ull * j * ks.poly_stride;
      s().load(src, b.addr, uint64_t(K) * lb, 2, ks.poly_stride, b.poly_stride, ByteClass::Keys);
      s().load(src + uint64_t(ks.p_at) * lb, b.addr + uint64_t(K) * lb, uint64_t(A) * lb, 2, ks.poly_stride,
               b.poly_stride, ByteClass::Keys);
      s().end_transfers();
    };
    if (by_digit) {
      load_digit(0);
      s().note_prologue(2ull * E * lb);  // nothing to overlap the first digit with
    }
    for (uint32_t j = 0; j < beta; ++j) {
      const Digit d = digit(j);
      const uint8_t o = first_op(j == 0);
      if (by_digit && j + 1 < beta) load_digit(j + 1);
      const PolyRef kj = by_digit ? kbuf[j % 2] : ks.poly(2 * j);
      map(d.js, d.je, true, [&](Tile& t, uint32_t lo, uint32_t n) {
        t.ops = {reads(c, 1, lo, n, c_cls), reads(kj, 2, lo, n, ByteClass::Keys)};
        if (galois) t.ops.push_back(scratch(1, n));
        t.compute = [this, lo, n, d, acc, coeff, o, galois](const TileView& v) {
          const uint32_t m = s().moduli(lo, K);
          const uint64_t x = rotated(v, 0, 2, n, m, galois);
          s().ntt(pcs::Ntt::kInverse, x, 0, coeff.limb(lo - d.js, lb), n, v.log_n, m);
          for (uint32_t k = 0; k < 2; ++k)
            s().ntt(o, x, at(v, 1, k), acc.poly(k).limb(lo, lb), n, v.log_n, m);
        };
      });
      for (const auto& [tlo, thi] : targets(j))
        map(tlo, thi, true, [&](Tile& t, uint32_t lo, uint32_t n) {
          t.ops = {reads(kj, 2, lo, n, ByteClass::Keys), scratch(1, n)};
          t.compute = [this, lo, n, d, acc, coeff, o](const TileView& v) {
            const uint32_t m = s().moduli(lo, K);
            s().bconv(coeff.addr, {d.js, d.je}, v.at[1], s().chain(lo, lo + n, K), v.log_n);
            s().ntt(pcs::Ntt::kForward, v.at[1], 0, v.at[1], n, v.log_n, m);
            for (uint32_t k = 0; k < 2; ++k)
              s().ntt(o, v.at[1], at(v, 0, k), acc.poly(k).limb(lo, lb), n, v.log_n, m);
          };
        });
    }
    // ModDown: INTT of both P parts, then per Q tile BConv P -> tile, NTT, subtract, finish.
    for (uint32_t k = 0; k < 2; ++k) {
      const uint64_t p = acc.poly(k).limb(K, lb);
      s().ntt(pcs::Ntt::kInverse, p, 0, p, A, log_n, 8 * q);
    }
    map(0, K, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {scratch(2, n)};
      fin_ops(t, lo, n);
      t.compute = [this, lo, n, acc, q, &fin](const TileView& v) {
        const uint32_t m = s().moduli(lo, K);
        for (uint32_t k = 0; k < 2; ++k)
          s().bconv(acc.poly(k).limb(K, lb), {q, q + A}, at(v, 0, k), {lo, lo + n}, v.log_n);
        for (uint32_t k = 0; k < 2; ++k) {
          s().ntt(pcs::Ntt::kForward, at(v, 0, k), 0, at(v, 0, k), n, v.log_n, m);
          s().ntt(pcs::Ntt::kSubMod, acc.poly(k).limb(lo, lb), at(v, 0, k), at(v, 0, k), n, v.log_n, m);
        }
        fin.emit(*this, v, 1, at(v, 0, 0), at(v, 0, 1), n, m);
      };
    });
    return;
  }

  // Raised digits in HBM, the inner product output-limb-major with ModDown fused.
  PolyRef raised = home(plan.raised_home, plan.mem->ext_slots);
  const uint64_t phase_mark = s().arena().mark();
  for (uint32_t j = 0; j < beta; ++j) {
    const Digit d = digit(j), dw = d;
    const uint32_t dl = d.je - d.js;
    const PolyRef rj = raised.poly(j);
    if (!shape.coeff_transposed) {
      const uint64_t mark = s().arena().mark();
      const PolyRef coeff = alloc(A);
      map(d.js, d.je, true, [&](Tile& t, uint32_t lo, uint32_t n) {
        t.ops = {reads(c, 1, lo, n, c_cls)};
        if (galois) t.ops.push_back(scratch(1, n));
        t.compute = [this, lo, n, dw, coeff, galois](const TileView& v) {
          const uint32_t m = s().moduli(lo, K);
          s().ntt(pcs::Ntt::kInverse, rotated(v, 0, 1, n, m, galois), 0, coeff.limb(lo - dw.js, lb), n,
                  v.log_n, m);
        };
      });
      for (const auto& [tlo, thi] : targets(j))
        map(tlo, thi, true, [&](Tile& t, uint32_t lo, uint32_t n) {
          t.ops = {operand(rj, 1, lo, n, false, true, ByteClass::Spill, ByteClass::Spill)};
          t.compute = [this, lo, n, dw, coeff](const TileView& v) {
            s().bconv(coeff.addr, {dw.js, dw.je}, v.at[0], s().chain(lo, lo + n, K), v.log_n);
            s().ntt(pcs::Ntt::kForward, v.at[0], 0, v.at[0], n, v.log_n, s().moduli(lo, K));
          };
        });
      s().arena().release(mark);
      continue;
    }
    // Transposed ModUp: coefficients to HBM, base conversion slot-wise, NTT limb-wise.
    const PolyRef coeff = home(plan.coeff_home, 0);
    map(d.js, d.je, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {reads(c, 1, lo, n, c_cls),
               operand(coeff, 1, lo - dw.js, n, false, true, ByteClass::Spill, ByteClass::Spill)};
      t.compute = [this, lo, n, galois](const TileView& v) {
        const uint32_t m = s().moduli(lo, K);
        if (galois) {  // rotated into the coefficient slot, transformed there
          s().ntt(pcs::Ntt::kAutomorph, v.at[0], 0, v.at[1], n, v.log_n, m, 0, galois);
          s().ntt(pcs::Ntt::kInverse, v.at[1], 0, v.at[1], n, v.log_n, m);
        } else {
          s().ntt(pcs::Ntt::kInverse, v.at[0], 0, v.at[1], n, v.log_n, m);
        }
      };
    });
    const auto tg = targets(j);
    std::vector<Tile> slices;
    for (uint32_t sl = 0; sl < (dry ? 1u : (1u << shape.tsplit)); ++sl) {
      Tile t;
      t.log_n = log_n - shape.tsplit;
      t.split = shape.tsplit;
      t.slice = sl;
      t.ops = {reads(coeff, 1, 0, dl, ByteClass::Spill)};
      for (const auto& [tlo, thi] : tg)
        t.ops.push_back(operand(rj, 1, tlo, thi - tlo, false, true, ByteClass::Spill, ByteClass::Spill));
      t.compute = [this, dw, tg](const TileView& v) {
        for (size_t r = 0; r < tg.size(); ++r)
          s().bconv(v.at[0], {dw.js, dw.je}, v.at[1 + r], s().chain(tg[r].first, tg[r].second, K), v.log_n);
      };
      slices.push_back(std::move(t));
    }
    run(slices, dry ? 1u << shape.tsplit : 1);
    for (const auto& [tlo, thi] : tg)
      map(tlo, thi, true, [&](Tile& t, uint32_t lo, uint32_t n) {
        t.ops = {operand(rj, 1, lo, n, true, true, ByteClass::Spill, ByteClass::Spill)};
        t.compute = [this, lo, n](const TileView& v) {
          s().ntt(pcs::Ntt::kForward, v.at[0], 0, v.at[0], n, v.log_n, s().moduli(lo, K));
        };
      });
  }
  s().arena().release(phase_mark);

  // Inner product, P limbs first (ModDown needs the whole P part), digits `chunk` at a time.
  const uint32_t chunk = std::max<uint32_t>(1, std::min(shape.chunk, beta));
  // Digit runs for output limbs [lo, lo+n) of digit `own` (beta = none): the raised digits in
  // runs of at most `chunk`, skipping the own digit (taken from c).
  auto runs = [&](uint32_t own) {
    LimbRuns r;
    for (uint32_t j = 0; j < beta;) {
      if (j == own) {
        ++j;
        continue;
      }
      uint32_t e = j;
      while (e < beta && e != own && e - j < chunk) ++e;
      r.push_back({j, e});
      j = e;
    }
    return r;
  };
  const bool sliced = shape.split > 0;
  const uint32_t ls = log_n - shape.split, slices = 1u << shape.split;
  // One output group's inner-product tiles: terms accumulate into acc (polys 0, 1) at acc_at(v).
  auto ip_tiles = [&](std::vector<Tile>& tiles, uint32_t lo, uint32_t n, uint32_t own, uint32_t sl,
                      const PolyRef& acc, bool acc_slice, bool last_extra,
                      const std::function<void(Tile&)>& extra_ops,
                      const std::function<void(const TileView&, size_t)>& extra) {
    bool first = true;
    LimbRuns parts;
    if (own < beta) parts.push_back({own, own + 1});
    for (const auto& r : runs(own)) parts.push_back(r);
    for (size_t pi = 0; pi < parts.size(); ++pi) {
      const auto [j0, j1] = parts[pi];
      Tile t;
      t.log_n = sliced ? ls : log_n;
      t.split = sliced ? shape.split : 0;
      t.slice = sl;
      const bool is_own = own < beta && j0 == own;
      t.ops = {is_own ? reads(c, 1, lo, n, c_cls) : reads(raised.poly(j0), j1 - j0, lo, n, ByteClass::Spill),
               reads(ks.poly(2 * j0), 2 * (j1 - j0), lo, n, ByteClass::Keys),
               is_own && galois ? scratch(1, n) : TileOperand{}};  // position 2: the own digit rotated
      const bool last = pi + 1 == parts.size();
      if (last && last_extra) extra_ops(t);
      const bool f = first;
      std::function<void(const TileView&, size_t)> ex;
      if (last && last_extra) ex = extra;
      const uint32_t gal = is_own ? galois : 0;
      t.compute = [this, lo, n, j0, j1, f, acc, acc_slice, ex, gal](const TileView& v) {
        const uint32_t m = s().moduli(lo, K);
        const uint64_t off = v.log_n < log_n && !acc_slice ? uint64_t(v.slice) * s().limb_bytes(v.log_n) : 0;
        const uint64_t src = rotated(v, 0, 2, n, m, gal);
        // Per key component k: one command sums the j1 - j0 digits' products.
        for (uint32_t k = 0; k < 2; ++k)
          s().sum_of_products(!f, src, v.poly_stride[0], at(v, 1, k), 2 * v.poly_stride[1],
                              acc.addr + k * acc.poly_stride + off, j1 - j0, n, v.log_n, m);
        if (ex) ex(v, 3);
      };
      first = false;
      tiles.push_back(std::move(t));
    }
  };

  // P part.
  const PolyRef accp_home = home(plan.accp_home, A);
  PolyRef accp;
  if (!shape.accp_transposed) accp = alloc(A, 2);
  {
    std::vector<Tile> tiles;
    const auto gs = groups(K, E, shape.g);
    const uint64_t mark = s().arena().mark();
    PolyRef accg[2];
    if (shape.accp_transposed) {
      accg[0] = alloc(shape.g, 2);
      accg[1] = shape.tight ? accg[0] : alloc(shape.g, 2);
    }
    size_t gi = 0;
    for (const auto& [lo, n] : gs) {
      // The accumulator: the resident P part, or a group buffer whose INTT goes to HBM.
      PolyRef a = shape.accp_transposed ? accg[gi % 2] : accp;
      if (!shape.accp_transposed) a.addr = accp.limb(lo - K, lb);
      for (uint32_t sl = 0; sl < (sliced && !dry ? slices : 1u); ++sl)
        ip_tiles(tiles, lo, n, beta, sl, a, false, false, {}, {});
      if (shape.accp_transposed) {  // the group's INTT, written to HBM for the slot-wise BConv
        Tile t;
        t.log_n = log_n;
        t.ops = {operand(accp_home, 2, lo - K, n, false, true, ByteClass::Spill, ByteClass::Spill)};
        t.compute = [this, a, lo = lo, n = n](const TileView& v) {
          for (uint32_t k = 0; k < 2; ++k)
            s().ntt(pcs::Ntt::kInverse, a.addr + k * a.poly_stride, 0, at(v, 0, k), n, v.log_n,
                    s().moduli(lo, K));
        };
        tiles.push_back(std::move(t));
      }
      ++gi;
      if (dry) break;
    }
    run(tiles, dry ? gs.size() * (sliced ? slices : 1) : 1);
    s().arena().release(mark);
  }
  if (!shape.accp_transposed) {
    for (uint32_t k = 0; k < 2; ++k) {
      const uint64_t p = accp.poly(k).addr;
      s().ntt(pcs::Ntt::kInverse, p, 0, p, A, log_n, 8 * q);
    }
  } else {
    // ModDown's base conversion slot-wise: P coefficients -> the K Q limbs, both polynomials.
    const PolyRef tmp_home = home(plan.tmp_home, plan.mem->q_slots);
    std::vector<Tile> tiles;
    for (uint32_t sl = 0; sl < (dry ? 1u : (1u << shape.tsplit)); ++sl) {
      Tile t;
      t.log_n = log_n - shape.tsplit;
      t.split = shape.tsplit;
      t.slice = sl;
      t.ops = {reads(accp_home, 2, 0, A, ByteClass::Spill),
               operand(tmp_home, 2, 0, K, false, true, ByteClass::Spill, ByteClass::Spill)};
      t.compute = [this, q](const TileView& v) {
        for (uint32_t k = 0; k < 2; ++k) s().bconv(at(v, 0, k), {q, q + A}, at(v, 1, k), {0, K}, v.log_n);
      };
      tiles.push_back(std::move(t));
    }
    run(tiles, dry ? 1u << shape.tsplit : 1);
  }

  // Q part: per group, ks = acc - NTT(BConv(P part)) then the finish.
  {
    const PolyRef tmp_home = home(plan.tmp_home, plan.mem->q_slots);
    const uint64_t mark = s().arena().mark();
    // Per group: the accumulators (one slice of them when the tiles are sliced) and the
    // ModDown correction (whole limbs: its NTT), two of each unless tight.
    PolyRef accg[2], tmpg[2];
    const uint64_t sb = s().limb_bytes(log_n - shape.split);
    for (int i = 0; i < (shape.tight ? 1 : 2); ++i) {
      if (sliced) {
        accg[i].spm = true;
        accg[i].addr = s().arena().alloc(2 * sb);
        accg[i].poly_stride = sb;
        accg[i].k = K;
      } else {
        accg[i] = alloc(shape.g, 2);
      }
      tmpg[i] = alloc(shape.g, 2);
    }
    if (shape.tight) accg[1] = accg[0], tmpg[1] = tmpg[0];
    // Groups never straddle a digit.
    LimbRuns gs;
    for (uint32_t j = 0; j < beta; ++j)
      for (const auto& g : groups(digit(j).js, digit(j).je, shape.g)) gs.push_back(g);
    const uint64_t groups_q = gs.size();
    if (dry && !gs.empty()) gs.resize(1);
    std::vector<Tile> tiles;
    size_t gi = 0;
    for (const auto& [lo, n] : gs) {
      const uint32_t own = lo / A;
      const PolyRef tg = tmpg[gi % 2], ag = accg[gi % 2];
      // The ModDown correction of the group, whole limbs (its NTT): BConv from the P part on chip,
      // or the slot-wise conversion's output read back.
      {
        Tile t;
        t.log_n = log_n;
        if (shape.accp_transposed) t.ops.push_back(reads(tmp_home, 2, lo, n, ByteClass::Spill));
        const bool tr = shape.accp_transposed;
        t.compute = [this, lo, n, tg, accp, q, tr](const TileView& v) {
          const uint32_t m = s().moduli(lo, K);
          for (uint32_t k = 0; k < 2; ++k) {
            const uint64_t dst = tg.addr + k * tg.poly_stride;
            if (tr)
              s().ntt(pcs::Ntt::kForward, at(v, 0, k), 0, dst, n, v.log_n, m);
            else
              s().bconv(accp.poly(k).addr, {q, q + A}, dst, {lo, lo + n}, v.log_n);
          }
          if (!tr)
            for (uint32_t k = 0; k < 2; ++k) {
              const uint64_t dst = tg.addr + k * tg.poly_stride;
              s().ntt(pcs::Ntt::kForward, dst, 0, dst, n, v.log_n, m);
            }
        };
        tiles.push_back(std::move(t));
      }
      for (uint32_t sl = 0; sl < (sliced ? (dry ? 1u : slices) : 1u); ++sl) {
        const uint32_t glo = lo, gn = n;
        ip_tiles(
            tiles, lo, n, own, sl, ag, sliced, true, [&](Tile& t) { fin_ops(t, glo, gn); },
            [this, tg, ag, glo, gn, &fin](const TileView& v, size_t p) {
              const uint32_t m = s().moduli(glo, K);
              const uint64_t off = v.log_n < log_n ? uint64_t(v.slice) * s().limb_bytes(v.log_n) : 0;
              for (uint32_t k = 0; k < 2; ++k)
                s().ntt(pcs::Ntt::kSubMod, ag.addr + k * ag.poly_stride, tg.addr + k * tg.poly_stride + off,
                        tg.addr + k * tg.poly_stride + off, gn, v.log_n, m);
              fin.emit(*this, v, p, tg.addr + off, tg.addr + tg.poly_stride + off, gn, m);
            });
      }
      ++gi;
    }
    run(tiles, dry ? groups_q * (sliced ? slices : 1) : 1);
    s().arena().release(mark);
  }
}

KsFinish StreamLowerer::finish_add_both() {
  // c_k += ks_k * P^-1
  KsFinish f;
  TileOperand o;
  o.ref = cur();
  o.polys = 2;
  o.read = o.write = true;
  o.in_cls = ByteClass::CtIn;
  o.out_cls = ByteClass::CtOut;
  f.ops = {o};
  f.emit = [](StreamLowerer& l, const TileView& v, size_t p, uint64_t t0, uint64_t t1, uint32_t n,
              uint32_t m) {
    const uint64_t t[2] = {t0, t1};
    for (uint32_t k = 0; k < 2; ++k) {
      l.with_konst(pcs::Ntt::kMulMod, t[k], t[k], n, v.log_n, m);
      l.s().ntt(pcs::Ntt::kAddMod, at(v, p, k), t[k], at(v, p, k), n, v.log_n, m);
    }
  };
  return f;
}

KsFinish StreamLowerer::finish_rotation(const PolyRef& base, ByteClass base_cls, const PolyRef& out,
                                        uint32_t galois) {
  // (base + ks_0 * P^-1, ks_1 * P^-1); a rotated base is rotated into a scratch slot first.
  KsFinish f;
  TileOperand b;
  b.ref = base;
  b.polys = 1;
  b.in_cls = b.out_cls = base_cls;
  TileOperand o;
  o.ref = out;
  o.polys = 2;
  o.read = false;
  o.write = true;
  o.out_cls = ByteClass::CtOut;
  f.ops = {b, o};
  if (galois) f.ops.push_back(scratch(1, 1));
  f.emit = [galois](StreamLowerer& l, const TileView& v, size_t p, uint64_t t0, uint64_t t1, uint32_t n,
                    uint32_t m) {
    const uint64_t base_at = l.rotated(v, p, p + 2, n, m, galois);
    l.with_konst(pcs::Ntt::kMulMod, t0, t0, n, v.log_n, m);
    l.s().ntt(pcs::Ntt::kAddMod, base_at, t0, at(v, p + 1, 0), n, v.log_n, m);
    l.with_konst(pcs::Ntt::kMulMod, t1, at(v, p + 1, 1), n, v.log_n, m);
  };
  return f;
}

uint64_t StreamLowerer::rotated(const TileView& v, size_t src, size_t scr, uint32_t n, uint32_t moduli,
                                uint32_t galois) {
  if (!galois) return v.at[src];
  s().ntt(pcs::Ntt::kAutomorph, v.at[src], 0, v.at[scr], n, v.log_n, moduli, 0, galois);
  return v.at[scr];
}

void stream_relinearize(StreamLowerer& l, const FheOp& op) {
  for (const KeyId& key : fhe_op_keys(op, l.cfg.fhe))
    l.key_switch(l.d2(), ByteClass::CtIn, l.key(key), l.finish_add_both());
}

void stream_key_switch(StreamLowerer& l, const FheOp& op) {
  const PolyRef c = l.cur();
  const PolyRef k = l.key(fhe_op_keys(op, l.cfg.fhe).at(0));
  l.key_switch(c.poly(1), ByteClass::CtIn, k, l.finish_rotation(c.poly(0), ByteClass::CtIn, c));
}

namespace {

/// The automorphism of both polynomials of the current ciphertext into `rot`.
void automorph_into(StreamLowerer& l, const PolyRef& rot, uint32_t galois) {
  const PolyRef c = l.cur();
  const uint32_t pp = l.shape.tight ? 1 : 2;  // polynomials per tile
  for (uint32_t k0 = 0; k0 < 2; k0 += pp)
    l.map(0, l.K, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {reads(c.poly(k0), pp, lo, n, ByteClass::CtIn),
               operand(rot.poly(k0), pp, lo, n, false, true, ByteClass::Spill, ByteClass::Spill)};
      t.compute = [&l, lo, n, galois, pp](const TileView& v) {
        for (uint32_t k = 0; k < pp; ++k)
          l.s().ntt(pcs::Ntt::kAutomorph, at(v, 0, k), 0, at(v, 1, k), n, v.log_n, l.s().moduli(lo, l.K), 0,
                    galois);
      };
    });
}

}  // namespace

void stream_rotate(StreamLowerer& l, const FheOp& op) {
  // Rotate and Conjugate (identity rotations read no key and emit nothing). The rotated input
  // lives in the working region or in HBM (automorphism first, as lower_rotate), or is rotated on
  // the fly as the key switch and the finish read the current ciphertext.
  for (const KeyId& key : fhe_op_keys(op, l.cfg.fhe)) {
    const uint32_t g = key.galois | pcs::Ntt::kGaloisNttDomain;
    if (l.shape.rot == StreamShape::kRotOnTheFly) {
      const PolyRef c = l.cur();
      const PolyRef k = l.key(key);
      l.key_switch(c.poly(1), ByteClass::CtIn, k, l.finish_rotation(c.poly(0), ByteClass::CtIn, c, g), g);
      continue;
    }
    const PolyRef rot = l.shape.rot == StreamShape::kRotResident
                            ? l.alloc(l.K, 2)
                            : l.home(l.plan.rot_home, l.plan.mem->q_slots);
    automorph_into(l, rot, g);
    const PolyRef k = l.key(key);
    l.key_switch(rot.poly(1), ByteClass::Spill, k, l.finish_rotation(rot.poly(0), ByteClass::Spill, l.cur()));
  }
}

void stream_hoisted_rotate(StreamLowerer& l, const FheOp& op) { l.hoisted(op); }

void StreamLowerer::hoisted(const FheOp& o) {
  // One ModUp of c1 (raised digits to HBM), then per rotation: automorphism of c0, c1 (own
  // digits) and of each raised tile as it is read, inner product, ModDown into the operand buffer
  // (lower_hoisted_rotate, per tile).
  (void)o;
  const PolyRef c = cur();
  const uint32_t E = K + A, q = plan.mem->q_slots;
  const PolyRef raised = home(plan.raised_home, plan.mem->ext_slots);
  for (uint32_t j = 0; j < beta; ++j) {
    const uint32_t js = j * A, je = std::min(js + A, K);
    const PolyRef rj = raised.poly(j);
    const uint64_t mark = s().arena().mark();
    const PolyRef coeff = alloc(A);
    map(js, je, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {reads(c.poly(1), 1, lo, n, ByteClass::CtIn)};
      t.compute = [this, lo, n, js, coeff](const TileView& v) {
        s().ntt(pcs::Ntt::kInverse, v.at[0], 0, coeff.limb(lo - js, lb), n, v.log_n, s().moduli(lo, K));
      };
    });
    LimbRuns tg;
    if (js > 0) tg.push_back({0, js});
    tg.push_back({je, E});
    for (const auto& [tlo, thi] : tg)
      map(tlo, thi, true, [&](Tile& t, uint32_t lo, uint32_t n) {
        t.ops = {operand(rj, 1, lo, n, false, true, ByteClass::Spill, ByteClass::Spill)};
        t.compute = [this, lo, n, js, je, coeff](const TileView& v) {
          s().bconv(coeff.addr, {js, je}, v.at[0], s().chain(lo, lo + n, K), v.log_n);
          s().ntt(pcs::Ntt::kForward, v.at[0], 0, v.at[0], n, v.log_n, s().moduli(lo, K));
        };
      });
    s().arena().release(mark);
  }
  for (const KeyId& key : fhe_op_keys(*op, cfg.fhe)) {
    const uint32_t g = key.galois | pcs::Ntt::kGaloisNttDomain;
    const uint64_t mark = s().arena().mark();
    const PolyRef rot = shape.rot == StreamShape::kRotResident ? alloc(K, 2) : home(plan.rot_home, q);
    automorph_into(*this, rot, g);
    const PolyRef ks = this->key(key);
    const PolyRef accp = alloc(A, 2), acc = alloc(shape.g, 2), tmp = alloc(shape.g, 2);
    auto ip = [&](uint32_t lo, uint32_t n, const PolyRef& dst, bool q_part) {
      std::vector<Tile> tiles;
      for (uint32_t j = 0; j < beta; ++j) {
        const uint32_t js = j * A, je = std::min(js + A, K);
        const bool own = q_part && lo >= js && lo < je;
        Tile t;
        t.log_n = log_n;
        t.ops = {own ? reads(rot.poly(1), 1, lo, n, ByteClass::Spill)
                     : reads(raised.poly(j), 1, lo, n, ByteClass::Spill),
                 reads(ks.poly(2 * j), 2, lo, n, ByteClass::Keys), scratch(1, n)};
        t.compute = [this, lo, n, j, own, dst, g](const TileView& v) {
          const uint32_t m = s().moduli(lo, K);
          uint64_t src = v.at[0];
          if (!own) {  // the raised digit's rotation
            s().ntt(pcs::Ntt::kAutomorph, v.at[0], 0, v.at[2], n, v.log_n, m, 0, g);
            src = v.at[2];
          }
          for (uint32_t k = 0; k < 2; ++k)
            s().ntt(j == 0 ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod, src, at(v, 1, k),
                    dst.addr + k * dst.poly_stride, n, v.log_n, m);
        };
        tiles.push_back(std::move(t));
        if (dry) break;
      }
      run(tiles);
    };
    for (const auto& [lo, n] : groups(K, E, shape.g)) {
      PolyRef d = accp;
      d.addr = accp.limb(lo - K, lb);
      ip(lo, n, d, false);
      if (dry) break;
    }
    for (uint32_t k = 0; k < 2; ++k)
      s().ntt(pcs::Ntt::kInverse, accp.poly(k).addr, 0, accp.poly(k).addr, A, log_n, 8 * q);
    const KsFinish fin = finish_rotation(rot.poly(0), ByteClass::Spill, opb());
    LimbRuns gs;
    for (uint32_t j = 0; j < beta; ++j)
      for (const auto& gr : groups(j * A, std::min(j * A + A, K), shape.g)) gs.push_back(gr);
    for (const auto& [lo, n] : gs) {
      ip(lo, n, acc, true);
      map(lo, lo + n, true, [&](Tile& t, uint32_t tlo, uint32_t tn) {
        for (TileOperand fo : fin.ops) {
          fo.lo = tlo;
          fo.n = tn;
          t.ops.push_back(fo);
        }
        t.compute = [this, tlo, tn, acc, tmp, accp, q, &fin](const TileView& v) {
          const uint32_t m = s().moduli(tlo, K);
          for (uint32_t k = 0; k < 2; ++k) {
            const uint64_t t = tmp.addr + k * tmp.poly_stride;
            s().bconv(accp.poly(k).addr, {q, q + A}, t, {tlo, tlo + tn}, v.log_n);
            s().ntt(pcs::Ntt::kForward, t, 0, t, tn, v.log_n, m);
            s().ntt(pcs::Ntt::kSubMod, acc.addr + k * acc.poly_stride, t, t, tn, v.log_n, m);
          }
          fin.emit(*this, v, 0, tmp.addr, tmp.addr + tmp.poly_stride, tn, m);
        };
      });
      if (dry) break;
    }
    s().arena().release(mark);
  }
}

}  // namespace photon::fhe

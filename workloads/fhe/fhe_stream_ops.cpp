// Streamed emitters of the ops without key switching (docs/fhe.md "Memory plan"): the same
// commands as the resident emitters (fhe_op_emitters.cpp), per tile of limbs or coefficients, on
// operands brought in from HBM when they are not on chip.
#include <algorithm>

#include "base/error.h"
#include "workloads/fhe/fhe_stream_internal.h"

namespace photon::fhe {

namespace {

/// The ciphertext in place (read and written), 2 polynomials.
TileOperand ct_rw(const PolyRef& r, uint32_t lo, uint32_t n, uint32_t polys = 2) {
  return operand(r, polys, lo, n, true, true, ByteClass::CtIn, ByteClass::CtOut);
}

uint64_t at(const TileView& v, size_t p, uint32_t poly) { return v.at[p] + poly * v.poly_stride[p]; }

/// dst_k = cur_k (o) b: b = operand 1 (`b_polys` polynomials, the same for both when 1).
void cur_with(StreamLowerer& l, uint8_t o, const PolyRef& b, uint32_t b_polys, ByteClass b_cls,
              uint32_t polys) {
  const PolyRef c = l.cur();
  l.map(0, l.K, false, [&](Tile& t, uint32_t lo, uint32_t n) {
    t.ops = {ct_rw(c, lo, n, polys), operand(b, b_polys, lo, n, true, false, b_cls, b_cls)};
    t.compute = [&l, o, lo, n, polys, b_polys](const TileView& v) {
      for (uint32_t k = 0; k < polys; ++k)
        l.s().ntt(o, at(v, 0, k), at(v, 1, b_polys == 1 ? 0 : k), at(v, 0, k), n, v.log_n,
                  l.s().moduli(lo, l.K));
    };
  });
}

/// dst_k = a (o) cur_k with a constant tile (zero, a scalar) for every polynomial.
void const_with_cur(StreamLowerer& l, uint8_t o, bool konst_first) {
  const PolyRef c = l.cur();
  l.map(0, l.K, false, [&](Tile& t, uint32_t lo, uint32_t n) {
    t.ops = {ct_rw(c, lo, n)};
    t.compute = [&l, o, lo, n, konst_first](const TileView& v) {
      for (uint32_t k = 0; k < 2; ++k) {
        const uint64_t x = at(v, 0, k);
        l.with_konst(o, x, x, n, v.log_n, l.s().moduli(lo, l.K), konst_first);
      }
    };
  });
}

}  // namespace

void stream_add(StreamLowerer& l, const FheOp&) {
  cur_with(l, pcs::Ntt::kAddMod, l.opb(), 2, ByteClass::CtIn, 2);
}
void stream_sub(StreamLowerer& l, const FheOp&) {
  cur_with(l, pcs::Ntt::kSubMod, l.opb(), 2, ByteClass::CtIn, 2);
}
void stream_negate(StreamLowerer& l, const FheOp&) { const_with_cur(l, pcs::Ntt::kSubMod, true); }
void stream_add_plain(StreamLowerer& l, const FheOp&) {
  cur_with(l, pcs::Ntt::kAddMod, l.opb(), 1, ByteClass::Plaintext, 1);
}
void stream_sub_plain(StreamLowerer& l, const FheOp&) {
  cur_with(l, pcs::Ntt::kSubMod, l.opb(), 1, ByteClass::Plaintext, 1);
}
void stream_mul_plain(StreamLowerer& l, const FheOp&) {
  cur_with(l, pcs::Ntt::kMulMod, l.opb(), 1, ByteClass::Plaintext, 2);
}
void stream_mul_scalar(StreamLowerer& l, const FheOp&) { const_with_cur(l, pcs::Ntt::kMulMod, false); }

void stream_mul(StreamLowerer& l, const FheOp& op) {
  // (a0 b0, a0 b1 + a1 b0, a1 b1) per tile, as lower_mul; degree d > 1: the extra products
  // accumulate in the degree-2 buffer.
  const PolyRef c = l.cur(), b = l.opb(), d2 = l.d2();
  const uint32_t d = std::max<uint32_t>(op.ct_degree, 1);
  const uint32_t extra_muls = (d + 1) * (d + 1) - 4, extra_components = 2 * d + 1 - 3;
  l.map(0, l.K, false, [&](Tile& t, uint32_t lo, uint32_t n) {
    t.ops = {ct_rw(c, lo, n), operand(b, 2, lo, n, true, false, ByteClass::CtIn, ByteClass::CtIn),
             operand(d2, 1, lo, n, false, true, ByteClass::CtIn, ByteClass::CtOut)};
    t.compute = [&l, lo, n, extra_muls, extra_components](const TileView& v) {
      const uint32_t q = l.s().moduli(lo, l.K);
      const uint64_t a0 = at(v, 0, 0), a1 = at(v, 0, 1), b0 = at(v, 1, 0), b1 = at(v, 1, 1), dd = at(v, 2, 0);
      l.s().ntt(pcs::Ntt::kMulMod, a1, b1, dd, n, v.log_n, q);
      l.s().ntt(pcs::Ntt::kMulMod, a1, b0, a1, n, v.log_n, q);
      l.s().ntt(pcs::Ntt::kMulAccMod, a0, b1, a1, n, v.log_n, q);
      l.s().ntt(pcs::Ntt::kMulMod, a0, b0, a0, n, v.log_n, q);
      for (uint32_t i = 0; i < extra_muls; ++i)
        l.s().ntt(i < extra_components ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod, a1, b1, dd, n, v.log_n, q);
    };
  });
}

void stream_encode(StreamLowerer& l, const FheOp&) {
  const PolyRef b = l.opb();
  l.map(0, l.K, true, [&](Tile& t, uint32_t lo, uint32_t n) {
    t.ops = {operand(b, 1, lo, n, true, true, ByteClass::Plaintext, ByteClass::Plaintext)};
    t.compute = [&l, lo, n](const TileView& v) {
      l.s().ntt(pcs::Ntt::kForward, v.at[0], 0, v.at[0], n, v.log_n, l.s().moduli(lo, l.K));
    };
  });
}

void stream_rescale(StreamLowerer& l, const FheOp& op) {
  // Drops q_l: INTT of the last limb (kept on chip, both polynomials), then per tile BConv 1 -> the
  // tile's limbs, NTT, subtract, multiply by q_l^-1 (lower_rescale, per tile).
  if (op.level < 1) throw Error("rescale at level 0: no limb left to drop");
  const uint32_t last = l.K - 1;
  const uint32_t pp = l.shape.tight ? 1 : 2;  // polynomials per tile
  const PolyRef tail = l.alloc(1, pp);
  for (uint32_t k0 = 0; k0 < 2; k0 += pp) {
    const PolyRef c = l.cur().poly(k0);
    l.map(last, l.K, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {operand(c, pp, lo, n, true, false, ByteClass::CtIn, ByteClass::CtIn)};
      t.compute = [&l, last, tail, pp](const TileView& v) {
        for (uint32_t k = 0; k < pp; ++k)
          l.s().ntt(pcs::Ntt::kInverse, at(v, 0, k), 0, tail.addr + k * tail.poly_stride, 1, v.log_n,
                    l.s().moduli(last, l.K));
      };
    });
    PolyRef scratch;  // a ring slot per tile: no HBM side
    l.map(0, last, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {ct_rw(c, lo, n, pp),
               operand(scratch, pp, 0, n, false, false, ByteClass::Spill, ByteClass::Spill)};
      t.compute = [&l, lo, n, last, tail, pp](const TileView& v) {
        const uint32_t q = l.s().moduli(lo, l.K);
        for (uint32_t k = 0; k < pp; ++k)
          l.s().bconv(tail.addr + k * tail.poly_stride, {last, last + 1}, at(v, 1, k), {lo, lo + n}, v.log_n);
        for (uint32_t k = 0; k < pp; ++k)
          l.s().ntt(pcs::Ntt::kForward, at(v, 1, k), 0, at(v, 1, k), n, v.log_n, q);
        for (uint32_t k = 0; k < pp; ++k)
          l.s().ntt(pcs::Ntt::kSubMod, at(v, 0, k), at(v, 1, k), at(v, 1, k), n, v.log_n, q);
        for (uint32_t k = 0; k < pp; ++k)
          l.with_konst(pcs::Ntt::kMulMod, at(v, 1, k), at(v, 0, k), n, v.log_n, q);
      };
    });
  }
}

void stream_mod_raise(StreamLowerer& l, const FheOp& op) {
  // Level-l residues raised to the whole Q chain (lower_mod_raise): per polynomial INTT K limbs,
  // BConv K -> T, NTT the T new limbs. With the K coefficient limbs on chip the base conversion
  // reads them there; otherwise they go through HBM and the conversion runs slot-wise.
  const uint32_t K = l.K, T = op.max_level + 1 - K;
  if (T == 0) return;
  const PolyRef c = l.cur();
  for (uint32_t k = 0; k < 2; ++k) {
    const PolyRef ck = c.poly(k);
    if (!l.shape.coeff_transposed) {
      const uint64_t mark = l.s().arena().mark();
      const PolyRef coeff = l.alloc(K);
      l.map(0, K, true, [&](Tile& t, uint32_t lo, uint32_t n) {
        t.ops = {operand(ck, 1, lo, n, true, false, ByteClass::CtIn, ByteClass::CtIn)};
        t.compute = [&l, lo, n, coeff](const TileView& v) {
          l.s().ntt(pcs::Ntt::kInverse, v.at[0], 0, coeff.limb(lo, l.lb), n, v.log_n, l.s().moduli(lo, l.K));
        };
      });
      l.map(K, op.max_level + 1, true, [&](Tile& t, uint32_t lo, uint32_t n) {
        t.ops = {operand(ck, 1, lo, n, false, true, ByteClass::CtIn, ByteClass::CtOut)};
        t.compute = [&l, lo, n, coeff, K](const TileView& v) {
          l.s().bconv(coeff.addr, {0, K}, v.at[0], {lo, lo + n}, v.log_n);
          l.s().ntt(pcs::Ntt::kForward, v.at[0], 0, v.at[0], n, v.log_n, 8 * lo);
        };
      });
      l.s().arena().release(mark);
      continue;
    }
    // Transposed: coefficients to HBM, read slot-wise; the new limbs written in coefficient form,
    // then transformed limb by limb.
    const PolyRef coeff = l.home(l.plan.coeff_home, 0);
    l.map(0, K, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {operand(ck, 1, lo, n, true, false, ByteClass::CtIn, ByteClass::CtIn),
               operand(coeff, 1, lo, n, false, true, ByteClass::Spill, ByteClass::Spill)};
      t.compute = [&l, lo, n](const TileView& v) {
        l.s().ntt(pcs::Ntt::kInverse, v.at[0], 0, v.at[1], n, v.log_n, l.s().moduli(lo, l.K));
      };
    });
    std::vector<Tile> slices;
    const uint32_t ts = l.shape.tsplit;
    for (uint32_t s = 0; s < (l.dry ? 1u : (1u << ts)); ++s) {
      Tile t;
      t.log_n = l.log_n - ts;
      t.split = ts;
      t.slice = s;
      t.ops = {operand(coeff, 1, 0, K, true, false, ByteClass::Spill, ByteClass::Spill),
               operand(ck, 1, K, T, false, true, ByteClass::CtIn, ByteClass::Spill)};
      t.compute = [&l, K, T](const TileView& v) {
        l.s().bconv(v.at[0], {0, K}, v.at[1], {K, K + T}, v.log_n);
      };
      slices.push_back(std::move(t));
    }
    l.run(slices, l.dry ? 1u << ts : 1);
    l.map(K, op.max_level + 1, true, [&](Tile& t, uint32_t lo, uint32_t n) {
      t.ops = {operand(ck, 1, lo, n, true, true, ByteClass::Spill, ByteClass::CtOut)};
      t.compute = [&l, lo, n](const TileView& v) {
        l.s().ntt(pcs::Ntt::kForward, v.at[0], 0, v.at[0], n, v.log_n, 8 * lo);
      };
    });
  }
}

}  // namespace photon::fhe

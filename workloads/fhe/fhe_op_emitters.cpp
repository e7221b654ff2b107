// Emitters of the ops without key switching: element-wise ops, the tensor product, rescale,
// ModRaise and encoding (docs/fhe.md "Op expansion"). Ciphertexts are read from and written to
// the current-ciphertext buffer; second operands and plaintexts come from the operand buffer.
#include <algorithm>

#include "base/error.h"
#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_lowering_internal.h"

namespace photon::fhe {

LimbCtx limb_ctx(const FheOp& op, uint32_t storage_bits) {
  LimbCtx c;
  c.log_n = op.log_n;
  c.K = op.level + 1;
  c.L = op.max_level;
  c.A = op.alpha;
  c.dnum = op.dnum;
  c.beta = fhe_digits(op);
  c.lb = (uint64_t(storage_bits) << op.log_n) / 8;
  return c;
}

namespace {

/// One element-wise command per polynomial over the op's K limbs: d_k = a_k (o) b_k, with the
/// operands' polynomial strides (0: the same polynomial for both).
void both(OpLowerer& l, const FheOp& op, uint8_t o, uint64_t a, uint64_t b, uint64_t d, uint64_t a_step,
          uint64_t b_step, uint64_t d_step) {
  for (int k = 0; k < 2; ++k)
    l.w.ntt(o, a + k * a_step, b + k * b_step, d + k * d_step, op.level + 1, l.chain_off(0));
}

/// The polynomial stride inside a ciphertext buffer.
uint64_t poly_stride(const OpLowerer& l) { return uint64_t(l.mem.q_slots) * l.mem.lb_max; }

}  // namespace

void lower_add(OpLowerer& l, const FheOp& op) {
  const uint64_t ps = poly_stride(l);
  both(l, op, pcs::Ntt::kAddMod, l.mem.cur, l.mem.opb, l.mem.cur, ps, ps, ps);
}

void lower_sub(OpLowerer& l, const FheOp& op) {
  const uint64_t ps = poly_stride(l);
  both(l, op, pcs::Ntt::kSubMod, l.mem.cur, l.mem.opb, l.mem.cur, ps, ps, ps);
}

void lower_negate(OpLowerer& l, const FheOp& op) {  // 0 - c
  const uint64_t ps = poly_stride(l);
  both(l, op, pcs::Ntt::kSubMod, l.mem.konst, l.mem.cur, l.mem.cur, 0, ps, ps);
}

void lower_add_plain(OpLowerer& l, const FheOp& op) {
  l.w.ntt(pcs::Ntt::kAddMod, l.mem.cur, l.mem.opb, l.mem.cur, op.level + 1, l.chain_off(0));
}

void lower_sub_plain(OpLowerer& l, const FheOp& op) {
  l.w.ntt(pcs::Ntt::kSubMod, l.mem.cur, l.mem.opb, l.mem.cur, op.level + 1, l.chain_off(0));
}

void lower_mul_plain(OpLowerer& l, const FheOp& op) {
  const uint64_t ps = poly_stride(l);
  both(l, op, pcs::Ntt::kMulMod, l.mem.cur, l.mem.opb, l.mem.cur, ps, 0, ps);
}

void lower_mul_scalar(OpLowerer& l, const FheOp& op) {
  const uint64_t ps = poly_stride(l);
  both(l, op, pcs::Ntt::kMulMod, l.mem.cur, l.mem.konst, l.mem.cur, ps, 0, ps);
}

void lower_mul(OpLowerer& l, const FheOp& op) {
  // (a0 b0, a0 b1 + a1 b0, a1 b1); the order lets c0, c1 be overwritten in place.
  const FheMemoryPlan& m = l.mem;
  const uint32_t K = op.level + 1, q0 = l.chain_off(0);
  const uint64_t a0 = l.poly(m.cur, 0), a1 = l.poly(m.cur, 1), b0 = l.poly(m.opb, 0), b1 = l.poly(m.opb, 1);
  l.w.ntt(pcs::Ntt::kMulMod, a1, b1, m.d2, K, q0);
  l.w.ntt(pcs::Ntt::kMulMod, a1, b0, a1, K, q0);
  l.w.ntt(pcs::Ntt::kMulAccMod, a0, b1, a1, K, q0);
  l.w.ntt(pcs::Ntt::kMulMod, a0, b0, a0, K, q0);
  // Degree d > 1 inputs: (d+1)^2 products into 2d+1 components; the components above c_2
  // accumulate in the d2 buffer (a stand-in: same work and dependencies, one buffer).
  const uint32_t d = std::max<uint32_t>(op.ct_degree, 1);
  const uint32_t extra_muls = (d + 1) * (d + 1) - 4, extra_components = 2 * d + 1 - 3;
  for (uint32_t i = 0; i < extra_muls; ++i)
    l.w.ntt(i < extra_components ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod, a1, b1, m.d2, K, q0);
}

void lower_rescale(OpLowerer& l, const FheOp& op) {
  // Drops q_l: INTT of the last limb, BConv 1 -> l limbs, NTT, subtract, multiply by q_l^-1.
  if (op.level < 1) throw Error("rescale at level 0: no limb left to drop");
  const LimbCtx c = limb_ctx(op, l.cfg.ntt.storage_bits);
  const FheMemoryPlan& m = l.mem;
  const uint32_t L = op.level, q0 = l.chain_off(0);
  for (int k = 0; k < 2; ++k)
    l.w.ntt(pcs::Ntt::kInverse, l.off(l.poly(m.cur, k), L, c), 0, l.off(m.tmp[k], L, c), 1, l.chain_off(L));
  for (int k = 0; k < 2; ++k) l.bconv(l.off(m.tmp[k], L, c), {L, L + 1}, m.tmp[k], {0, L});
  for (int k = 0; k < 2; ++k) l.w.ntt(pcs::Ntt::kForward, m.tmp[k], 0, m.tmp[k], L, q0);
  for (int k = 0; k < 2; ++k) l.w.ntt(pcs::Ntt::kSubMod, l.poly(m.cur, k), m.tmp[k], m.tmp[k], L, q0);
  for (int k = 0; k < 2; ++k) l.w.ntt(pcs::Ntt::kMulMod, m.tmp[k], m.konst, l.poly(m.cur, k), L, q0);
}

void lower_mod_raise(OpLowerer& l, const FheOp& op) {
  // Level-l residues raised to the whole Q chain: INTT K limbs, BConv K -> T, NTT the T new limbs.
  const LimbCtx c = limb_ctx(op, l.cfg.ntt.storage_bits);
  const FheMemoryPlan& m = l.mem;
  const uint32_t T = op.max_level + 1 - c.K, q0 = l.chain_off(0);
  if (T == 0) return;
  for (int k = 0; k < 2; ++k) l.w.ntt(pcs::Ntt::kInverse, l.poly(m.cur, k), 0, m.tmp[k], c.K, q0);
  for (int k = 0; k < 2; ++k)
    l.bconv(m.tmp[k], {0, c.K}, l.off(l.poly(m.cur, k), c.K, c), {c.K, op.max_level + 1});
  for (int k = 0; k < 2; ++k) {
    const uint64_t p = l.off(l.poly(m.cur, k), c.K, c);
    l.w.ntt(pcs::Ntt::kForward, p, 0, p, T, l.chain_off(c.K));
  }
}

void lower_encode(OpLowerer& l, const FheOp& op) {
  l.w.ntt(pcs::Ntt::kForward, l.mem.opb, 0, l.mem.opb, op.level + 1, l.chain_off(0));
}

}  // namespace photon::fhe

// Hybrid key switching (Han and Ki, CT-RSA 2020; ARK, MICRO 2022; SHARP, ISCA 2023): ModUp,
// the inner product with the key, ModDown, and the ops built on it (docs/fhe.md).
#include <algorithm>
#include <functional>

#include "base/error.h"

#include "workloads/fhe/fhe_lowering.h"
#include "workloads/fhe/fhe_lowering_internal.h"
#include "workloads/fhe/fhe_op_traits.h"

namespace photon::fhe {

namespace {

/// Drops empty ranges and merges adjacent ones (input sorted).
std::vector<Range> merged(std::initializer_list<Range> in) {
  std::vector<Range> out;
  for (const Range& r : in) {
    if (r.hi <= r.lo) continue;
    if (!out.empty() && out.back().hi == r.lo)
      out.back().hi = r.hi;
    else
      out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<Range> OpLowerer::targets(const LimbCtx& c, uint32_t js, uint32_t je) const {
  return merged({{0, js}, {je, c.K}, {mem.q_slots, mem.q_slots + c.A}});
}

std::vector<KeyAcquisition> key_acquisitions(const std::vector<FheOp>& ops, const RunConfig& cfg) {
  std::vector<KeyAcquisition> out;
  std::function<void(const FheOp&, size_t)> add = [&](const FheOp& op, size_t index) {
    const FheOpTraits& t = fhe_op_traits(op.kind);
    if (t.keys == KeyUse::SubOps) {
      for (const FheOp& s : t.expand(op, cfg.fhe)) add(s, index);
      return;
    }
    for (const KeyId& k : fhe_op_keys(op, cfg.fhe)) out.push_back({k, limb_ctx(op, cfg.ntt.storage_bits), index});
  };
  for (size_t i = 0; i < ops.size(); ++i) add(ops[i], i);
  return out;
}

int OpLowerer::acquire_key(const LimbCtx& c, const KeyId& id) {
  if (ahead_) {  // the previous inner product acquired this use already
    if (!(uses_[next_use_].key == id)) throw Error("FHE lowering: key acquisitions out of the planned order");
    ahead_ = false;
    ++next_use_;
    return ahead_slot_;
  }
  if (next_use_ < uses_.size()) ++next_use_;
  return load_key(c, id);
}

int OpLowerer::load_key(const LimbCtx& c, const KeyId& id) {
  const FheKeyCache::Grant g = keys.acquire(id, c.K);
  if (!g.load) return g.slot;
  if (g.reload) {  // reloading a slot: wait until the NTT queue is done reading it
    w.sync(pcs::Opcode::Signal, pcs::Queue::Ntt, kSemSlotFree);
    w.sync(pcs::Opcode::Wait, pcs::Queue::Dma, kSemSlotFree);
  }
  // HBM holds the key compactly (2*dnum polys of L+1+alpha limbs, digit-major); the slot uses chain
  // slots (Q limbs at 0.., P limbs at q_slots..). A whole key is one copy when L = Lmax, else a Q
  // and a P copy; a key switch at level l < L loads only what it reads: the polys of its beta
  // digits, Q limbs 0..K-1 and the P limbs (a later use at a higher level reloads the slot).
  const uint64_t hbm = cfg.noc.hbm_base + mem.key_hbm_base + g.hbm_offset;
  const uint64_t spm = cfg.noc.scratchpad_base + mem.key_slot(g.slot);
  const uint64_t key_limbs = id.max_level + 1ull + id.alpha, q_limbs = id.max_level + 1ull;
  const uint64_t slot_stride = mem.ext_slots * c.lb;
  const bool whole = g.q_limbs == q_limbs;
  const uint32_t polys = whole ? 2 * id.dnum : 2 * c.beta;
  if (whole && q_limbs == mem.q_slots) {
    w.dma(hbm, spm, key_limbs * c.lb, polys, key_limbs * c.lb, slot_stride, ByteClass::Keys);
  } else {
    w.dma(hbm, spm, g.q_limbs * c.lb, polys, key_limbs * c.lb, slot_stride, ByteClass::Keys);
    w.dma(hbm + q_limbs * c.lb, spm + mem.q_slots * c.lb, id.alpha * c.lb, polys, key_limbs * c.lb,
          slot_stride, ByteClass::Keys);
  }
  w.sync(pcs::Opcode::Signal, pcs::Queue::Dma, kSemKeyReady);
  return g.slot;
}

void OpLowerer::wait_key(int slot) {
  if (keys.take_pending(slot)) w.sync(pcs::Opcode::Wait, pcs::Queue::Ntt, kSemKeyReady);
}

void OpLowerer::mod_up(const LimbCtx& c, uint64_t src) {
  // INTT per digit first, so the BConv of digit 0 starts after d_0 limbs, not K (the NTT unit
  // then runs the other digits' INTTs while BConv works).
  for (uint32_t j = 0; j < c.beta; ++j) {
    const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
    w.ntt(pcs::Ntt::kInverse, off(src, js, c), 0, off(mem.coeff, js, c), je - js, chain_off(js));
  }
  for (uint32_t j = 0; j < c.beta; ++j) {
    const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
    const auto tg = targets(c, js, je);
    for (const Range& r : tg) bconv(off(mem.coeff, js, c), {js, je}, off(mem.ext[j], r.lo, c), r);
    for (const Range& r : tg)
      w.ntt(pcs::Ntt::kForward, off(mem.ext[j], r.lo, c), 0, off(mem.ext[j], r.lo, c), r.hi - r.lo,
            chain_off(r.lo));
  }
}

void OpLowerer::inner_product(const LimbCtx& c, const std::vector<uint64_t>& ext, uint64_t own, int slot) {
  wait_key(slot);
  // The next key use is acquired once this inner product has read its slot, so that a load
  // overlaps this key switch's ModDown and what comes before the next key switch (SHARP and ARK
  // load the next evaluation key while the current one finishes) instead of waiting for them.
  // Loading into another slot before this inner product was measured slower (bootstrapping at
  // N = 2^16, L = 34, alpha = 12, 1 GiB: 9.71 against 9.61 ms); so was reloading this slot digit
  // by digit as each digit is read (12 % slower on DaCapo at 1 GiB: its DMA waits hold the
  // firmware). Its DMAs carry the row of the op that uses the key.
  for (uint32_t j = 0; j < c.beta; ++j) {
    const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
    const uint8_t op = j == 0 ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod;
    for (int k = 0; k < 2; ++k) {
      // Key polynomial (j, k) of the slot; own digit from the NTT-form input, the other limbs
      // from the digit's ModUp.
      const uint64_t key = mem.key_slot(slot) + uint64_t(2 * j + k) * mem.ext_slots * c.lb;
      w.ntt(op, off(own, js, c), off(key, js, c), off(mem.acc[k], js, c), je - js, chain_off(js));
      for (const Range& r : targets(c, js, je))
        w.ntt(op, off(ext[j], r.lo, c), off(key, r.lo, c), off(mem.acc[k], r.lo, c), r.hi - r.lo,
              chain_off(r.lo));
    }
  }
  if (!ahead_ && next_use_ < uses_.size()) {
    const KeyAcquisition& u = uses_[next_use_];
    const uint32_t tag = w.tag();
    if (tag != pcs::kNoTag) w.set_tag(tag + uint32_t(u.op - op_));
    ahead_slot_ = load_key(u.c, u.key);
    ahead_ = true;
    w.set_tag(tag);
  }
}

void OpLowerer::mod_down(const LimbCtx& c, const Finish& finish) {
  // INTT of both P parts, then BConv P -> Q and NTT in chunks of alpha limbs, so the NTT of one
  // chunk overlaps the BConv of the next and the element-wise tail overlaps the NTT (SHARP and
  // Homulator pipeline ModDown at limb granularity).
  const uint32_t q = mem.q_slots;
  for (int k = 0; k < 2; ++k) {
    const uint64_t p = off(mem.acc[k], q, c);
    w.ntt(pcs::Ntt::kInverse, p, 0, p, c.A, chain_off(q));
  }
  std::vector<Range> chunks;
  for (uint32_t lo = 0; lo < c.K; lo += c.A) chunks.push_back({lo, std::min(lo + c.A, c.K)});
  for (int k = 0; k < 2; ++k)
    for (const Range& r : chunks) bconv(off(mem.acc[k], q, c), {q, q + c.A}, off(mem.tmp[k], r.lo, c), r);
  for (int k = 0; k < 2; ++k)
    for (const Range& r : chunks) {
      const uint64_t t = off(mem.tmp[k], r.lo, c);
      w.ntt(pcs::Ntt::kForward, t, 0, t, r.hi - r.lo, chain_off(r.lo));
      w.ntt(pcs::Ntt::kSubMod, off(mem.acc[k], r.lo, c), t, t, r.hi - r.lo, chain_off(r.lo));
      finish(k, r);
    }
}

void OpLowerer::key_switch(const LimbCtx& c, uint64_t src, int slot, const Finish& finish) {
  mod_up(c, src);
  inner_product(c, mem.ext, src, slot);
  mod_down(c, finish);
}

OpLowerer::Finish OpLowerer::finish_add_both(const LimbCtx& c) {
  // c_k += ks_k * P^-1
  return [this, c](int k, Range r) {
    const uint64_t t = off(mem.tmp[k], r.lo, c), o = off(poly(mem.cur, k), r.lo, c);
    w.ntt(pcs::Ntt::kMulMod, t, off(mem.konst, r.lo, c), t, r.hi - r.lo, chain_off(r.lo));
    w.ntt(pcs::Ntt::kAddMod, o, t, o, r.hi - r.lo, chain_off(r.lo));
  };
}

OpLowerer::Finish OpLowerer::finish_rotation(const LimbCtx& c, uint64_t base0, uint64_t out_ct) {
  // (base0 + ks_0 * P^-1, ks_1 * P^-1)
  return [this, c, base0, out_ct](int k, Range r) {
    const uint64_t t = off(mem.tmp[k], r.lo, c), o = off(poly(out_ct, k), r.lo, c);
    if (k == 0) {
      w.ntt(pcs::Ntt::kMulMod, t, off(mem.konst, r.lo, c), t, r.hi - r.lo, chain_off(r.lo));
      w.ntt(pcs::Ntt::kAddMod, off(base0, r.lo, c), t, o, r.hi - r.lo, chain_off(r.lo));
    } else {
      w.ntt(pcs::Ntt::kMulMod, t, off(mem.konst, r.lo, c), o, r.hi - r.lo, chain_off(r.lo));
    }
  };
}

void OpLowerer::rotate(const LimbCtx& c, const KeyId& key, uint64_t out_ct) {
  const int slot = acquire_key(c, key);
  const uint32_t g = key.galois | pcs::Ntt::kGaloisNttDomain;
  w.ntt(pcs::Ntt::kAutomorph, poly(mem.cur, 0), 0, mem.rot[0], c.K, chain_off(0), 0, g);
  w.ntt(pcs::Ntt::kAutomorph, poly(mem.cur, 1), 0, mem.rot[1], c.K, chain_off(0), 0, g);
  key_switch(c, mem.rot[1], slot, finish_rotation(c, mem.rot[0], out_ct));
}

void lower_relinearize(OpLowerer& l, const FheOp& op) {
  // Components c_2 .. c_d (stand-in: the d2 buffer) each key-switched with the key of s^k.
  const LimbCtx c = limb_ctx(op, l.cfg.ntt.storage_bits);
  for (const KeyId& key : fhe_op_keys(op, l.fc)) {
    const int slot = l.acquire_key(c, key);
    l.key_switch(c, l.mem.d2, slot, l.finish_add_both(c));
  }
}

void lower_key_switch(OpLowerer& l, const FheOp& op) {
  const LimbCtx c = limb_ctx(op, l.cfg.ntt.storage_bits);
  const int slot = l.acquire_key(c, fhe_op_keys(op, l.fc).at(0));
  l.key_switch(c, l.poly(l.mem.cur, 1), slot, l.finish_rotation(c, l.poly(l.mem.cur, 0), l.mem.cur));
}

void lower_rotate(OpLowerer& l, const FheOp& op) {
  // Rotate and Conjugate; an identity rotation reads no key: the result is the input, in cur.
  const LimbCtx c = limb_ctx(op, l.cfg.ntt.storage_bits);
  for (const KeyId& key : fhe_op_keys(op, l.fc)) l.rotate(c, key, l.mem.cur);
}

void lower_hoisted_rotate(OpLowerer& l, const FheOp& op) {
  // One ModUp of c1; per rotation the automorphism permutes c0, c1 (own digits) and the
  // raised digits (Halevi and Shoup, CRYPTO 2018; Bossuat et al., Eurocrypt 2021).
  const LimbCtx c = limb_ctx(op, l.cfg.ntt.storage_bits);
  const FheMemoryPlan& m = l.mem;
  const uint32_t q0 = l.chain_off(0);
  l.mod_up(c, l.poly(m.cur, 1));
  for (const KeyId& key : fhe_op_keys(op, l.fc)) {
    const int slot = l.acquire_key(c, key);
    const uint32_t g = key.galois | pcs::Ntt::kGaloisNttDomain;
    l.w.ntt(pcs::Ntt::kAutomorph, l.poly(m.cur, 0), 0, m.rot[0], c.K, q0, 0, g);
    l.w.ntt(pcs::Ntt::kAutomorph, l.poly(m.cur, 1), 0, m.rot[1], c.K, q0, 0, g);
    for (uint32_t j = 0; j < c.beta; ++j) {
      const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
      for (const Range& r : l.targets(c, js, je))
        l.w.ntt(pcs::Ntt::kAutomorph, l.off(m.ext[j], r.lo, c), 0, l.off(m.rext[j], r.lo, c), r.hi - r.lo,
                l.chain_off(r.lo), 0, g);
    }
    l.inner_product(c, m.rext, m.rot[1], slot);
    l.mod_down(c, l.finish_rotation(c, m.rot[0], m.opb));
  }
}

}  // namespace photon::fhe

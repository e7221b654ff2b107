// lower_fhe: FheProgram -> pcs::Program (NTT-unit and DMA commands). See fhe_lowering.h and
// docs/fhe.md for the expansion; count_fhe_op() (fhe_counts.cpp) is its closed form.
#include "workloads/fhe/fhe_lowering.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "base/error.h"
#include "base/modular.h"

namespace photon {

namespace {

struct Range {
  uint32_t lo, hi;
};  // chain slots [lo, hi)

/// Scratchpad bytes reserved at offset 0 for moduli tables (the chain, then BConv tables).
constexpr uint64_t kTablesBytes = 64 * 1024;

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

/// An evaluation key: its Galois element (0: relinearization, 2: generic key switch) and the
/// parameters that fix its shape.
struct KeyId {
  uint32_t galois, log_n, max_level, alpha, dnum;
  bool operator<(const KeyId& o) const {
    return std::tie(galois, log_n, max_level, alpha, dnum) <
           std::tie(o.galois, o.log_n, o.max_level, o.alpha, o.dnum);
  }
  bool operator==(const KeyId& o) const { return !(*this < o) && !(o < *this); }
};

const char* kind_string(FheOpKind k) {
  switch (k) {
    case FheOpKind::Add: return "hadd";
    case FheOpKind::Sub: return "hsub";
    case FheOpKind::Negate: return "hneg";
    case FheOpKind::AddPlain: return "padd";
    case FheOpKind::SubPlain: return "psub";
    case FheOpKind::MulPlain: return "pmult";
    case FheOpKind::MulScalar: return "cmult";
    case FheOpKind::Mul: return "hmult";
    case FheOpKind::Relinearize: return "relin";
    case FheOpKind::Rescale: return "rescale";
    case FheOpKind::LevelReduce: return "level_reduce";
    case FheOpKind::Rotate: return "hrot";
    case FheOpKind::Conjugate: return "conj";
    case FheOpKind::HoistedRotate: return "hrot_hoisted";
    case FheOpKind::KeySwitch: return "keyswitch";
    case FheOpKind::Bootstrap: return "bootstrap";
    case FheOpKind::Encode: return "encode";
    case FheOpKind::Encrypt: return "encrypt";
    case FheOpKind::Decrypt: return "decrypt";
    case FheOpKind::ModRaise: return "mod_raise";
  }
  return "?";
}

bool uses_key(FheOpKind k) {
  return k == FheOpKind::Relinearize || k == FheOpKind::Rotate || k == FheOpKind::Conjugate ||
         k == FheOpKind::KeySwitch || k == FheOpKind::HoistedRotate || k == FheOpKind::Bootstrap;
}

/// uses_key() of the op, except identity rotations (no key switch).
bool needs_key(const FheOp& op) { return uses_key(op.kind) && !fhe_rotation_is_identity(op); }

class Lowerer {
 public:
  Lowerer(const FheProgram& p, const RunConfig& cfg) : src_(p), cfg_(cfg), fc_(cfg.fhe) {}
  pcs::Program run();

 private:
  // Per-op parameters.
  struct Ctx {
    uint32_t log_n, K, L, A, dnum, beta;
    uint64_t lb;  // bytes of one limb (N words)
  };
  Ctx ctx(const FheOp& op) const;
  void plan(const std::vector<FheOp>& ops);
  void lower(const FheOp& op);

  // Emitters.
  void ntt(uint8_t op, uint64_t src0, uint64_t src1, uint64_t dst, uint32_t limbs, uint32_t moduli,
           uint32_t out_limbs = 0, uint32_t galois = 1);
  void bconv(uint64_t src, Range from, uint64_t dst, Range to);
  void sync(pcs::Opcode op, pcs::Queue q, uint32_t sem);
  void dma(uint64_t src, uint64_t dst, uint64_t inner, uint32_t n1, uint64_t src_stride, uint64_t dst_stride);
  uint32_t table(const std::vector<uint64_t>& moduli);
  uint32_t chain_off(uint32_t slot) const { return 8 * slot; }
  uint64_t off(uint64_t buf, uint32_t slot, const Ctx& c) const { return buf + uint64_t(slot) * c.lb; }
  uint64_t poly(uint64_t ct, int k) const { return ct + uint64_t(k) * q_slots_ * lb_max_; }

  // Key switching.
  int acquire_key(const Ctx& c, const KeyId& id);
  void wait_key(int slot);
  uint64_t key_poly(int slot, uint32_t j, int k, const Ctx& c) const {
    return keys_base_ + uint64_t(slot) * slot_bytes_ + uint64_t(2 * j + k) * ext_slots_ * c.lb;
  }
  std::vector<Range> targets(const Ctx& c, uint32_t js, uint32_t je) const {
    return merged({{0, js}, {je, c.K}, {q_slots_, q_slots_ + c.A}});
  }
  void mod_up(const Ctx& c, uint64_t src);
  void inner_product(const Ctx& c, const std::vector<uint64_t>& ext, uint64_t own, int slot);
  /// Emits the element-wise ops that turn tmp_[k] limbs r (acc_Q - ModDown correction) into results.
  using Finish = std::function<void(int k, Range r)>;
  void mod_down(const Ctx& c, const Finish& finish);  // tmp_[k] = acc_Q - NTT(BConv(INTT(acc_P)))
  void key_switch(const Ctx& c, uint64_t src, int slot, const Finish& finish);
  Finish finish_add_both(const Ctx& c);
  Finish finish_rotation(const Ctx& c, uint64_t base0, uint64_t out_ct);
  void rotate(const Ctx& c, uint32_t galois, const KeyId& key, uint64_t out_ct);

  const FheProgram& src_;
  const RunConfig& cfg_;
  const FheConfig& fc_;
  pcs::Program out_;
  uint32_t tag_ = pcs::kNoTag;
  uint32_t log_n_cur_ = 0;

  uint32_t log_n_max_ = 0, q_slots_ = 0, a_max_ = 0, dnum_max_ = 0, ext_slots_ = 0;
  uint64_t lb_max_ = 0;
  std::vector<uint64_t> chain_;  // q_0..q_Lmax, p_0..p_{amax-1}
  std::vector<uint64_t> blob_;   // moduli tables (chain first)
  std::map<std::vector<uint64_t>, uint32_t> tables_;
  size_t tables_dma_ = 0;  // index of the DMA command that loads the tables

  uint64_t cur_ = 0, opb_ = 0, d2_ = 0, rot0_ = 0, rot1_ = 0, konst_ = 0, coeff_ = 0;
  uint64_t tmp_[2] = {0, 0}, acc_[2] = {0, 0};
  std::vector<uint64_t> ext_, rext_;
  uint64_t keys_base_ = 0, slot_bytes_ = 0;
  uint32_t slots_ = 0;

  std::vector<std::optional<KeyId>> slot_key_;
  std::vector<uint64_t> slot_used_;
  std::vector<bool> slot_pending_;
  uint64_t use_clock_ = 0;
  std::map<KeyId, uint64_t> key_hbm_;
  uint64_t next_key_hbm_ = 0;
  uint64_t key_loads_ = 0;
  uint64_t key_hbm_base_ = 0;      // HBM offset of the key region
  uint64_t key_region_bytes_ = 0;  // HBM bytes for keys
  uint64_t aliased_keys_ = 0;      // keys placed over earlier keys' HBM addresses (HBM full)
};

Lowerer::Ctx Lowerer::ctx(const FheOp& op) const {
  Ctx c;
  c.log_n = op.log_n;
  c.K = op.level + 1;
  c.L = op.max_level;
  c.A = op.alpha;
  c.dnum = op.dnum;
  c.beta = fhe_digits(op);
  c.lb = (uint64_t(1) << op.log_n) * 8;
  return c;
}

void Lowerer::ntt(uint8_t op, uint64_t src0, uint64_t src1, uint64_t dst, uint32_t limbs, uint32_t moduli,
                  uint32_t out_limbs, uint32_t galois) {
  pcs::Ntt n;
  n.op = op;
  n.log_n = uint8_t(log_n_cur_);
  n.limbs = limbs;
  n.out_limbs = out_limbs;
  n.src0 = uint32_t(src0);
  n.src1 = uint32_t(src1);
  n.dst = uint32_t(dst);
  n.moduli = moduli;
  n.galois = galois;
  out_.commands.push_back(pcs::make_ntt(n, tag_));
}

void Lowerer::sync(pcs::Opcode op, pcs::Queue q, uint32_t sem) {
  out_.commands.push_back(op == pcs::Opcode::Signal ? pcs::make_signal(q, sem, tag_)
                                                    : pcs::make_wait(q, sem, tag_));
}

void Lowerer::dma(uint64_t src, uint64_t dst, uint64_t inner, uint32_t n1, uint64_t src_stride,
                  uint64_t dst_stride) {
  if (inner > 0xFFFFFFFFull)
    throw Error("fhe lowering: DMA row of " + std::to_string(inner) + " bytes exceeds 4 GiB");
  pcs::DmaCopy d;
  d.src = src;
  d.dst = dst;
  d.inner_bytes = uint32_t(inner);
  d.n1 = n1;
  d.src_stride1 = src_stride;
  d.dst_stride1 = dst_stride;
  out_.commands.push_back(pcs::make_dma(d, tag_));
}

uint32_t Lowerer::table(const std::vector<uint64_t>& moduli) {
  auto it = tables_.find(moduli);
  if (it != tables_.end()) return it->second;
  const uint32_t offset = uint32_t(blob_.size() * 8);
  blob_.insert(blob_.end(), moduli.begin(), moduli.end());
  if (blob_.size() * 8 > kTablesBytes)
    throw Error("fhe lowering: moduli tables exceed their " + std::to_string(kTablesBytes) + "-byte region");
  tables_.emplace(moduli, offset);
  return offset;
}

void Lowerer::bconv(uint64_t src, Range from, uint64_t dst, Range to) {
  std::vector<uint64_t> m(chain_.begin() + from.lo, chain_.begin() + from.hi);
  m.insert(m.end(), chain_.begin() + to.lo, chain_.begin() + to.hi);
  ntt(pcs::Ntt::kBConv, src, 0, dst, from.hi - from.lo, table(m), to.hi - to.lo);
}

void Lowerer::plan(const std::vector<FheOp>& ops) {
  bool any_key = false, hoisted = false;
  uint32_t l_max = 0;
  for (const FheOp& op : ops) {
    log_n_max_ = std::max(log_n_max_, op.log_n);
    l_max = std::max(l_max, op.max_level);
    a_max_ = std::max(a_max_, op.alpha);
    dnum_max_ = std::max(dnum_max_, op.dnum);
    any_key = any_key || needs_key(op);
    hoisted = hoisted || op.kind == FheOpKind::HoistedRotate;
  }
  q_slots_ = l_max + 1;
  ext_slots_ = q_slots_ + a_max_;
  lb_max_ = (uint64_t(1) << log_n_max_) * 8;
  const uint32_t bits = std::min<uint32_t>(cfg_.ntt.word_bits, 60);
  chain_ = with_error_context("ntt.word_bits",
                              [&] { return modular::generate_ntt_primes(bits, log_n_max_, ext_slots_); });
  table(chain_);

  // Scratchpad layout: tables, ciphertext and temporary buffers, then the key slots.
  uint64_t at = kTablesBytes;
  auto take = [&](uint64_t limbs) {
    uint64_t a = at;
    at += limbs * lb_max_;
    return a;
  };
  cur_ = take(2 * q_slots_);
  opb_ = take(2 * q_slots_);
  d2_ = take(q_slots_);
  rot0_ = take(q_slots_);
  rot1_ = take(q_slots_);
  konst_ = take(q_slots_);
  coeff_ = take(q_slots_);
  tmp_[0] = take(q_slots_);
  tmp_[1] = take(q_slots_);
  if (any_key) {
    acc_[0] = take(ext_slots_);
    acc_[1] = take(ext_slots_);
    for (uint32_t j = 0; j < dnum_max_; ++j) ext_.push_back(take(ext_slots_));
    if (hoisted)
      for (uint32_t j = 0; j < dnum_max_; ++j) rext_.push_back(take(ext_slots_));
  }
  keys_base_ = at;
  const uint64_t spm = std::min<uint64_t>(cfg_.scratchpad.size_kib * 1024, uint64_t(1) << 32);
  slot_bytes_ = 2ull * dnum_max_ * ext_slots_ * lb_max_;
  slots_ = any_key && spm > at ? uint32_t((spm - at) / slot_bytes_) : 0;
  if (at > spm || (any_key && slots_ == 0))
    throw Error(fmt::format(
        "scratchpad.size_kib: the FHE working set (N=2^{}, L={}, alpha={}, dnum={}) needs {:.1f} MiB of "
        "buffers{} "
        "but the usable scratchpad is {:.1f} MiB",
        log_n_max_, l_max, a_max_, dnum_max_, at / 1048576.0,
        any_key ? fmt::format(" plus one {:.1f} MiB key slot", slot_bytes_ / 1048576.0) : std::string(),
        spm / 1048576.0));
  // HBM key region: the larger gap around the command ring (tables take the first 1 MiB; the
  // ring gets 256 MiB at cpu.ring_base).
  const uint64_t hbm = cfg_.hbm.capacity_bytes();
  const uint64_t ring =
      cfg_.cpu.ring_base >= cfg_.noc.hbm_base ? std::min(cfg_.cpu.ring_base - cfg_.noc.hbm_base, hbm) : hbm;
  const uint64_t lo1 = uint64_t(1) << 20, hi1 = std::max(ring, lo1);
  const uint64_t lo2 = std::min<uint64_t>(ring + (uint64_t(256) << 20), hbm);
  if (hi1 - lo1 >= hbm - lo2) {
    key_hbm_base_ = lo1;
    key_region_bytes_ = hi1 - lo1;
  } else {
    key_hbm_base_ = lo2;
    key_region_bytes_ = hbm - lo2;
  }
  slot_key_.assign(slots_, std::nullopt);
  slot_used_.assign(slots_, 0);
  slot_pending_.assign(slots_, false);

  if (fc_.keys_on_chip) {  // warm key cache: the first keys used, as many as fit
    uint32_t s = 0;
    auto add = [&](const KeyId& k) {
      for (uint32_t i = 0; i < s; ++i)
        if (*slot_key_[i] == k) return;
      if (s < slots_) {
        slot_key_[s] = k;
        slot_used_[s] = 0;
        ++s;
      }
    };
    for (const FheOp& op : ops) {
      auto add_op = [&](const FheOp& o) {
        const KeyId base{0, o.log_n, o.max_level, o.alpha, o.dnum};
        KeyId k = base;
        switch (o.kind) {
          case FheOpKind::Relinearize:
            for (uint32_t d = 2; d <= std::max<uint32_t>(o.ct_degree, 2); ++d) {
              k.galois = 4 * d - 8;
              add(k);
            }
            break;
          case FheOpKind::KeySwitch:
            k.galois = 2;
            add(k);
            break;
          case FheOpKind::Rotate:
            if (!fhe_rotation_is_identity(o)) {
              k.galois = rotation_galois(o.rotation, o.log_n);
              add(k);
            }
            break;
          case FheOpKind::Conjugate:
            k.galois = uint32_t((uint64_t(2) << o.log_n) - 1);
            add(k);
            break;
          case FheOpKind::HoistedRotate:
            for (uint32_t i = 0; i < o.count; ++i) {
              k.galois = rotation_galois(o.rotation + i, o.log_n);
              add(k);
            }
            break;
          default: break;
        }
      };
      if (op.kind == FheOpKind::Bootstrap)
        for (const FheOp& s2 : bootstrap_sequence(op, fc_)) add_op(s2);
      else
        add_op(op);
    }
  }
}

int Lowerer::acquire_key(const Ctx& c, const KeyId& id) {
  ++use_clock_;
  for (uint32_t s = 0; s < slots_; ++s)
    if (slot_key_[s] && *slot_key_[s] == id) {
      slot_used_[s] = use_clock_;
      return int(s);
    }
  uint32_t victim = slots_;
  for (uint32_t s = 0; s < slots_ && victim == slots_; ++s)
    if (!slot_key_[s]) victim = s;
  if (victim == slots_) {  // least recently used
    victim = 0;
    for (uint32_t s = 1; s < slots_; ++s)
      if (slot_used_[s] < slot_used_[victim]) victim = s;
  }
  if (slot_key_[victim]) {  // reloading a slot: wait until the NTT queue is done reading it
    sync(pcs::Opcode::Signal, pcs::Queue::Ntt, kSemSlotFree);
    sync(pcs::Opcode::Wait, pcs::Queue::Dma, kSemSlotFree);
  }
  auto it = key_hbm_.find(id);
  if (it == key_hbm_.end()) {
    FheOp shape;
    shape.log_n = id.log_n;
    shape.max_level = id.max_level;
    shape.alpha = id.alpha;
    shape.dnum = id.dnum;
    const uint64_t bytes = (fhe_key_bytes(shape, fc_) + 4095) / 4096 * 4096;
    if (next_key_hbm_ + bytes > key_region_bytes_) {  // HBM full: later keys share addresses
      next_key_hbm_ = 0;
      ++aliased_keys_;
    }
    if (bytes > key_region_bytes_)
      throw Error(
          fmt::format("hbm: a {:.1f} MiB evaluation key does not fit in the {:.1f} MiB of HBM free for keys",
                      bytes / 1048576.0, key_region_bytes_ / 1048576.0));
    it = key_hbm_.emplace(id, next_key_hbm_).first;
    next_key_hbm_ += bytes;
  }
  // HBM holds the key compactly (2*dnum polys of L+1+alpha limbs); the slot uses chain slots
  // (Q limbs at 0.., P limbs at q_slots..), so Q and P parts are two strided copies unless L = Lmax.
  const uint64_t hbm = cfg_.noc.hbm_base + key_hbm_base_ + it->second;
  const uint64_t spm = cfg_.noc.scratchpad_base + keys_base_ + uint64_t(victim) * slot_bytes_;
  const uint64_t key_limbs = id.max_level + 1ull + id.alpha;
  const uint32_t polys = 2 * id.dnum;
  if (id.max_level + 1 == q_slots_) {
    dma(hbm, spm, key_limbs * c.lb, polys, key_limbs * c.lb, ext_slots_ * c.lb);
  } else {
    dma(hbm, spm, (id.max_level + 1ull) * c.lb, polys, key_limbs * c.lb, ext_slots_ * c.lb);
    dma(hbm + (id.max_level + 1ull) * c.lb, spm + q_slots_ * c.lb, id.alpha * c.lb, polys, key_limbs * c.lb,
        ext_slots_ * c.lb);
  }
  sync(pcs::Opcode::Signal, pcs::Queue::Dma, kSemKeyReady);
  slot_key_[victim] = id;
  slot_used_[victim] = use_clock_;
  slot_pending_[victim] = true;
  ++key_loads_;
  return int(victim);
}

void Lowerer::wait_key(int slot) {
  if (!slot_pending_[slot]) return;
  sync(pcs::Opcode::Wait, pcs::Queue::Ntt, kSemKeyReady);
  slot_pending_[slot] = false;
}

void Lowerer::mod_up(const Ctx& c, uint64_t src) {
  // INTT per digit first, so the BConv of digit 0 starts after d_0 limbs, not K (the NTT unit
  // then runs the other digits' INTTs while BConv works).
  for (uint32_t j = 0; j < c.beta; ++j) {
    const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
    ntt(pcs::Ntt::kInverse, off(src, js, c), 0, off(coeff_, js, c), je - js, chain_off(js));
  }
  for (uint32_t j = 0; j < c.beta; ++j) {
    const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
    const auto tg = targets(c, js, je);
    for (const Range& r : tg) bconv(off(coeff_, js, c), {js, je}, off(ext_[j], r.lo, c), r);
    for (const Range& r : tg)
      ntt(pcs::Ntt::kForward, off(ext_[j], r.lo, c), 0, off(ext_[j], r.lo, c), r.hi - r.lo, chain_off(r.lo));
  }
}

void Lowerer::inner_product(const Ctx& c, const std::vector<uint64_t>& ext, uint64_t own, int slot) {
  wait_key(slot);
  for (uint32_t j = 0; j < c.beta; ++j) {
    const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
    const uint8_t op = j == 0 ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod;
    for (int k = 0; k < 2; ++k) {
      // Own digit from the NTT-form input, the other limbs from the digit's ModUp.
      ntt(op, off(own, js, c), off(key_poly(slot, j, k, c), js, c), off(acc_[k], js, c), je - js,
          chain_off(js));
      for (const Range& r : targets(c, js, je))
        ntt(op, off(ext[j], r.lo, c), off(key_poly(slot, j, k, c), r.lo, c), off(acc_[k], r.lo, c),
            r.hi - r.lo, chain_off(r.lo));
    }
  }
}

void Lowerer::mod_down(const Ctx& c, const Finish& finish) {
  // INTT of both P parts, then BConv P -> Q and NTT in chunks of alpha limbs, so the NTT of one
  // chunk overlaps the BConv of the next and the element-wise tail overlaps the NTT (SHARP and
  // Homulator pipeline ModDown at limb granularity).
  for (int k = 0; k < 2; ++k) {
    const uint64_t p = off(acc_[k], q_slots_, c);
    ntt(pcs::Ntt::kInverse, p, 0, p, c.A, chain_off(q_slots_));
  }
  std::vector<Range> chunks;
  for (uint32_t lo = 0; lo < c.K; lo += c.A) chunks.push_back({lo, std::min(lo + c.A, c.K)});
  for (int k = 0; k < 2; ++k)
    for (const Range& r : chunks)
      bconv(off(acc_[k], q_slots_, c), {q_slots_, q_slots_ + c.A}, off(tmp_[k], r.lo, c), r);
  for (int k = 0; k < 2; ++k)
    for (const Range& r : chunks) {
      const uint64_t t = off(tmp_[k], r.lo, c);
      ntt(pcs::Ntt::kForward, t, 0, t, r.hi - r.lo, chain_off(r.lo));
      ntt(pcs::Ntt::kSubMod, off(acc_[k], r.lo, c), t, t, r.hi - r.lo, chain_off(r.lo));
      finish(k, r);
    }
}

void Lowerer::key_switch(const Ctx& c, uint64_t src, int slot, const Finish& finish) {
  mod_up(c, src);
  inner_product(c, ext_, src, slot);
  mod_down(c, finish);
}

Lowerer::Finish Lowerer::finish_add_both(const Ctx& c) {
  // c_k += ks_k * P^-1
  return [this, c](int k, Range r) {
    const uint64_t t = off(tmp_[k], r.lo, c), o = off(poly(cur_, k), r.lo, c);
    ntt(pcs::Ntt::kMulMod, t, off(konst_, r.lo, c), t, r.hi - r.lo, chain_off(r.lo));
    ntt(pcs::Ntt::kAddMod, o, t, o, r.hi - r.lo, chain_off(r.lo));
  };
}

Lowerer::Finish Lowerer::finish_rotation(const Ctx& c, uint64_t base0, uint64_t out_ct) {
  // (base0 + ks_0 * P^-1, ks_1 * P^-1)
  return [this, c, base0, out_ct](int k, Range r) {
    const uint64_t t = off(tmp_[k], r.lo, c), o = off(poly(out_ct, k), r.lo, c);
    if (k == 0) {
      ntt(pcs::Ntt::kMulMod, t, off(konst_, r.lo, c), t, r.hi - r.lo, chain_off(r.lo));
      ntt(pcs::Ntt::kAddMod, off(base0, r.lo, c), t, o, r.hi - r.lo, chain_off(r.lo));
    } else {
      ntt(pcs::Ntt::kMulMod, t, off(konst_, r.lo, c), o, r.hi - r.lo, chain_off(r.lo));
    }
  };
}

void Lowerer::rotate(const Ctx& c, uint32_t galois, const KeyId& key, uint64_t out_ct) {
  const int slot = acquire_key(c, key);
  const uint32_t g = galois | pcs::Ntt::kGaloisNttDomain;
  ntt(pcs::Ntt::kAutomorph, poly(cur_, 0), 0, rot0_, c.K, chain_off(0), 0, g);
  ntt(pcs::Ntt::kAutomorph, poly(cur_, 1), 0, rot1_, c.K, chain_off(0), 0, g);
  key_switch(c, rot1_, slot, finish_rotation(c, rot0_, out_ct));
}

void Lowerer::lower(const FheOp& op) {
  const Ctx c = ctx(op);
  log_n_cur_ = op.log_n;
  const uint32_t q0 = chain_off(0);
  auto both = [&](uint8_t o, uint64_t a, uint64_t b, uint64_t d, uint64_t a_step, uint64_t b_step,
                  uint64_t d_step) {
    for (int k = 0; k < 2; ++k) ntt(o, a + k * a_step, b + k * b_step, d + k * d_step, c.K, q0);
  };
  const uint64_t ps = uint64_t(q_slots_) * lb_max_;  // poly stride inside a ciphertext buffer
  KeyId key{0, op.log_n, op.max_level, op.alpha, op.dnum};
  switch (op.kind) {
    case FheOpKind::Add: both(pcs::Ntt::kAddMod, cur_, opb_, cur_, ps, ps, ps); break;
    case FheOpKind::Sub: both(pcs::Ntt::kSubMod, cur_, opb_, cur_, ps, ps, ps); break;
    case FheOpKind::Negate: both(pcs::Ntt::kSubMod, konst_, cur_, cur_, 0, ps, ps); break;  // 0 - c
    case FheOpKind::AddPlain: ntt(pcs::Ntt::kAddMod, cur_, opb_, cur_, c.K, q0); break;
    case FheOpKind::SubPlain: ntt(pcs::Ntt::kSubMod, cur_, opb_, cur_, c.K, q0); break;
    case FheOpKind::MulPlain: both(pcs::Ntt::kMulMod, cur_, opb_, cur_, ps, 0, ps); break;
    case FheOpKind::MulScalar: both(pcs::Ntt::kMulMod, cur_, konst_, cur_, ps, 0, ps); break;
    case FheOpKind::Mul: {  // (a0 b0, a0 b1 + a1 b0, a1 b1); the order lets c0, c1 be overwritten in place
      const uint64_t a0 = poly(cur_, 0), a1 = poly(cur_, 1), b0 = poly(opb_, 0), b1 = poly(opb_, 1);
      ntt(pcs::Ntt::kMulMod, a1, b1, d2_, c.K, q0);
      ntt(pcs::Ntt::kMulMod, a1, b0, a1, c.K, q0);
      ntt(pcs::Ntt::kMulAccMod, a0, b1, a1, c.K, q0);
      ntt(pcs::Ntt::kMulMod, a0, b0, a0, c.K, q0);
      // Degree d > 1 inputs: (d+1)^2 products into 2d+1 components; the components above c_2
      // accumulate in the d2 buffer (a stand-in: same work and dependencies, one buffer).
      const uint32_t d = std::max<uint32_t>(op.ct_degree, 1);
      const uint32_t extra_muls = (d + 1) * (d + 1) - 4, extra_components = 2 * d + 1 - 3;
      for (uint32_t i = 0; i < extra_muls; ++i)
        ntt(i < extra_components ? pcs::Ntt::kMulMod : pcs::Ntt::kMulAccMod, a1, b1, d2_, c.K, q0);
      break;
    }
    case FheOpKind::Relinearize: {
      // Components c_2 .. c_d (stand-in: the d2 buffer) each key-switched with the key of s^k.
      const uint32_t d = std::max<uint32_t>(op.ct_degree, 2);
      for (uint32_t k = 2; k <= d; ++k) {
        key.galois = 4 * k - 8;  // even: not a Galois element; s^2 -> 0
        const int slot = acquire_key(c, key);
        key_switch(c, d2_, slot, finish_add_both(c));
      }
      break;
    }
    case FheOpKind::KeySwitch: {
      key.galois = 2;
      const int slot = acquire_key(c, key);
      key_switch(c, poly(cur_, 1), slot, finish_rotation(c, poly(cur_, 0), cur_));
      break;
    }
    case FheOpKind::Rotate:
      if (fhe_rotation_is_identity(op)) break;  // the result is the input, already in cur_
      key.galois = rotation_galois(op.rotation, op.log_n);
      rotate(c, key.galois, key, cur_);
      break;
    case FheOpKind::Conjugate:
      key.galois = uint32_t((uint64_t(2) << op.log_n) - 1);
      rotate(c, key.galois, key, cur_);
      break;
    case FheOpKind::HoistedRotate: {
      // One ModUp of c1; per rotation the automorphism permutes c0, c1 (own digits) and the
      // raised digits (Halevi and Shoup, CRYPTO 2018; Bossuat et al., Eurocrypt 2021).
      mod_up(c, poly(cur_, 1));
      for (uint32_t i = 0; i < op.count; ++i) {
        key.galois = rotation_galois(op.rotation + int64_t(i), op.log_n);
        const int slot = acquire_key(c, key);
        const uint32_t g = key.galois | pcs::Ntt::kGaloisNttDomain;
        ntt(pcs::Ntt::kAutomorph, poly(cur_, 0), 0, rot0_, c.K, q0, 0, g);
        ntt(pcs::Ntt::kAutomorph, poly(cur_, 1), 0, rot1_, c.K, q0, 0, g);
        for (uint32_t j = 0; j < c.beta; ++j) {
          const uint32_t js = j * c.A, je = std::min(js + c.A, c.K);
          for (const Range& r : targets(c, js, je))
            ntt(pcs::Ntt::kAutomorph, off(ext_[j], r.lo, c), 0, off(rext_[j], r.lo, c), r.hi - r.lo,
                chain_off(r.lo), 0, g);
        }
        inner_product(c, rext_, rot1_, slot);
        mod_down(c, finish_rotation(c, rot0_, opb_));
      }
      break;
    }
    case FheOpKind::Rescale: {
      if (op.level < 1) throw Error("rescale at level 0: no limb left to drop");
      const uint32_t l = op.level;
      for (int k = 0; k < 2; ++k)
        ntt(pcs::Ntt::kInverse, off(poly(cur_, k), l, c), 0, off(tmp_[k], l, c), 1, chain_off(l));
      for (int k = 0; k < 2; ++k) bconv(off(tmp_[k], l, c), {l, l + 1}, tmp_[k], {0, l});
      for (int k = 0; k < 2; ++k) ntt(pcs::Ntt::kForward, tmp_[k], 0, tmp_[k], l, q0);
      for (int k = 0; k < 2; ++k) ntt(pcs::Ntt::kSubMod, poly(cur_, k), tmp_[k], tmp_[k], l, q0);
      for (int k = 0; k < 2; ++k) ntt(pcs::Ntt::kMulMod, tmp_[k], konst_, poly(cur_, k), l, q0);  // * q_l^-1
      break;
    }
    case FheOpKind::ModRaise: {
      const uint32_t T = op.max_level + 1 - c.K;
      if (T == 0) break;
      for (int k = 0; k < 2; ++k) ntt(pcs::Ntt::kInverse, poly(cur_, k), 0, tmp_[k], c.K, q0);
      for (int k = 0; k < 2; ++k)
        bconv(tmp_[k], {0, c.K}, off(poly(cur_, k), c.K, c), {c.K, op.max_level + 1});
      for (int k = 0; k < 2; ++k) {
        const uint64_t p = off(poly(cur_, k), c.K, c);
        ntt(pcs::Ntt::kForward, p, 0, p, T, chain_off(c.K));
      }
      break;
    }
    case FheOpKind::Encode: ntt(pcs::Ntt::kForward, opb_, 0, opb_, c.K, q0); break;
    case FheOpKind::Bootstrap:
      for (const FheOp& s : bootstrap_sequence(op, fc_)) lower(s);
      break;
    case FheOpKind::LevelReduce:
    case FheOpKind::Encrypt:
    case FheOpKind::Decrypt: break;
  }
}

/// Checks the op's parameters; fills dnum when the program leaves it 0.
FheOp checked(FheOp op, const FheConfig& fc) {
  if (op.log_n < 1 || op.log_n > 17)
    throw Error("ring degree 2^" + std::to_string(op.log_n) + " outside [2^1, 2^17]");
  if (op.level > op.max_level)
    throw Error("level " + std::to_string(op.level) + " above max_level " + std::to_string(op.max_level));
  if (op.alpha < 1) throw Error("alpha must be at least 1");
  if (op.max_level + 1 + op.alpha > 256) throw Error("L+1+alpha above 256 limbs");
  if (op.dnum == 0) op.dnum = fc.dnum ? fc.dnum : (op.max_level + op.alpha) / op.alpha;
  if (uses_key(op.kind) && uint64_t(op.dnum) * op.alpha < op.max_level + 1ull)
    throw Error("dnum " + std::to_string(op.dnum) + " * alpha " + std::to_string(op.alpha) +
                " does not cover the L+1 = " + std::to_string(op.max_level + 1) + " Q limbs");
  if (op.kind == FheOpKind::HoistedRotate && op.count < 1) throw Error("hoisted rotation count 0");
  if ((op.kind == FheOpKind::Mul || op.kind == FheOpKind::Relinearize) && op.ct_degree > 8)
    throw Error("ciphertext degree " + std::to_string(op.ct_degree) + " above 8");
  if (op.kind == FheOpKind::Bootstrap) op = bootstrap_chain(op, fc);
  return op;
}

pcs::Program Lowerer::run() {
  std::vector<FheOp> ops;
  auto where_of = [](const FheOp& op) {
    const std::string name = op.name.empty() ? std::string(fhe_op_kind_name(op.kind)) : op.name;
    return op.location.empty() ? name : op.location + ": " + name;
  };
  for (const FheOp& op : src_.ops) {
    const std::string where = where_of(op);
    ops.push_back(with_error_context(where, [&] { return checked(op, fc_); }));
    if (ops.back().kind == FheOpKind::Bootstrap)
      with_error_context(where, [&] { return bootstrap_sequence(ops.back(), fc_); });
  }
  if (ops.empty()) {
    pcs::Command end;
    out_.commands.push_back(end);
    return std::move(out_);
  }
  plan(ops);
  if (cfg_.cpu.semaphores <= kSemSlotFree) throw Error("cpu.semaphores: the FHE lowering needs 3 semaphores");

  // Prologue: moduli tables from HBM into the scratchpad.
  tag_ = out_.add_op({"fhe.setup", "setup",
                      fmt::format("moduli tables: {} primes of {} bits, q = 1 mod 2^{}", chain_.size(),
                                  std::min<uint32_t>(cfg_.ntt.word_bits, 60), log_n_max_ + 1)});
  tables_dma_ = out_.commands.size();
  dma(cfg_.noc.hbm_base + kFheTablesHbmOffset, cfg_.noc.scratchpad_base, 8, 1, 0, 0);
  sync(pcs::Opcode::Signal, pcs::Queue::Dma, kSemInit);
  sync(pcs::Opcode::Wait, pcs::Queue::Ntt, kSemInit);

  for (size_t i = 0; i < ops.size(); ++i) {
    const FheOp& op = ops[i];
    std::string detail = fmt::format("N=2^{} l={} L={} alpha={} dnum={} beta={}", op.log_n, op.level,
                                     op.max_level, op.alpha, op.dnum, fhe_digits(op));
    if (op.kind == FheOpKind::Rotate || op.kind == FheOpKind::HoistedRotate)
      detail += fmt::format(" rotation={} galois={}", op.rotation, rotation_galois(op.rotation, op.log_n));
    if (fhe_rotation_is_identity(op))
      detail += " (identity: shift is a multiple of the N/2 slots; no key switch)";
    if (op.kind == FheOpKind::HoistedRotate) detail += fmt::format(" count={}", op.count);
    if (op.kind == FheOpKind::Bootstrap) {
      detail +=
          fmt::format(" cts_levels={} evalmod_levels={} evalmod_hmults={} stc_levels={} bsgs_rotations={}",
                      fc_.bootstrap_cts_levels, fc_.bootstrap_evalmod_levels, fc_.bootstrap_evalmod_hmults,
                      fc_.bootstrap_stc_levels, fc_.bootstrap_bsgs_rotations);
      if (op.max_level != src_.ops[i].max_level)
        detail += fmt::format(" (chain raised from L={} to the levels bootstrapping consumes)",
                              src_.ops[i].max_level);
    }
    if (op.ct_degree > 1 && (op.kind == FheOpKind::Mul || op.kind == FheOpKind::Relinearize))
      detail += fmt::format(" ct_degree={}", op.ct_degree);
    if (needs_key(op)) detail += fmt::format(" key_bytes={}", fhe_key_bytes(op, fc_));
    if (op.kind == FheOpKind::Encrypt || op.kind == FheOpKind::Decrypt) detail += " (client-side: not run)";
    tag_ = out_.add_op(
        {op.name.empty() ? std::string(fhe_op_kind_name(op.kind)) : op.name, kind_string(op.kind), detail});
    with_error_context(where_of(op), [&] { lower(op); });
  }
  pcs::Command end;
  end.tag = pcs::kNoTag;
  out_.commands.push_back(end);

  // Tables segment and the size of its DMA.
  pcs::Segment seg;
  seg.address = cfg_.noc.hbm_base + kFheTablesHbmOffset;
  seg.bytes.resize(blob_.size() * 8);
  for (size_t i = 0; i < blob_.size(); ++i)
    for (int b = 0; b < 8; ++b) seg.bytes[i * 8 + b] = uint8_t(blob_[i] >> (8 * b));
  out_.segments.push_back(std::move(seg));
  std::get<pcs::DmaCopy>(out_.commands[tables_dma_].body).inner_bytes = uint32_t(blob_.size() * 8);
  out_.ops[0].detail += fmt::format("; {} key slots of {:.1f} MiB in the scratchpad, {} key loads", slots_,
                                    slot_bytes_ / 1048576.0, key_loads_);
  if (aliased_keys_)
    out_.ops[0].detail += fmt::format(
        "; HBM too small for every distinct key: {} keys reuse HBM addresses "
        "(traffic and timing unchanged)",
        aliased_keys_);
  return std::move(out_);
}

}  // namespace

pcs::Program lower_fhe(const FheProgram& prog, const RunConfig& cfg) {
  Lowerer l(prog, cfg);
  return l.run();
}

}  // namespace photon

// The streamed lowering's core: buffers, tiling, evaluation keys, the choice of each op's shape,
// and the plan of the scratchpad and HBM (fhe_stream_internal.h, docs/fhe.md "Memory plan").
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_op_traits.h"
#include "workloads/fhe/fhe_stream_internal.h"

namespace photon::fhe {

namespace {

bool is_key_switch(const FheOp& op) {
  return fhe_op_needs_key(op) && fhe_op_traits(op.kind).keys != KeyUse::SubOps;
}

/// Element-wise ops whose tiles may be coefficient slices (no NTT or automorphism in them).
bool sliceable(FheOpKind k) {
  switch (k) {
    case FheOpKind::Add:
    case FheOpKind::Sub:
    case FheOpKind::Negate:
    case FheOpKind::AddPlain:
    case FheOpKind::SubPlain:
    case FheOpKind::MulPlain:
    case FheOpKind::MulScalar:
    case FheOpKind::Mul: return true;
    default: return false;
  }
}

constexpr uint32_t kMaxSplit = 6;  ///< at most 64 slices per limb

}  // namespace

/// A dry lowerer measures shapes: its own command stream (discarded), key cache and arena.
struct StreamLowerer::DryContext {
  pcs::Program prog;
  FheCommandWriter w;
  FheKeyCache keys;
  StreamLowerer l;
  DryContext(const RunConfig& cfg, const FheStreamPlan& plan)
      : w(prog), keys(plan.slots, plan.key_region_bytes, cfg.ntt.storage_bits), l(cfg, plan, w, keys, true) {}
};

StreamLowerer::~StreamLowerer() = default;

StreamLowerer::StreamLowerer(const RunConfig& cfg, const FheStreamPlan& plan, FheCommandWriter& w,
                             FheKeyCache& keys, bool dry)
    : cfg(cfg),
      plan(plan),
      dry(dry),
      arena_(dry ? 0 : plan.work_base, dry ? (uint64_t(1) << 62) : plan.work_limit),
      streamer_(cfg, plan.mem->chain, plan.mem->q_slots, w, arena_, dry),
      keys_(keys) {
  for (size_t i = 0; i < plan.pinned.size(); ++i) pinned_slot_[plan.pinned[i]] = int(i);
  pinned_loaded_.assign(plan.pinned.size(), cfg.fhe.keys_on_chip);
}

void StreamLowerer::set_op(const FheOp& o, const StreamShape& sh) {
  op = &o;
  shape = sh;
  K = o.level + 1;
  L = o.max_level;
  A = o.alpha;
  beta = fhe_digits(o);
  log_n = o.log_n;
  lb = streamer_.limb_bytes(log_n);
}

PolyRef StreamLowerer::home(uint64_t hbm, uint32_t stride_limbs) const {
  PolyRef r;
  r.spm = false;
  r.addr = hbm;
  r.poly_stride = uint64_t(stride_limbs) * lb;
  r.k = K;
  return r;
}

namespace {
PolyRef ct_buffer(const std::optional<uint64_t>& spm, uint64_t home, const FheStreamPlan& plan, uint32_t K) {
  PolyRef r;
  r.spm = spm.has_value();
  r.addr = r.spm ? *spm : home;
  r.poly_stride = plan.ct_bytes / 2;
  r.k = K;
  return r;
}
}  // namespace

PolyRef StreamLowerer::cur() const { return ct_buffer(plan.cur_spm, plan.cur_home, plan, K); }
PolyRef StreamLowerer::opb() const { return ct_buffer(plan.opb_spm, plan.opb_home, plan, K); }
PolyRef StreamLowerer::d2() const { return ct_buffer(plan.d2_spm, plan.d2_home, plan, K); }

PolyRef StreamLowerer::alloc(uint32_t limbs, uint32_t polys) {
  PolyRef r;
  r.spm = true;
  r.addr = arena_.alloc(uint64_t(limbs) * polys * lb);
  r.poly_stride = uint64_t(limbs) * lb;
  r.k = K;
  return r;
}

PolyRef StreamLowerer::key(const KeyId& id) {
  PolyRef r;
  r.poly_stride = (uint64_t(id.max_level) + 1 + id.alpha) * lb;
  r.k = K;
  r.p_at = id.max_level + 1;
  const KeyPolicy policy = cfg.fhe.key_policy;
  int slot = -1;
  bool load = false;
  uint32_t q_limbs = id.max_level + 1;  // Q limbs the slot loads
  if (policy == KeyPolicy::Lru && plan.slots > 0) {
    const FheKeyCache::Grant g = keys_.acquire(id);
    slot = g.slot;
    load = g.load;
  } else if (policy == KeyPolicy::Pinned) {
    auto it = pinned_slot_.find(id);
    if (it != pinned_slot_.end()) {
      slot = it->second;
      load = !pinned_loaded_[size_t(slot)];
      pinned_loaded_[size_t(slot)] = true;
      q_limbs = plan.pinned_q_limbs.at(size_t(slot));
    }
  }
  const uint64_t hbm = plan.key_base + keys_.hbm_location(id);
  if (slot < 0) {  // streamed from HBM at every use
    r.spm = false;
    r.addr = hbm;
    return r;
  }
  r.spm = true;
  r.addr = plan.slots_base + uint64_t(slot) * plan.slot_bytes;
  if (load && q_limbs == id.max_level + 1u) {  // a whole key, overlapping the ModUp before its first read
    streamer_.load(hbm, r.addr, r.poly_stride, 2 * id.dnum, r.poly_stride, r.poly_stride, ByteClass::Keys);
    streamer_.end_transfers();
  } else if (load) {  // a pinned key used at most at q_limbs Q limbs: the digits and limbs that reads
    const uint32_t polys = 2 * fhe_digits(q_limbs, id.alpha);
    const uint64_t p_off = uint64_t(r.p_at) * lb;
    streamer_.load(hbm, r.addr, q_limbs * lb, polys, r.poly_stride, r.poly_stride, ByteClass::Keys);
    streamer_.load(hbm + p_off, r.addr + p_off, id.alpha * lb, polys, r.poly_stride, r.poly_stride,
                   ByteClass::Keys);
    streamer_.end_transfers();
  }
  return r;
}

void StreamLowerer::with_konst(uint8_t o, uint64_t a, uint64_t dst, uint32_t n, uint32_t ln, uint32_t moduli,
                               bool konst_first) {
  const uint64_t sb = streamer_.limb_bytes(ln);
  const uint32_t step = std::max<uint32_t>(1, uint32_t(uint64_t(plan.konst_limbs) * plan.mem->lb_max / sb));
  for (uint32_t i = 0; i < n; i += step) {
    const uint32_t m = std::min(step, n - i);
    const uint64_t x = a + i * sb, d = dst + i * sb;
    streamer_.ntt(o, konst_first ? plan.konst_base : x, konst_first ? x : plan.konst_base, d, m, ln,
                  moduli + 8 * i);
  }
}

LimbRuns StreamLowerer::groups(uint32_t lo, uint32_t hi, uint32_t g) const {
  LimbRuns out;
  if (lo < hi) out.reserve((hi - lo) / std::max<uint32_t>(g, 1) + 2);  // + the split at K
  for (uint32_t a = lo; a < hi;) {
    uint32_t b = std::min(hi, a + std::max<uint32_t>(g, 1));
    if (a < K && b > K) b = K;
    out.push_back({a, b - a});
    a = b;
  }
  return out;
}

void StreamLowerer::map(uint32_t lo, uint32_t hi, bool whole,
                        const std::function<void(Tile&, uint32_t lo, uint32_t n)>& make) {
  std::vector<Tile> tiles;
  uint64_t weight = 1;
  // What the loop's tiles move: operands all on chip (one tile for the range), only scratch slots
  // (no transfer to overlap: groups 4x larger, fewer commands), or HBM transfers.
  enum { kOnChip, kScratchOnly, kTransfers } kind = kOnChip;
  if (lo < hi) {
    Tile t;
    t.log_n = log_n;
    make(t, lo, std::min(hi, lo + 1));
    for (const TileOperand& o : t.ops)
      if (o.present() && !o.ref.spm) kind = std::max(kind, (o.read || o.write) ? kTransfers : kScratchOnly);
  }
  if ((whole || shape.split == 0) && kind == kOnChip) {
    for (const auto& [a, n] : groups(lo, hi, hi - lo)) {
      Tile t;
      t.log_n = log_n;
      make(t, a, n);
      tiles.push_back(std::move(t));
    }
  } else if (whole || shape.split == 0) {
    auto gs = groups(lo, hi, kind == kScratchOnly ? 4 * shape.g : shape.g);
    if (dry && !gs.empty()) {  // the largest group stands for all: it sizes the rings
      weight = gs.size();
      gs = {*std::max_element(gs.begin(), gs.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; })};
    }
    tiles.reserve(gs.size());
    for (const auto& [a, n] : gs) {
      Tile t;
      t.log_n = log_n;
      make(t, a, n);
      tiles.push_back(std::move(t));
    }
  } else if (dry) {
    if (lo < hi) {
      Tile t;
      t.log_n = log_n - shape.split;
      t.split = shape.split;
      make(t, lo, 1);
      tiles.push_back(std::move(t));
      weight = uint64_t(hi - lo) << shape.split;
    }
  } else {
    tiles.reserve(size_t(hi - lo) << shape.split);
    for (uint32_t i = lo; i < hi; ++i)
      for (uint32_t s = 0; s < (1u << shape.split); ++s) {
        Tile t;
        t.log_n = log_n - shape.split;
        t.split = shape.split;
        t.slice = s;
        make(t, i, 1);
        tiles.push_back(std::move(t));
      }
  }
  streamer_.run(tiles, shape.tight, weight);
}

std::string StreamShape::text(bool key_switch) const {
  std::string s;
  if (key_switch) {
    s = ks == kAccResident ? "acc_resident" : "raised";
    if (coeff_transposed) s += " coeff_transposed";
    if (accp_transposed) s += " accp_transposed";
    if (rot == kRotOnTheFly) s += " rot_on_the_fly";
    if (rot == kRotInHbm) s += " rot_in_hbm";
  }
  s += fmt::format("{}g={}", s.empty() ? "" : " ", g);
  if (key_switch && ks == kRaised) s += fmt::format(" chunk={}", chunk);
  if (split) s += fmt::format(" split={}", split);
  if (tsplit) s += fmt::format(" tsplit={}", tsplit);
  if (tight) s += " tight";
  if (key_digits) s += " key_digits";
  return s;
}

std::string StreamLowerer::lower(const FheOp& o) {
  const FheOpTraits& t = fhe_op_traits(o.kind);
  if (t.stream) {
    const uint64_t room = plan.work_limit - plan.work_base;
    const auto sh = shape_for(o, room);
    if (!sh)
      throw Error(fmt::format(
          "scratchpad.size_kib: {} at N=2^{} l={} alpha={} needs {} KiB of working buffers, "
          "{} KiB are left (planning fault)",
          fhe_op_kind_name(o.kind), o.log_n, o.level, o.alpha, (min_bytes(o) + 1023) / 1024, room / 1024));
    set_op(o, sh->first);
    const uint64_t mark = arena_.mark();
    t.stream(*this, o);
    arena_.release(mark);
    return shape.text(is_key_switch(o) || o.kind == FheOpKind::HoistedRotate);
  }
  if (!t.expand) return "";
  // A composite: its sub-ops' shapes, counted ("hrot[acc_resident g=3] x24, ...").
  std::vector<std::pair<std::string, int>> seen;
  for (const FheOp& s : t.expand(o, cfg.fhe)) {
    const std::string sh = lower(s);
    if (sh.empty()) continue;
    const std::string key = std::string(fhe_op_traits(s.kind).table_kind) + "[" + sh + "]";
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == key; });
    if (it == seen.end())
      seen.push_back({key, 1});
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [key, n] : seen) out += (out.empty() ? "" : ", ") + key + fmt::format(" x{}", n);
  return out;
}

std::string StreamLowerer::signature(const FheOp& o) const {
  std::string s = fmt::format("{} {} {} {} {} {} {} {} {}", int(o.kind), o.log_n, o.level, o.max_level, o.alpha,
                              o.dnum, o.ct_degree, o.count, fhe_rotation_is_identity(o));
  // key_policy pinned: which of the op's keys keep a slot (a pinned key is read on chip, another
  // streamed through the working region), so that ops alike but for their keys' residency are
  // not given one shape (it would be sized for the pinned one).
  if (!pinned_slot_.empty()) {
    s += " pinned=";
    for (const KeyId& k : fhe_op_keys(o, cfg.fhe)) s += pinned_slot_.count(k) ? '1' : '0';
  }
  return s;
}

StreamLowerer::ShapeCost StreamLowerer::measure(const FheOp& o, const StreamShape& sh) {
  if (!dry) {
    if (!dry_ctx_) dry_ctx_ = std::make_unique<DryContext>(cfg, plan);
    return dry_ctx_->l.measure(o, sh);
  }
  arena_.release(arena_.base());
  arena_.reset_peak();
  streamer_.reset_dry();
  set_op(o, sh);
  fhe_op_traits(o.kind).stream(*this, o);
  ShapeCost c;
  c.spm = arena_.peak() - arena_.base();
  c.hbm = streamer_.dry_bytes();
  c.tiles = streamer_.dry_tiles();
  c.prologue = streamer_.dry_prologue();
  arena_.release(arena_.base());
  return c;
}

std::optional<std::pair<StreamShape, uint64_t>> StreamLowerer::shape_for(const FheOp& o, uint64_t room) {
  const FheOpTraits& t = fhe_op_traits(o.kind);
  if (!t.stream) return std::make_pair(StreamShape{}, uint64_t(0));
  // The choice for an op signature and a room, once per lowerer (its plan is fixed).
  auto [hit, fresh] = chosen_.try_emplace({signature(o), room});
  if (!fresh) return hit->second;
  hit->second = choose_shape(o, room);
  return hit->second;
}

std::optional<std::pair<StreamShape, uint64_t>> StreamLowerer::choose_shape(const FheOp& o, uint64_t room) {
  auto& seen = costs_of(o);
  auto cost_of = [&](const StreamShape& s) {
    for (const auto& [sh, c] : seen)
      if (sh == s) return c;
    const ShapeCost c = measure(o, s);
    seen.push_back({s, c});
    return c;
  };
  auto bytes_of = [&](const StreamShape& s) { return cost_of(s).spm; };
  // The time a shape costs, in bytes moved at the HBM's peak rate: its traffic, the transfers no
  // double buffering hides (each loop's first tile, the first key digit), plus a fixed cost per
  // tile that moves data (a DMA's set-up and round trip and the NTT queue's drain at the
  // handshake, about 1 us: models/dma/README.md, platform/queue_unit.cpp).
  const double tile_bytes = cfg.hbm.peak_bandwidth_gbps() * 1000.0;  // GB/s x 1 us
  // A fixed key-switch dataflow (fhe.ks_dataflow, for comparing with SimFHE, which counts bytes)
  // takes the shape of fewest HBM bytes, tiles only breaking ties.
  const bool bytes_first = cfg.fhe.ks_dataflow != KsDataflow::Auto;
  auto score = [&](const StreamShape& s) {
    const ShapeCost c = cost_of(s);
    if (bytes_first) return double(c.hbm) + 1e-6 * double(c.tiles);
    return double(c.hbm) + double(c.prologue) + tile_bytes * double(c.tiles);
  };
  const uint32_t K0 = o.level + 1, digits = fhe_digits(o);
  // fhe.limb_group caps the group (the walk below starts there), never above the chain's L + 1 + alpha limbs (a larger group
  // would only size buffers for limbs that do not exist).
  const uint32_t g_cap = cfg.fhe.limb_group
                             ? std::min<uint32_t>(cfg.fhe.limb_group, o.max_level + 1 + o.alpha)
                             : std::max<uint32_t>(1, (K0 + 3) / 4);
  const bool ks = is_key_switch(o) || o.kind == FheOpKind::HoistedRotate;
  const bool rot = ks && (o.kind == FheOpKind::Rotate || o.kind == FheOpKind::Conjugate);
  const bool raise = o.kind == FheOpKind::ModRaise;
  // Regimes in order of preference (fewer HBM bytes first).
  std::vector<StreamShape> regimes;
  using R = StreamShape::Rot;
  const std::vector<R> rots =
      rot ? std::vector<R>{StreamShape::kRotResident, StreamShape::kRotOnTheFly, StreamShape::kRotInHbm}
          : std::vector<R>{StreamShape::kRotResident};
  const KsDataflow flow = cfg.fhe.ks_dataflow;
  for (R rr : rots) {
    StreamShape s;
    s.rot = rr;
    if (ks) {
      if (o.kind != FheOpKind::HoistedRotate && flow == KsDataflow::Auto) {
        s.ks = StreamShape::kAccResident;
        if (allow_key_digits) {
          s.key_digits = true;
          regimes.push_back(s);
        }
        s.key_digits = false;
        regimes.push_back(s);
      }
      s.ks = StreamShape::kRaised;
      for (int v = flow == KsDataflow::Transposed ? 3 : 0; v < 4; ++v) {
        s.coeff_transposed = v & 1;
        s.accp_transposed = v & 2;
        regimes.push_back(s);
      }
    } else if (raise) {
      if (flow != KsDataflow::Transposed) regimes.push_back(s);
      if (!plan.cur_spm || flow == KsDataflow::Transposed) {
        s.coeff_transposed = true;
        regimes.push_back(s);
      }
    } else {
      regimes.push_back(s);
    }
  }
  const bool can_split = ks || sliceable(o.kind);
  const uint32_t max_split = o.log_n > 6 ? std::min<uint32_t>(kMaxSplit, o.log_n - 6) : 0;
  // Three passes over the regimes (fewest HBM bytes first): whole-limb tiles only, then
  // coefficient-sliced element-wise tiles, then the tight shape. Slices and single buffering
  // cost far more time than the extra bytes of a less frugal dataflow, so every dataflow is
  // tried with whole tiles before any is sliced.
  // With bytes first, every pass is searched and the fewest bytes win across passes.
  std::optional<StreamShape> fewest;
  for (int pass = 0; pass < 3; ++pass) {
    if (pass == 1 && !can_split) continue;
    std::optional<StreamShape> chosen;
    for (StreamShape s : regimes) {
      if (pass > 0 && s.rot == StreamShape::kRotOnTheFly) continue;  // rotations need whole limbs
      s.g = pass == 0 ? g_cap : 1;
      s.chunk = s.ks == StreamShape::kRaised ? digits : 1;
      s.split = pass == 0 ? 0 : 1;
      s.tsplit = (s.coeff_transposed || s.accp_transposed) ? 1 : 0;
      s.tight = pass == 2;
      if (pass == 2) s.split = can_split ? max_split : 0;
      // Steepest descent over the pass's knobs: each step takes the move that leaves the smallest
      // footprint; footprints are monotone in every knob, so the walk ends at the regime's
      // smallest shape of the pass.
      for (;;) {
        if (bytes_of(s) <= room) {
          // Back off every knob that is not needed: fewest slices, then most digits and limbs
          // per tile.
          auto fits = [&](const StreamShape& x) { return bytes_of(x) <= room; };
          for (StreamShape x = s; x.split > (pass == 1 ? 1u : 0u);) {
            --x.split;
            if (!fits(x)) break;
            s = x;
          }
          for (StreamShape x = s; x.tsplit > 1;) {
            --x.tsplit;
            if (!fits(x)) break;
            s = x;
          }
          for (StreamShape x = s; x.ks == StreamShape::kRaised && x.chunk < digits;) {
            ++x.chunk;
            if (!fits(x)) break;
            s = x;
          }
          for (StreamShape x = s; x.split == 0 && x.g < g_cap;) {
            ++x.g;
            if (!fits(x)) break;
            s = x;
          }
          if (!chosen || score(s) < score(*chosen)) chosen = s;
          break;
        }
        std::vector<StreamShape> moves;
        if (s.chunk > 1) moves.push_back(s), moves.back().chunk = (s.chunk + 1) / 2;
        if (s.g > 1) moves.push_back(s), moves.back().g = (s.g + 1) / 2;
        if (pass >= 1 && s.g == 1 && s.split < max_split) moves.push_back(s), ++moves.back().split;
        if (s.tsplit && s.tsplit < max_split) moves.push_back(s), ++moves.back().tsplit;
        if (moves.empty()) break;
        size_t best = 0;
        for (size_t i = 1; i < moves.size(); ++i)
          if (bytes_of(moves[i]) < bytes_of(moves[best])) best = i;
        s = moves[best];
      }
    }
    if (chosen && bytes_first && (!fewest || score(*chosen) < score(*fewest))) fewest = chosen;
    if (chosen && !bytes_first) return std::make_pair(*chosen, bytes_of(*chosen));
  }
  if (fewest) return std::make_pair(*fewest, bytes_of(*fewest));
  return std::nullopt;
}

uint64_t StreamLowerer::min_bytes(const FheOp& o) {
  const auto s = shape_for(o, 0);
  if (s) return s->second;
  // The smallest: every knob at its limit, of each regime.
  uint64_t best = ~uint64_t(0);
  for (const auto& [sh, c] : costs_of(o)) best = std::min(best, c.spm);
  return best;
}

StreamLowerer::Costs& StreamLowerer::costs_of(const FheOp& o) {
  if (!plan.shapes || plan.slots > 0 || !plan.pinned.empty()) return measured_[signature(o)];
  return plan.shapes->costs[fmt::format("{}|{}{}{}|{}", signature(o), plan.cur_spm.has_value(),
                                        plan.opb_spm.has_value(), plan.d2_spm.has_value(), plan.konst_limbs)];
}

// ---------------------------------------------------------------------------------------------
// The plan.

namespace {

/// The leaf ops of `ops` (composites expanded).
std::vector<FheOp> leaf_ops(const std::vector<FheOp>& ops, const FheConfig& fc) {
  std::vector<FheOp> leaves;
  std::function<void(const FheOp&)> add = [&](const FheOp& o) {
    const FheOpTraits& t = fhe_op_traits(o.kind);
    if (t.stream)
      leaves.push_back(o);
    else if (t.expand)
      for (const FheOp& s : t.expand(o, fc)) add(s);
  };
  for (const FheOp& o : ops) add(o);
  return leaves;
}

}  // namespace

uint64_t fhe_key_traffic(const std::vector<FheOp>& ops, uint32_t slots, const RunConfig& cfg, bool partial) {
  const uint32_t bits = cfg.ntt.storage_bits;
  uint64_t bytes = 0;
  if (slots == 0) {
    for (const FheOp& o : leaf_ops(ops, cfg.fhe)) {
      const uint64_t part =
          2ull * fhe_digits(o) * (o.level + 1ull + o.alpha) * ((uint64_t(bits) << o.log_n) / 8);
      bytes += part * fhe_op_keys(o, cfg.fhe).size();
    }
    return bytes;
  }
  FheKeyCache cache(slots, ~uint64_t(0) >> 1, bits);
  std::vector<KeyId> used;
  for (const FheOp& o : ops)
    for (const KeyId& k : fhe_op_keys(o, cfg.fhe)) used.push_back(k);
  if (cfg.fhe.keys_on_chip) cache.warm(used);
  if (!partial) {
    for (const KeyId& k : used)
      if (cache.acquire(k).load) bytes += fhe_key_bytes(k, bits);
    return bytes;
  }
  // The resident layout's slots: a load copies what its use reads (fhe_key_switch.cpp).
  for (const FheOp& o : leaf_ops(ops, cfg.fhe))
    for (const KeyId& k : fhe_op_keys(o, cfg.fhe)) {
      const FheKeyCache::Grant g = cache.acquire(k, o.level + 1);
      if (!g.load) continue;
      const uint64_t limb = (uint64_t(bits) << o.log_n) / 8;
      bytes += g.q_limbs == k.max_level + 1 ? fhe_key_bytes(k, bits)
                                            : 2ull * fhe_digits(o) * (g.q_limbs + uint64_t(k.alpha)) * limb;
    }
  return bytes;
}

FheStreamPlan plan_fhe_stream(const std::vector<FheOp>& ops, const RunConfig& cfg, const FheMemoryPlan& mem) {
  const FheConfig& fc = cfg.fhe;
  FheStreamPlan p;
  p.mem = &mem;
  p.spm_bytes = mem.spm_bytes;
  p.ct_bytes = 2ull * mem.q_slots * mem.lb_max;
  p.slot_bytes = 2ull * mem.dnum_max * mem.ext_slots * mem.lb_max;
  // Leaf ops (composites expanded) and what they use.
  const std::vector<FheOp> leaves = leaf_ops(ops, fc);
  uint64_t heat_cur = 0, heat_opb = 0, heat_d2 = 0;
  for (const FheOp& o : leaves) {
    switch (o.kind) {
      case FheOpKind::Add:
      case FheOpKind::Sub:
      case FheOpKind::AddPlain:
      case FheOpKind::SubPlain:
      case FheOpKind::MulPlain: ++heat_opb; break;
      case FheOpKind::Encode: ++heat_opb; continue;
      case FheOpKind::Mul: ++heat_opb, ++heat_d2; break;
      case FheOpKind::Relinearize: ++heat_d2; break;
      case FheOpKind::HoistedRotate: ++heat_opb; break;
      default: break;
    }
    ++heat_cur;
  }
  // Keys: pinned by use count.
  std::map<KeyId, uint64_t> uses;
  std::map<KeyId, uint32_t> top_limbs;  // Q limbs of each key's highest-level use
  std::vector<KeyId> order;
  for (const FheOp& o : leaves)
    for (const KeyId& k : fhe_op_keys(o, fc)) {
      if (!uses.count(k)) order.push_back(k);
      ++uses[k];
      top_limbs[k] = std::max(top_limbs[k], o.level + 1);
    }

  const uint64_t tables = kFheTablesBytes, cap = p.spm_bytes;
  // HBM: the buffers' homes at the start of the key region, the keys after them.
  uint64_t at = mem.key_hbm_base;
  auto take = [&](uint64_t bytes) {
    const uint64_t a = at;
    at += (bytes + 4095) / 4096 * 4096;
    return a;
  };
  p.cur_home = take(p.ct_bytes);
  p.opb_home = take(p.ct_bytes);
  p.d2_home = take(p.ct_bytes / 2);
  p.rot_home = take(p.ct_bytes);
  p.raised_home = take(uint64_t(mem.dnum_max) * mem.ext_slots * mem.lb_max);
  p.coeff_home = take(uint64_t(mem.q_slots) * mem.lb_max);
  p.accp_home = take(2ull * mem.a_max * mem.lb_max);
  p.tmp_home = take(p.ct_bytes);
  if (at - mem.key_hbm_base >= mem.key_region_bytes)
    throw Error(fmt::format("hbm: the streamed FHE buffers need {:.1f} MiB of HBM, {:.1f} MiB are free",
                            (at - mem.key_hbm_base) / 1048576.0, mem.key_region_bytes / 1048576.0));
  p.key_base = at;
  p.key_region_bytes = mem.key_region_bytes - (at - mem.key_hbm_base);
  // Tables, then (from the bottom) ciphertext slots, key slots, the constants tile and the
  // working region; planning assumes a constants tile of one limb and widens it at the end.
  const uint64_t konst1 = mem.lb_max;
  p.slots_base = tables;
  p.konst_base = tables;
  p.konst_limbs = 1;
  p.work_base = tables + konst1;
  p.work_limit = cap;
  p.shapes = std::make_shared<ShapeMemo>();

  // Shapes are measured by a dry lowerer on a trial plan (its residency decides the rings).
  struct Probe {
    pcs::Program scratch;
    FheCommandWriter w;
    FheKeyCache keys;
    StreamLowerer l;
    Probe(const RunConfig& cfg, const FheStreamPlan& trial)
        : w(scratch),
          keys(trial.slots, trial.key_region_bytes, cfg.ntt.storage_bits),
          l(cfg, trial, w, keys, true) {
      l.allow_key_digits = false;  // the working region is sized without them (see allow_key_digits)
    }
  };
  /// The largest best-shape working region over the ops, and whether every op fits in `room`.
  auto need = [&](const FheStreamPlan& trial, uint64_t room, const FheOp** misfit) {
    Probe probe(cfg, trial);
    uint64_t best = 0;
    for (const FheOp& o : leaves) {
      best = std::max(best, probe.l.shape_for(o, uint64_t(1) << 62)->second);
      if (misfit && !*misfit && !probe.l.shape_for(o, room)) *misfit = &o;
    }
    return best;
  };
  const FheOp* misfit = nullptr;
  const bool no_room = cap <= tables + konst1;  // not even the tables and one limb of constants
  uint64_t best = need(p, no_room ? 0 : cap - tables - konst1, &misfit);
  if (misfit || no_room) {
    // The minimum is the largest of the ops' smallest working regions (named with its op).
    Probe probe(cfg, p);
    uint64_t m = 0;
    for (const FheOp& o : leaves) {
      const uint64_t b = probe.l.min_bytes(o);
      if (b > m || !misfit) m = std::max(m, b), misfit = &o;
    }
    const std::string op = misfit ? fmt::format("{} at N=2^{} l={} alpha={}: ", fhe_op_kind_name(misfit->kind),
                                                misfit->log_n, misfit->level, misfit->alpha)
                                  : std::string();
    throw Error(fmt::format(
        "scratchpad.size_kib: the FHE program needs at least {} KiB of scratchpad ({}{} KiB of streamed "
        "working buffers, plus {} KiB of moduli tables); {} KiB are configured",
        (tables + konst1 + m + 1023) / 1024, op, (konst1 + m + 1023) / 1024, tables / 1024, cap / 1024));
  }

  // Ciphertext slots, hottest first: for `hottest` before the working region is sized (an op's
  // shape then adapts to what is left), for `spill` after it (they take what the best shapes
  // leave); `none` keeps every ciphertext in HBM.
  std::vector<std::pair<uint64_t, std::optional<uint64_t>*>> cts;
  if (fc.ct_policy != CtPolicy::None) {
    if (heat_cur) cts.push_back({heat_cur * 2, &p.cur_spm});
    if (heat_d2) cts.push_back({heat_d2, &p.d2_spm});
    if (heat_opb) cts.push_back({heat_opb * 2, &p.opb_spm});
    std::stable_sort(cts.begin(), cts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  }
  uint64_t ct_top = tables;
  auto ct_size = [&](std::optional<uint64_t>* slot) {
    return slot == &p.d2_spm ? p.ct_bytes / 2 : p.ct_bytes;
  };
  auto with_slots = [&](uint64_t top) {
    FheStreamPlan t = p;
    t.slots_base = top;
    t.konst_base = top;
    t.work_base = top + konst1;
    return t;
  };
  if (fc.ct_policy == CtPolicy::Hottest) {
    for (auto& [heat, slot] : cts) {
      const uint64_t b = ct_size(slot);
      if (ct_top + b + konst1 >= cap) continue;
      *slot = ct_top;
      const FheOp* bad = nullptr;
      need(with_slots(ct_top + b), cap - ct_top - b - konst1, &bad);
      if (bad)
        slot->reset();
      else
        ct_top += b;
    }
    best = need(with_slots(ct_top), cap - ct_top - konst1, nullptr);
  } else if (fc.ct_policy == CtPolicy::Spill) {
    const uint64_t work = std::min(cap - tables - konst1, best);
    for (auto& [heat, slot] : cts) {
      const uint64_t b = ct_size(slot);
      if (ct_top + b + konst1 + work > cap) continue;
      *slot = ct_top;
      ct_top += b;
    }
    best = need(with_slots(ct_top), cap - ct_top - konst1, nullptr);
  }
  const uint64_t work = std::min(cap - ct_top - konst1, best);
  // Key slots from what is left.
  p.slots_base = ct_top;
  p.slots = 0;
  if (fc.key_policy != KeyPolicy::None && mem.any_key && p.slot_bytes > 0) {
    p.slots = uint32_t((cap - ct_top - konst1 - work) / p.slot_bytes);
    // Whole-key slots only when they read fewer key bytes than streaming each key switch's part
    // of its key (slots reloaded by keys used once cost more than they save).
    if (fc.key_policy == KeyPolicy::Lru && p.slots > 0 &&
        fhe_key_traffic(ops, p.slots, cfg) > fhe_key_traffic(ops, 0, cfg))
      p.slots = 0;
    if (fc.key_policy == KeyPolicy::Pinned) {
      std::stable_sort(order.begin(), order.end(),
                       [&](const KeyId& a, const KeyId& b) { return uses[a] > uses[b]; });
      if (order.size() > p.slots) order.resize(p.slots);
      p.pinned = order;
      for (const KeyId& k : order) p.pinned_q_limbs.push_back(top_limbs[k]);
      p.slots = uint32_t(order.size());
    }
  }
  p.konst_base = p.slots_base + uint64_t(p.slots) * p.slot_bytes;
  p.work_base = p.konst_base + konst1;
  p.work_limit = cap;
  // The constants tile as wide as the widest tile the ops now choose, if every op still fits.
  {
    Probe probe(cfg, p);
    uint32_t g_max = 1;
    for (const FheOp& o : leaves) g_max = std::max(g_max, probe.l.shape_for(o, cap - p.work_base)->first.g);
    if (g_max > 1) {
      FheStreamPlan wide = p;
      wide.konst_limbs = g_max;
      wide.work_base = p.konst_base + uint64_t(g_max) * mem.lb_max;
      const FheOp* bad = nullptr;
      if (wide.work_base < cap) need(wide, cap - wide.work_base, &bad);
      if (wide.work_base < cap && !bad) p = wide;
    }
  }
  return p;
}

}  // namespace photon::fhe

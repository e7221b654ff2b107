#include "workloads/fhe/fhe_streamer.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace photon::fhe {

uint64_t FheArena::alloc(uint64_t bytes) {
  bytes = (bytes + 63) / 64 * 64;
  if (top_ + bytes > limit_)
    throw Error("fhe lowering: streamed working buffers need " + std::to_string(top_ + bytes - base_) +
                " bytes, the plan gave " + std::to_string(limit_ - base_) + " (planning fault)");
  const uint64_t at = top_;
  top_ += bytes;
  peak_ = std::max(peak_, top_);
  return at;
}

FheStreamer::FheStreamer(const RunConfig& cfg, const std::vector<uint64_t>& chain, uint32_t q_slots,
                         FheCommandWriter& w, FheArena& arena, bool dry)
    : cfg_(cfg),
      chain_(chain),
      q_slots_(q_slots),
      bits_(cfg.ntt.storage_bits),
      w_(w),
      arena_(arena),
      sync_(w),
      dry_(dry) {}

Range FheStreamer::chain(uint32_t lo, uint32_t hi, uint32_t K) const {
  if (lo >= K) return {q_slots_ + (lo - K), q_slots_ + (hi - K)};
  return {lo, hi};
}

void FheStreamer::ntt(uint8_t op, uint64_t src0, uint64_t src1, uint64_t dst, uint32_t limbs, uint32_t log_n,
                      uint32_t moduli, uint32_t out_limbs, uint32_t galois) {
  if (dry_) return;
  const uint64_t lb = limb_bytes(log_n);
  const bool two = op == pcs::Ntt::kMulMod || op == pcs::Ntt::kAddMod || op == pcs::Ntt::kSubMod ||
                   op == pcs::Ntt::kMulAccMod;
  const uint64_t dst_bytes = uint64_t(op == pcs::Ntt::kBConv ? out_limbs : limbs) * lb;
  FheStreamSync::Span spans[3] = {{src0, src0 + limbs * lb}};
  size_t n = 1;
  if (two) spans[n++] = {src1, src1 + limbs * lb};
  spans[n++] = {dst, dst + dst_bytes};
  sync_.ntt_access(spans, n);
  w_.set_log_n(log_n);
  w_.ntt(op, src0, src1, dst, limbs, moduli, out_limbs, galois);
}

void FheStreamer::sum_of_products(bool accumulate, uint64_t src0, uint64_t src0_stride, uint64_t src1,
                                  uint64_t src1_stride, uint64_t dst, uint32_t terms, uint32_t limbs,
                                  uint32_t log_n, uint32_t moduli) {
  if (dry_) return;
  const uint64_t bytes = limbs * limb_bytes(log_n);
  spans_.clear();
  for (uint32_t t = 0; t < terms; ++t) {
    spans_.push_back({src0 + t * src0_stride, src0 + t * src0_stride + bytes});
    spans_.push_back({src1 + t * src1_stride, src1 + t * src1_stride + bytes});
  }
  spans_.push_back({dst, dst + bytes});
  sync_.ntt_access(spans_.data(), spans_.size());
  w_.set_log_n(log_n);
  w_.sum_of_products(accumulate, src0, src0_stride, src1, src1_stride, dst, terms, limbs, moduli);
}

void FheStreamer::bconv(uint64_t src, Range from, uint64_t dst, Range to, uint32_t log_n) {
  if (dry_) return;
  const uint64_t lb = limb_bytes(log_n);
  const FheStreamSync::Span spans[] = {{src, src + uint64_t(from.hi - from.lo) * lb},
                                       {dst, dst + uint64_t(to.hi - to.lo) * lb}};
  sync_.ntt_access(spans, 2);
  w_.set_log_n(log_n);
  w_.bconv(chain_, src, from, dst, to);
}

void FheStreamer::load(uint64_t hbm, uint64_t spm, uint64_t inner, uint32_t n1, uint64_t hbm_stride,
                       uint64_t spm_stride, ByteClass cls) {
  if (dry_) {
    dry_bytes_ += inner * n1;
    return;
  }
  sync_.dma_access(spm, spm + (n1 - 1) * spm_stride + inner);
  w_.dma(cfg_.noc.hbm_base + hbm, cfg_.noc.scratchpad_base + spm, inner, n1, hbm_stride, spm_stride, cls);
}

void FheStreamer::store(uint64_t spm, uint64_t hbm, uint64_t inner, uint32_t n1, uint64_t spm_stride,
                        uint64_t hbm_stride, ByteClass cls) {
  if (dry_) return;
  sync_.dma_access(spm, spm + (n1 - 1) * spm_stride + inner);
  w_.dma(cfg_.noc.scratchpad_base + spm, cfg_.noc.hbm_base + hbm, inner, n1, spm_stride, hbm_stride, cls);
}

uint64_t FheStreamer::operand_bytes(const Tile& t, const TileOperand& o) const {
  return uint64_t(o.polys) * o.n * limb_bytes(t.log_n);
}

void FheStreamer::transfer(const Tile& t, const TileOperand& o, uint64_t slot, bool load_it) {
  const uint64_t sb = limb_bytes(t.log_n), lb = limb_bytes(t.log_n + t.split);
  const uint64_t hbm0 = o.ref.limb(o.lo, lb) + uint64_t(t.slice) * sb;
  const ByteClass cls = load_it ? o.in_cls : o.out_cls;
  auto move = [&](uint64_t hbm, uint64_t spm, uint64_t inner, uint32_t n1, uint64_t hs, uint64_t ss) {
    if (load_it)
      load(hbm, spm, inner, n1, hs, ss, cls);
    else
      store(spm, hbm, inner, n1, ss, hs, cls);
  };
  if (t.split == 0) {  // whole limbs: each polynomial's n limbs are contiguous on both sides
    move(hbm0, slot, o.n * lb, o.polys, o.ref.poly_stride, o.n * lb);
  } else if (o.n == 1) {
    move(hbm0, slot, sb, o.polys, o.ref.poly_stride, sb);
  } else {  // slices of several limbs: one DMA per polynomial, a row per limb
    for (uint32_t p = 0; p < o.polys; ++p)
      move(hbm0 + p * o.ref.poly_stride, slot + uint64_t(p) * o.n * sb, sb, o.n, lb, sb);
  }
}

void FheStreamer::run(std::vector<Tile>& tiles, bool single, uint64_t weight) {
  if (tiles.empty()) return;
  size_t positions = 0;
  for (const Tile& t : tiles) positions = std::max(positions, t.ops.size());
  boost::container::small_vector<uint64_t, 6> need(positions, 0);
  for (const Tile& t : tiles)
    for (size_t p = 0; p < t.ops.size(); ++p) {
      const TileOperand& o = t.ops[p];
      if (!o.present()) continue;
      if (o.ref.spm) {
        if (t.split && o.n > 1)
          throw Error("fhe lowering: a sliced tile over several limbs of a resident buffer (planning fault)");
      } else {
        need[p] = std::max(need[p], operand_bytes(t, o));
      }
    }
  const uint64_t mark = arena_.mark();
  const int depth = single ? 1 : 2;
  boost::container::small_vector<uint64_t, 6> slot[2];
  for (int s = 0; s < depth; ++s)
    for (size_t p = 0; p < positions; ++p) slot[s].push_back(need[p] ? arena_.alloc(need[p]) : 0);
  if (single) slot[1] = slot[0];
  if (dry_) {
    if (!tiles.empty())
      for (const TileOperand& o : tiles[0].ops)
        if (o.present() && !o.ref.spm && o.read) dry_prologue_ += operand_bytes(tiles[0], o);
    for (const Tile& t : tiles) {
      bool moves = false;  // only a tile that moves data costs a handshake
      for (const TileOperand& o : t.ops)
        if (o.present() && !o.ref.spm && (o.read || o.write)) {
          dry_bytes_ += weight * operand_bytes(t, o) * (int(o.read) + int(o.write));
          moves = true;
        }
      dry_tiles_ += moves ? weight : 0;
    }
    arena_.release(mark);
    return;
  }
  auto loads = [&](size_t i) {
    const Tile& t = tiles[i];
    for (size_t p = 0; p < t.ops.size(); ++p) {
      const TileOperand& o = t.ops[p];
      if (o.present() && o.read && !o.ref.spm) transfer(t, o, slot[i % 2][p], true);
    }
    sync_.end_dma_group();
  };
  if (!single) loads(0);
  TileView v;  // one view, refilled per tile
  for (size_t i = 0; i < tiles.size(); ++i) {
    if (single)
      loads(i);
    else if (i + 1 < tiles.size())
      loads(i + 1);
    const Tile& t = tiles[i];
    const uint64_t sb = limb_bytes(t.log_n), lb = limb_bytes(t.log_n + t.split);
    v.log_n = t.log_n;
    v.slice = t.slice;
    v.at.clear();
    v.poly_stride.clear();
    v.limb_stride.clear();
    for (size_t p = 0; p < t.ops.size(); ++p) {
      const TileOperand& o = t.ops[p];
      if (!o.present()) {
        v.at.push_back(0);
        v.poly_stride.push_back(0);
        v.limb_stride.push_back(0);
      } else if (o.ref.spm) {
        v.at.push_back(o.ref.limb(o.lo, lb) + uint64_t(t.slice) * sb);
        v.poly_stride.push_back(o.ref.poly_stride);
        v.limb_stride.push_back(lb);
      } else {
        v.at.push_back(slot[i % 2][p]);
        v.poly_stride.push_back(uint64_t(o.n) * sb);
        v.limb_stride.push_back(sb);
      }
    }
    t.compute(v);
    for (size_t p = 0; p < t.ops.size(); ++p) {
      const TileOperand& o = t.ops[p];
      if (o.present() && o.write && !o.ref.spm) transfer(t, o, slot[i % 2][p], false);
    }
  }
  arena_.release(mark);
}

}  // namespace photon::fhe

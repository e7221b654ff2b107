// The streamed FHE lowering's executor (docs/fhe.md "Memory plan"): polynomials live in the
// scratchpad or in HBM; work runs as loops of tiles (a group of limbs, or a coefficient slice of
// some limbs), each tile's operands brought into double-buffered ring slots by the DMA while the
// NTT unit computes the previous tile, results written back to HBM; every transfer is counted by
// class. The queues are ordered by FheStreamSync.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "workloads/config/run_config.h"
#include "workloads/fhe/fhe_command_writer.h"
#include "workloads/fhe/fhe_stream_sync.h"

namespace photon::fhe {

/// Where a polynomial (or several, `poly_stride` bytes apart) lives: the scratchpad (offset from
/// its start) or HBM (offset from noc.hbm_base). Limbs use the compact index (Q limbs 0..K-1, then
/// the P limbs); limb i is stored at index i, except that P limbs start at storage index `p_at`
/// when it is set (an evaluation key keeps its P limbs after its L+1 Q limbs).
struct PolyRef {
  bool spm = false;
  uint64_t addr = 0;
  uint64_t poly_stride = 0;
  uint32_t k = 0;       ///< Q limbs of the compact index (P limb 0 has compact index k)
  uint32_t p_at = ~0u;  ///< storage index of P limb 0 (~0u: compact)
  bool valid() const { return spm || addr != ~uint64_t(0); }
  /// Byte offset of limb `i` (compact index) at limb size `lb`.
  uint64_t limb(uint32_t i, uint64_t lb) const {
    const uint64_t at = (p_at != ~0u && i >= k) ? uint64_t(p_at) + (i - k) : uint64_t(i);
    return addr + at * lb;
  }
  /// The same polynomials from limb `i` on (compact index 0 = limb i).
  PolyRef poly(uint32_t p) const {
    PolyRef r = *this;
    r.addr += uint64_t(p) * poly_stride;
    return r;
  }
};

/// One operand of a tile: `polys` polynomials of `ref`, limbs [lo, lo + n) of each (slice `slice`
/// of 2^log_s coefficients when the tile is sliced). Read (loaded first when in HBM) and/or
/// written (stored after the compute when in HBM).
struct TileOperand {
  PolyRef ref;
  uint32_t polys = 1;
  uint32_t lo = 0, n = 0;
  bool read = true, write = false;
  ByteClass in_cls = ByteClass::CtIn, out_cls = ByteClass::CtOut;
  bool present() const { return n != 0; }
};

/// A TileOperand from its fields, in declaration order.
inline TileOperand operand(const PolyRef& r, uint32_t polys, uint32_t lo, uint32_t n, bool read, bool write,
                           ByteClass in_cls, ByteClass out_cls) {
  TileOperand o;
  o.ref = r;
  o.polys = polys;
  o.lo = lo;
  o.n = n;
  o.read = read;
  o.write = write;
  o.in_cls = in_cls;
  o.out_cls = out_cls;
  return o;
}

/// Limb ranges of a loop ({first, count} or {begin, end}): a few per loop, kept inline.
using LimbRuns = boost::container::small_vector<std::pair<uint32_t, uint32_t>, 8>;

/// What a tile's compute sees: per operand position, the scratchpad address of its polynomial 0
/// (limb lo) and the bytes between its polynomials and between its limbs in the scratchpad.
struct TileView {
  uint32_t log_n = 0;  ///< log2 of the coefficients per limb in this tile (N, or the slice)
  uint32_t slice = 0;  ///< slice index (0 for whole limbs)
  /// Per operand position (a few: kept inline).
  boost::container::small_vector<uint64_t, 6> at, poly_stride, limb_stride;
};

struct Tile {
  uint32_t log_n = 0;  ///< coefficients per limb of the tile: 2^log_n
  uint32_t split = 0;  ///< log2 of the slices per limb: the op's ring degree is 2^(log_n + split)
  uint32_t slice = 0;  ///< which slice of the limbs (offset slice * 2^log_n coefficients)
  boost::container::small_vector<TileOperand, 4> ops;
  std::function<void(const TileView&)> compute;
};

/// A stack of scratchpad allocations in [base, limit); peak() is the high-water mark.
class FheArena {
 public:
  FheArena(uint64_t base, uint64_t limit) : base_(base), top_(base), limit_(limit), peak_(base) {}
  /// Bytes rounded up to 64; throws Error (an internal planning fault) past the limit.
  uint64_t alloc(uint64_t bytes);
  uint64_t mark() const { return top_; }
  void release(uint64_t mark) { top_ = mark; }
  uint64_t base() const { return base_; }
  uint64_t limit() const { return limit_; }
  uint64_t peak() const { return peak_; }
  void reset_peak() { peak_ = top_; }

 private:
  uint64_t base_, top_, limit_, peak_;
};

class FheStreamer {
 public:
  /// `dry`: plan only (run() allocates and frees its rings, nothing is emitted): used to measure
  /// the working region a shape needs.
  FheStreamer(const RunConfig& cfg, const std::vector<uint64_t>& chain, uint32_t q_slots, FheCommandWriter& w,
              FheArena& arena, bool dry = false);
  bool dry() const { return dry_; }

  /// Bytes of one limb of 2^log_n residues (ntt.storage_bits each).
  uint64_t limb_bytes(uint32_t log_n) const { return (uint64_t(bits_) << log_n) / 8; }
  /// Moduli-table offset of compact limb i at level K (P limbs sit at chain slots q_slots..).
  uint32_t moduli(uint32_t i, uint32_t K) const { return 8 * (i < K ? i : q_slots_ + (i - K)); }
  /// Chain-slot range of compact limbs [lo, hi) at level K (not straddling K).
  Range chain(uint32_t lo, uint32_t hi, uint32_t K) const;

  /// One NTT-unit command on scratchpad operands (sync on every range it touches).
  void ntt(uint8_t op, uint64_t src0, uint64_t src1, uint64_t dst, uint32_t limbs, uint32_t log_n,
           uint32_t moduli, uint32_t out_limbs = 0, uint32_t galois = 1);
  /// dst (+)= sum of `terms` products (FheCommandWriter::sum_of_products; sync on each term's ranges).
  void sum_of_products(bool accumulate, uint64_t src0, uint64_t src0_stride, uint64_t src1, uint64_t src1_stride,
                       uint64_t dst, uint32_t terms, uint32_t limbs, uint32_t log_n, uint32_t moduli);
  /// Base conversion of `from` (chain slots) at `src` to `to` at `dst`.
  void bconv(uint64_t src, Range from, uint64_t dst, Range to, uint32_t log_n);
  /// Copies `bytes` of HBM offset `hbm` to scratchpad offset `spm` as one DMA (2-D: `n1` rows,
  /// strides), class `cls`.
  void load(uint64_t hbm, uint64_t spm, uint64_t inner, uint32_t n1, uint64_t hbm_stride, uint64_t spm_stride,
            ByteClass cls);
  void store(uint64_t spm, uint64_t hbm, uint64_t inner, uint32_t n1, uint64_t spm_stride,
             uint64_t hbm_stride, ByteClass cls);
  /// Ends the open DMA group (after a batch of transfers a compute will wait for).
  void end_transfers() {
    if (dry_)
      ++dry_tiles_;  // a batch of transfers the NTT unit waits for: one handshake
    else
      sync_.end_dma_group();
  }

  /// Runs `tiles` double-buffered: ring slots (two per operand position whose operand is in
  /// HBM, sized for the largest tile) from the arena; the loads of tile t+1 are issued before the
  /// compute of tile t. With `single`, one slot per position and no prefetch (the smallest
  /// scratchpads). Every tile has the same operand positions (absent ones have n = 0).
  /// In a dry run, `weight` is how many times `tiles` stand for their loop (a representative
  /// tile per group): the bytes and tiles counted below are multiplied by it.
  void run(std::vector<Tile>& tiles, bool single = false, uint64_t weight = 1);
  /// Dry runs: the HBM bytes the transfers would move and the tiles, since the last reset.
  uint64_t dry_bytes() const { return dry_bytes_; }
  uint64_t dry_tiles() const { return dry_tiles_; }
  /// Dry runs: bytes transferred before any compute can start (the first tile of every loop,
  /// and whatever the caller notes), which no double buffering hides.
  uint64_t dry_prologue() const { return dry_prologue_; }
  void note_prologue(uint64_t bytes) {
    if (dry_) dry_prologue_ += bytes;
  }
  void reset_dry() { dry_bytes_ = dry_tiles_ = dry_prologue_ = 0; }

  FheStreamSync& sync() { return sync_; }
  FheArena& arena() { return arena_; }
  FheCommandWriter& writer() { return w_; }
  const RunConfig& cfg() const { return cfg_; }

 private:
  uint64_t operand_bytes(const Tile& t, const TileOperand& o) const;
  void transfer(const Tile& t, const TileOperand& o, uint64_t slot, bool load);

  const RunConfig& cfg_;
  const std::vector<uint64_t>& chain_;
  uint32_t q_slots_, bits_;
  FheCommandWriter& w_;
  FheArena& arena_;
  FheStreamSync sync_;
  std::vector<FheStreamSync::Span> spans_;  ///< sum_of_products' ranges (kept for its capacity)
  bool dry_;
  uint64_t dry_bytes_ = 0, dry_tiles_ = 0, dry_prologue_ = 0;
};

}  // namespace photon::fhe

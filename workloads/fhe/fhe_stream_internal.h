// The streamed FHE lowering (docs/fhe.md "Memory plan"): used when the resident layout
// (fhe_memory_plan.h) does not fit the scratchpad, or when a residency policy asks for it.
// Ciphertext buffers (the current ciphertext, the operand / plaintext, the degree-2 part) have a
// home in HBM and, when the plan gives them one, a slot in the scratchpad; every op runs as loops
// of double-buffered tiles (fhe_streamer.h) in a per-op working region, with a shape (tile
// limbs, slices, key-switch dataflow) chosen to fit it. Not part of the library's interface.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/run_config.h"
#include "workloads/fhe/fhe_command_writer.h"
#include "workloads/fhe/fhe_key_cache.h"
#include "workloads/fhe/fhe_memory_plan.h"
#include "workloads/fhe/fhe_program.h"
#include "workloads/fhe/fhe_streamer.h"

namespace photon::fhe {

/// How one op is tiled. Key-switch dataflows (docs/fhe.md "Key switching with little memory"):
///   kAccResident  ModUp digit by digit fused with the inner product into both accumulators
///                 (2 (K+alpha) limbs on chip): no intermediate traffic;
///   kRaised       the raised digits go to HBM and the inner product runs output-limb-major with
///                 ModDown fused, the P part of the accumulators (2 alpha limbs) on chip (SimFHE's
///                 "ALPHA" caching level);
///   with coeff_transposed / accp_transposed the digit's coefficients (ModUp) or the P part
///   (ModDown) do not fit either and go through HBM to be read slot-wise for the base conversion
///   (SimFHE's caching levels below ALPHA).
struct StreamShape {
  enum Ks : uint8_t { kAccResident, kRaised } ks = kAccResident;
  bool coeff_transposed = false, accp_transposed = false;
  /// Rotations: the rotated input in the working region, rotated on the fly as each limb is read
  /// (SimFHE's rotate: no copy; the own digits are rotated again in the inner product; whole-limb
  /// tiles only), or a rotated copy written to HBM.
  enum Rot : uint8_t { kRotResident, kRotOnTheFly, kRotInHbm } rot = kRotResident;
  uint32_t g = 1;       ///< limbs per tile
  uint32_t split = 0;   ///< element-wise tiles: log2 of the slices per limb (0: whole limbs)
  uint32_t tsplit = 0;  ///< slot-wise (transposed) base conversions: log2 slices per limb
  uint32_t chunk = 1;   ///< digits per inner-product tile
  /// The smallest scratchpads: single-buffered rings (no prefetch), one polynomial per tile in
  /// whole-limb loops, no second buffer for the ModDown correction.
  bool tight = false;
  /// Accumulators on chip: the key streamed one digit at a time into two digit buffers (SHARP and
  /// ARK stream key digits), instead of one key tile per compute tile.
  bool key_digits = false;
  /// "acc_resident g=4" / "raised coeff_transposed g=1 chunk=2 split=3 tsplit=4", for op details.
  std::string text(bool key_switch) const;
  bool operator==(const StreamShape& o) const {
    return ks == o.ks && coeff_transposed == o.coeff_transposed && accp_transposed == o.accp_transposed &&
           rot == o.rot && g == o.g && split == o.split && tsplit == o.tsplit && chunk == o.chunk &&
           tight == o.tight && key_digits == o.key_digits;
  }
};

struct ShapeMemo;

/// Where the program's ciphertext buffers live and how the scratchpad is divided.
struct FheStreamPlan {
  const FheMemoryPlan* mem = nullptr;  ///< chain geometry (resident layout not used)
  uint64_t spm_bytes = 0;
  // Scratchpad: tables [0, 64 KiB), key slots, ciphertext slots, working region.
  uint64_t slots_base = 0, slot_bytes = 0;
  uint32_t slots = 0;
  std::optional<uint64_t> cur_spm, opb_spm, d2_spm;  ///< ciphertext slots (none: HBM only)
  /// Constants tile (per-limb scalars P^-1, q_l^-1, 0, broadcast: a stand-in as the resident
  /// layout's constants buffer), below the working region, konst_limbs limbs at N_max.
  uint64_t konst_base = 0;
  uint32_t konst_limbs = 1;
  uint64_t work_base = 0, work_limit = 0;
  // HBM (offsets from noc.hbm_base): homes of the buffers, then the keys.
  uint64_t cur_home = 0, opb_home = 0, d2_home = 0, rot_home = 0, raised_home = 0, coeff_home = 0,
           accp_home = 0, tmp_home = 0;
  uint64_t key_base = 0, key_region_bytes = 0;
  uint64_t ct_bytes = 0;      ///< bytes of one ciphertext buffer (2 polys of q_slots limbs at N_max)
  std::vector<KeyId> pinned;  ///< key_policy pinned: the keys that keep a slot
  /// Per pinned key: the Q limbs of its highest-level use (what its slot loads, with the digits
  /// that use reads and the P limbs; L + 1 loads the whole key).
  std::vector<uint32_t> pinned_q_limbs;
  /// Shape costs measured under this plan or its trial variants, shared by the planner's probes
  /// and the lowerer (null: each lowerer measures for itself). See StreamLowerer::costs_of.
  std::shared_ptr<ShapeMemo> shapes;
};

class StreamLowerer;
/// A finishing step of a key switch, per Q tile: its operands (lo/n set per tile) and the
/// commands that combine ks_0, ks_1 (at tmp0, tmp1, before the P^-1 scaling) into the results.
struct KsFinish {
  std::vector<TileOperand> ops;
  std::function<void(StreamLowerer& l, const TileView& v, size_t at, uint64_t tmp0, uint64_t tmp1, uint32_t n,
                     uint32_t moduli)>
      emit;
};

class StreamLowerer {
 public:
  StreamLowerer(const RunConfig& cfg, const FheStreamPlan& plan, FheCommandWriter& w, FheKeyCache& keys,
                bool dry);
  ~StreamLowerer();

  /// Emits `op` (a composite: its sub-ops) through the op table's streamed emitter. Returns the
  /// shape of a leaf op ("" for a composite).
  std::string lower(const FheOp& op);
  /// The best shape of `op` for a working region of `bytes` (nullopt: none fits) and the
  /// region it needs. Memoised per op signature.
  std::optional<std::pair<StreamShape, uint64_t>> shape_for(const FheOp& op, uint64_t bytes);
  /// The bytes the smallest shape of `op` needs.
  uint64_t min_bytes(const FheOp& op);
  /// What a shape of an op costs (a dry run): the working region it needs, the HBM bytes it
  /// moves and its tiles (each a DMA/NTT handshake).
  struct ShapeCost {
    uint64_t spm = 0, hbm = 0, tiles = 0, prologue = 0;
  };
  ShapeCost measure(const FheOp& op, const StreamShape& sh);

  // Context of the op being lowered (valid inside the emitters).
  const FheOp* op = nullptr;
  StreamShape shape;
  uint32_t K = 0, L = 0, A = 0, beta = 0, log_n = 0;
  uint64_t lb = 0;  ///< bytes of one limb at the op's N
  /// dst = a (o) konst, or konst (o) a when `konst_first`, over n limbs (in commands of at most
  /// the constants tile's limbs).
  void with_konst(uint8_t o, uint64_t a, uint64_t dst, uint32_t n, uint32_t log_n, uint32_t moduli,
                  bool konst_first = false);

  // Buffers: the ciphertext buffers (slot or home) at the op's limb size.
  PolyRef cur() const;
  PolyRef opb() const;
  PolyRef d2() const;
  PolyRef home(uint64_t hbm, uint32_t polys_stride_limbs) const;
  /// A scratchpad buffer of `limbs` limbs per polynomial, `polys` polynomials, from the arena.
  PolyRef alloc(uint32_t limbs, uint32_t polys = 1);
  /// The key `id`: its slot (loaded whole on a miss) or its HBM copy (streamed per tile).
  PolyRef key(const KeyId& id);

  /// Tiles of `g` limbs over compact limbs [lo, hi) (never straddling K), whole or sliced per
  /// the shape; `make` fills a tile's operands and compute given its limb range.
  void map(uint32_t lo, uint32_t hi, bool whole,
           const std::function<void(Tile&, uint32_t lo, uint32_t n)>& make);
  /// Limb groups of [lo, hi) of at most `g` limbs, split at K.
  LimbRuns groups(uint32_t lo, uint32_t hi, uint32_t g) const;

  // Key switching (fhe_stream_key_switch.cpp): c (K limbs, NTT form) switched with key `k`; with
  /// `galois`, c is rotated by that NTT-domain automorphism as its limbs are read.
  void key_switch(const PolyRef& c, ByteClass c_cls, const PolyRef& k, const KsFinish& fin,
                  uint32_t galois = 0);
  /// HoistedRotate: one ModUp of c, then per key an automorphism, inner product and ModDown.
  void hoisted(const FheOp& op);
  KsFinish finish_add_both();
  /// (base + ks_0 P^-1, ks_1 P^-1) into `out`; with `galois`, base is rotated as it is read.
  KsFinish finish_rotation(const PolyRef& base, ByteClass base_cls, const PolyRef& out, uint32_t galois = 0);

  FheStreamer& s() { return streamer_; }
  /// The tile's operand `src` rotated by `galois` into operand `scratch` (its address), or
  /// operand `src` itself when galois is 0.
  uint64_t rotated(const TileView& v, size_t src, size_t scratch, uint32_t n, uint32_t moduli,
                   uint32_t galois);
  /// Runs tiles with the shape's buffering (FheStreamer::run); `weight`: in a dry run, how many
  /// times the tiles stand for their loop.
  void run(std::vector<Tile>& tiles, uint64_t weight = 1) { streamer_.run(tiles, shape.tight, weight); }
  const RunConfig& cfg;
  const FheStreamPlan& plan;
  bool dry;
  /// Key-digit buffers allowed (the planner sizes the working region without them, so that they
  /// never take the room of a ciphertext slot).
  bool allow_key_digits = true;
  /// Peak bytes of the working region during the current top-level op.
  uint64_t work_peak() const { return arena_.peak() - arena_.base(); }
  void reset_peak() { arena_.reset_peak(); }
  void drain() { streamer_.sync().drain(); }
  /// Pinned slots loaded so far (key_policy pinned).
  uint32_t pinned_in_use() const {
    uint32_t n = 0;
    for (bool b : pinned_loaded_) n += b;
    return n;
  }

 private:
  void set_op(const FheOp& op, const StreamShape& sh);
  /// Candidate shapes of `op`, best first.
  std::vector<StreamShape> candidates(const FheOp& op) const;
  std::string signature(const FheOp& op) const;

  struct DryContext;
  std::unique_ptr<DryContext> dry_ctx_;  ///< measures shapes (non-dry lowerers only)
  FheArena arena_;
  FheStreamer streamer_;
  FheKeyCache& keys_;
  std::map<KeyId, int> pinned_slot_;
  std::vector<bool> pinned_loaded_;
  using Costs = std::vector<std::pair<StreamShape, ShapeCost>>;
  /// The shapes of `op` measured so far: shared through plan.shapes when the costs depend only
  /// on the op, the shape and the residency (no key slots: a dry run's key loads then depend
  /// on no earlier run), else this lowerer's own.
  Costs& costs_of(const FheOp& op);
  std::map<std::string, Costs> measured_;
  /// shape_for's search (uncached).
  std::optional<std::pair<StreamShape, uint64_t>> choose_shape(const FheOp& op, uint64_t bytes);
  std::map<std::pair<std::string, uint64_t>, std::optional<std::pair<StreamShape, uint64_t>>> chosen_;
  friend struct ShapeMemo;
};

/// Shape costs by op signature and residency (ciphertext slots, constants tile width).
struct ShapeMemo {
  std::map<std::string, StreamLowerer::Costs> costs;
};

// The op table's streamed emitters (fhe_stream_ops.cpp, fhe_stream_key_switch.cpp).
void stream_add(StreamLowerer& l, const FheOp& op);
void stream_sub(StreamLowerer& l, const FheOp& op);
void stream_negate(StreamLowerer& l, const FheOp& op);
void stream_add_plain(StreamLowerer& l, const FheOp& op);
void stream_sub_plain(StreamLowerer& l, const FheOp& op);
void stream_mul_plain(StreamLowerer& l, const FheOp& op);
void stream_mul_scalar(StreamLowerer& l, const FheOp& op);
void stream_mul(StreamLowerer& l, const FheOp& op);
void stream_rescale(StreamLowerer& l, const FheOp& op);
void stream_mod_raise(StreamLowerer& l, const FheOp& op);
void stream_encode(StreamLowerer& l, const FheOp& op);
void stream_relinearize(StreamLowerer& l, const FheOp& op);
void stream_key_switch(StreamLowerer& l, const FheOp& op);
void stream_rotate(StreamLowerer& l, const FheOp& op);
void stream_hoisted_rotate(StreamLowerer& l, const FheOp& op);

/// Evaluation-key bytes the program reads from HBM (key_policy lru): with `slots` key slots
/// managed LRU (warm when fhe.keys_on_chip) every miss loads a whole key, or with `partial` (the
/// resident layout's slots) the part its use reads, 2 beta (K+alpha) limbs; with no slot, every
/// key switch streams that part of its key.
uint64_t fhe_key_traffic(const std::vector<FheOp>& ops, uint32_t slots, const RunConfig& cfg,
                         bool partial = false);

/// Plans the streamed layout of `ops` (checked) for `cfg` (`mem`: the chain geometry). Throws
/// Error naming "scratchpad.size_kib" with the size needed when the smallest shape of some op
/// does not fit, "hbm" when the buffers' homes do not fit in HBM.
FheStreamPlan plan_fhe_stream(const std::vector<FheOp>& ops, const RunConfig& cfg, const FheMemoryPlan& mem);

}  // namespace photon::fhe

// The FHE lowering's shared state and its emitters, split by concern: element-wise and
// limb-level ops (fhe_op_emitters.cpp), key switching (fhe_key_switch.cpp), dispatch and the
// program's prologue and epilogue (fhe_lowering.cpp). Not part of the library's interface.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "workloads/config/run_config.h"
#include "workloads/fhe/fhe_command_writer.h"
#include "workloads/fhe/fhe_key_cache.h"
#include "workloads/fhe/fhe_memory_plan.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

/// Per-op limb parameters: K = level+1 Q limbs, L = max_level, A = alpha P limbs, beta digits,
/// lb = bytes of one limb (N residues of `storage_bits` bits: ntt.storage_bits).
struct LimbCtx {
  uint32_t log_n, K, L, A, dnum, beta;
  uint64_t lb;
};
LimbCtx limb_ctx(const FheOp& op, uint32_t storage_bits);

/// One key switch's key, in the order the resident lowering acquires them: the key, the limb
/// parameters of the (sub-)op that reads it, and the index of its op in the program.
struct KeyAcquisition {
  KeyId key;
  LimbCtx c;
  size_t op;
};
/// Every key use of `ops`, in acquisition order (a composite op's sub-ops in sequence).
std::vector<KeyAcquisition> key_acquisitions(const std::vector<FheOp>& ops, const RunConfig& cfg);

class OpLowerer {
 public:
  /// `uses`: key_acquisitions(ops) of the ops that will be lowered, in that order (empty: every key is
  /// loaded when its key switch starts).
  OpLowerer(const RunConfig& cfg, const FheMemoryPlan& mem, FheKeyCache& keys, FheCommandWriter& w,
            std::vector<KeyAcquisition> uses = {})
      : cfg(cfg), fc(cfg.fhe), mem(mem), keys(keys), w(w), uses_(std::move(uses)) {}

  /// Emits `op` (a composite op: its sub-ops) through its row of the op table; `index` is its
  /// index in the program (KeyAcquisition::op), its row's tag the writer's current one.
  void lower(const FheOp& op, size_t index);

  // Addresses.
  uint32_t chain_off(uint32_t slot) const { return 8 * slot; }
  uint64_t off(uint64_t buf, uint32_t slot, const LimbCtx& c) const { return buf + uint64_t(slot) * c.lb; }
  uint64_t poly(uint64_t ct, int k) const { return mem.poly(ct, k); }
  void bconv(uint64_t src, Range from, uint64_t dst, Range to) { w.bconv(mem.chain, src, from, dst, to); }

  // Key switching (fhe_key_switch.cpp).
  /// Brings `key` into a slot (emitting its DMA and semaphores on a miss, unless the previous
  /// inner product acquired it ahead); returns the slot.
  int acquire_key(const LimbCtx& c, const KeyId& key);
  /// Before the first read of a freshly loaded slot: the NTT queue waits for its DMA.
  void wait_key(int slot);
  /// Emits the element-wise ops that turn tmp[k] limbs r (acc_Q - ModDown correction) into results.
  using Finish = std::function<void(int k, Range r)>;
  void mod_up(const LimbCtx& c, uint64_t src);
  void inner_product(const LimbCtx& c, const std::vector<uint64_t>& ext, uint64_t own, int slot);
  void mod_down(const LimbCtx& c, const Finish& finish);  // tmp[k] = acc_Q - NTT(BConv(INTT(acc_P)))
  void key_switch(const LimbCtx& c, uint64_t src, int slot, const Finish& finish);
  Finish finish_add_both(const LimbCtx& c);
  Finish finish_rotation(const LimbCtx& c, uint64_t base0, uint64_t out_ct);
  void rotate(const LimbCtx& c, const KeyId& key, uint64_t out_ct);
  /// Digit [js, je)'s ModUp targets: the other digits' Q limbs and the P limbs.
  std::vector<Range> targets(const LimbCtx& c, uint32_t js, uint32_t je) const;

  const RunConfig& cfg;
  const FheConfig& fc;
  const FheMemoryPlan& mem;
  FheKeyCache& keys;
  FheCommandWriter& w;

 private:
  /// Acquires `id` for a use with limb parameters `c` and emits its copy into the slot on a miss
  /// (a reload first waits until the NTT queue is done reading the slot); returns the slot.
  int load_key(const LimbCtx& c, const KeyId& id);

  std::vector<KeyAcquisition> uses_;
  size_t next_use_ = 0;  ///< uses_[next_use_] is the next acquire_key()
  size_t op_ = 0;        ///< index of the top-level op being lowered
  bool ahead_ = false;   ///< uses_[next_use_] was acquired by inner_product(), into ahead_slot_
  int ahead_slot_ = 0;
};

// The op table's emitters (one per row that emits commands).
void lower_add(OpLowerer& l, const FheOp& op);
void lower_sub(OpLowerer& l, const FheOp& op);
void lower_negate(OpLowerer& l, const FheOp& op);
void lower_add_plain(OpLowerer& l, const FheOp& op);
void lower_sub_plain(OpLowerer& l, const FheOp& op);
void lower_mul_plain(OpLowerer& l, const FheOp& op);
void lower_mul_scalar(OpLowerer& l, const FheOp& op);
void lower_mul(OpLowerer& l, const FheOp& op);
void lower_rescale(OpLowerer& l, const FheOp& op);
void lower_mod_raise(OpLowerer& l, const FheOp& op);
void lower_encode(OpLowerer& l, const FheOp& op);
void lower_relinearize(OpLowerer& l, const FheOp& op);
void lower_key_switch(OpLowerer& l, const FheOp& op);
void lower_rotate(OpLowerer& l, const FheOp& op);
void lower_hoisted_rotate(OpLowerer& l, const FheOp& op);

}  // namespace photon::fhe

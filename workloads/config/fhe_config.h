// FHE lowering configuration: parameters HEIR programs leave implicit, and bootstrapping.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

/// Evaluation-key residency (fhe.key_policy).
enum class KeyPolicy { Lru, None, Pinned };
inline const EnumTable<KeyPolicy>& key_policy_table() {
  static const EnumTable<KeyPolicy> t{{KeyPolicy::Lru, "lru"}, {KeyPolicy::None, "none"}, {KeyPolicy::Pinned, "pinned"}};
  return t;
}
/// Ciphertext residency (fhe.ct_policy).
enum class CtPolicy { Spill, Hottest, None };
inline const EnumTable<CtPolicy>& ct_policy_table() {
  static const EnumTable<CtPolicy> t{{CtPolicy::Spill, "spill"}, {CtPolicy::Hottest, "hottest"}, {CtPolicy::None, "none"}};
  return t;
}

/// Memory layout of an FHE program (fhe.layout).
enum class FheLayout { Auto, Resident, Streamed };
inline const EnumTable<FheLayout>& fhe_layout_table() {
  static const EnumTable<FheLayout> t{
      {FheLayout::Auto, "auto"}, {FheLayout::Resident, "resident"}, {FheLayout::Streamed, "streamed"}};
  return t;
}

/// Key-switch dataflow of the streamed layout (fhe.ks_dataflow; docs/fhe.md "Key switching with
/// little memory"). SimFHE's caching levels (Agrawal et al., MICRO 2023; SimFHE params.py
/// CacheStyle): `raised` is its ALPHA (and HUGE: the same traffic for one op), `transposed` its
/// CONST and BETA (the base conversions read slot-wise through HBM).
enum class KsDataflow { Auto, Raised, Transposed };
inline const EnumTable<KsDataflow>& ks_dataflow_table() {
  static const EnumTable<KsDataflow> t{
      {KsDataflow::Auto, "auto"}, {KsDataflow::Raised, "raised"}, {KsDataflow::Transposed, "transposed"}};
  return t;
}

struct FheConfig {
  uint32_t dnum = 0;  ///< key-switching decomposition number; 0 = derive (HEIR rule)
  // Bootstrapping (CKKS, Cheon-Han-Kim-Kim-Song style with BSGS linear transforms).
  uint32_t bootstrap_cts_levels = 3;      ///< CoeffToSlot levels consumed
  uint32_t bootstrap_stc_levels = 3;      ///< SlotToCoeff levels consumed
  uint32_t bootstrap_evalmod_levels = 8;  ///< EvalMod (Chebyshev + double angle) levels consumed
  uint32_t bootstrap_bsgs_rotations = 8;  ///< rotations per linear-transform level (BSGS)
  /// Ciphertext products (tensor + relinearize) in EvalMod: a degree-d Chebyshev interpolant by
  /// baby-step giant-step needs about 2*sqrt(d) + log2(d) of them, plus one per double-angle
  /// step (Han and Ki, CT-RSA 2020; Bossuat et al., Eurocrypt 2021). Spread over the EvalMod levels.
  uint32_t bootstrap_evalmod_hmults = 12;
  /// true: the evaluation keys that fit in the scratchpad are resident when the program starts
  /// (SHARP, ISCA 2023, and Homulator keep keys on chip); false: every key is first loaded from HBM.
  bool keys_on_chip = false;
  // Residency (docs/fhe.md "Memory plan"). When the whole working set and a key slot fit, every
  // policy but `none` gives the resident layout; otherwise data stream between HBM and the
  // scratchpad in limb groups.
  /// Evaluation keys: `lru` (whole keys in scratchpad slots, least recently used evicted), `none`
  /// (no reuse: every key switch reads its key from HBM, as SimFHE assumes; Agrawal et al., MICRO
  /// 2023), `pinned` (the keys used most often stay in slots for the whole program, the others
  /// stream from HBM at every use).
  KeyPolicy key_policy = KeyPolicy::Lru;
  /// Ciphertexts: `spill` (kept on chip while the op's working buffers leave room, spilled to HBM
  /// on demand), `hottest` (the most used ciphertexts get the scratchpad first, the op's working
  /// buffers what is left), `none` (every op reads its operands from HBM and writes its result
  /// back, as SimFHE assumes).
  CtPolicy ct_policy = CtPolicy::Spill;
  /// The most limbs per streamed group (one DMA and one command per group and polynomial): the
  /// planner takes fewer where a tile of that many does not fit; 0 = at most a quarter of the
  /// op's limbs, so that transfers overlap compute.
  uint32_t limb_group = 0;
  /// `auto`: the resident layout where it fits and its whole-key slots are not slower than
  /// streaming (docs/fhe.md "Memory plan"); `resident`: always (an error naming the scratchpad
  /// size it needs where it does not fit); `streamed`: always stream in limb tiles, so that a
  /// sweep can compare the two at one size.
  FheLayout layout = FheLayout::Auto;
  /// `auto`: each key switch takes the dataflow of least estimated time that fits; `raised`: the
  /// raised digits always go through HBM (never both accumulators on chip), the base conversions
  /// transposed through HBM only where even that does not fit; `transposed`: both base
  /// conversions always read slot-wise through HBM. A fixed dataflow implies the streamed layout.
  /// To compare with SimFHE, whose per-op traffic does not shrink as memory grows past its
  /// caching level (shared/reference/fhe_simfhe).
  KsDataflow ks_dataflow = KsDataflow::Auto;

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".dnum", &dnum, 0, 64, "key-switch decomposition number (0: derive)");
    ps.add_uint(p + ".bootstrap_cts_levels", &bootstrap_cts_levels, 1, 16, "CoeffToSlot levels");
    ps.add_uint(p + ".bootstrap_stc_levels", &bootstrap_stc_levels, 1, 16, "SlotToCoeff levels");
    ps.add_uint(p + ".bootstrap_evalmod_levels", &bootstrap_evalmod_levels, 1, 32, "EvalMod levels");
    ps.add_uint(p + ".bootstrap_bsgs_rotations", &bootstrap_bsgs_rotations, 1, 1024,
                "rotations per linear-transform level");
    ps.add_uint(p + ".bootstrap_evalmod_hmults", &bootstrap_evalmod_hmults, 1, 1024,
                "ciphertext products in EvalMod");
    ps.add_bool(p + ".keys_on_chip", &keys_on_chip,
                "evaluation keys resident in the scratchpad at program start (as many as fit)");
    ps.add_enum(
        p + ".key_policy", &key_policy, key_policy_table(),
        "evaluation-key residency: lru slots, none (read at every use, SimFHE), pinned by use count");
    ps.add_enum(
        p + ".ct_policy", &ct_policy, ct_policy_table(),
        "ciphertext residency: spill on demand, hottest first, none (HBM in and out per op, SimFHE)");
    ps.add_enum(p + ".layout", &layout, fhe_layout_table(),
                "memory layout: auto, resident (whole working set on chip), streamed (limb tiles)");
    ps.add_enum(p + ".ks_dataflow", &ks_dataflow, ks_dataflow_table(),
                "key-switch dataflow: auto, raised (digits through HBM, SimFHE ALPHA), transposed "
                "(slot-wise base conversions through HBM, SimFHE BETA/CONST)");
    ps.add_uint(p + ".limb_group", &limb_group, 0, 64,
                "most limbs per streamed group (0: a quarter of the limbs; fewer where a tile does not fit)");
  }
};

}  // namespace photon

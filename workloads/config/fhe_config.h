// FHE lowering configuration: parameters HEIR programs leave implicit, and bootstrapping.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

struct FheConfig {
  uint32_t word_bytes = 8;  ///< bytes per residue word in memory
  uint32_t dnum = 0;        ///< key-switching decomposition number; 0 = derive (HEIR rule)
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

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".word_bytes", &word_bytes, 4, 16, "bytes per residue word");
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
  }
};

}  // namespace photon

// CKKS bootstrapping as a sequence of scheme ops (Cheon, Han, Kim, Kim, Song, Eurocrypt 2018, with
// the BSGS linear transforms and the EvalMod of Han and Ki, CT-RSA 2020, and Bossuat et al.,
// Eurocrypt 2021); parameters in `fhe.bootstrap_*` (workloads/config/fhe_config.h).
#pragma once

#include <vector>

#include "workloads/config/fhe_config.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

/// The Bootstrap op with the chain it runs on: max_level raised to cts + evalmod + stc levels when
/// the program's L is smaller (the bootstrapping levels sit above the levels the program uses,
/// as in OpenFHE's level budget), dnum raised to cover it.
FheOp bootstrap_chain(FheOp op, const FheConfig& fc);
/// The sub-ops a Bootstrap expands into (on bootstrap_chain(op)): ModRaise to L, CoeffToSlot (per level: r
/// rotations, r plaintext products, r additions, a rescale), a conjugation + addition, EvalMod
/// (bootstrap_evalmod_hmults products + relinearizations spread over bootstrap_evalmod_levels,
/// a rescale per level), SlotToCoeff like CoeffToSlot. Throws Error if N/2 cannot hold the rotations.
std::vector<FheOp> bootstrap_sequence(const FheOp& op, const FheConfig& fc);

}  // namespace photon::fhe

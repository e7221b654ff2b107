#include "workloads/fhe/fhe_bootstrap.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace photon::fhe {

FheOp bootstrap_chain(FheOp op, const FheConfig& fc) {
  const uint32_t need = fc.bootstrap_cts_levels + fc.bootstrap_evalmod_levels + fc.bootstrap_stc_levels;
  if (op.max_level < need) {
    op.max_level = need;
    op.dnum = std::max(op.dnum, (need + op.alpha) / op.alpha);
  }
  return op;
}

std::vector<FheOp> bootstrap_sequence(const FheOp& in, const FheConfig& fc) {
  const FheOp op = bootstrap_chain(in, fc);
  const uint32_t L = op.max_level, c = fc.bootstrap_cts_levels, e = fc.bootstrap_evalmod_levels,
                 s = fc.bootstrap_stc_levels, r = fc.bootstrap_bsgs_rotations,
                 H = fc.bootstrap_evalmod_hmults;
  if (uint64_t(2) * (c + s) * r + 2 >= (uint64_t(1) << (op.log_n - 1)))
    throw Error("bootstrap: " + std::to_string((c + s) * r) + " rotations do not fit N/2 slots");
  std::vector<FheOp> seq;
  auto sub = [&](FheOpKind k, uint32_t level, const char* step, int64_t rot = 0) {
    FheOp o = op;
    o.kind = k;
    o.level = level;
    o.rotation = rot;
    o.count = 1;
    o.ct_degree = k == FheOpKind::Relinearize ? 2 : 1;
    o.name = std::string("bootstrap.") + step;
    seq.push_back(o);
  };
  sub(FheOpKind::ModRaise, op.level, "mod_raise");
  for (uint32_t i = 0; i < c; ++i) {  // CoeffToSlot: one BSGS linear-transform level each
    const uint32_t l = L - i;
    for (uint32_t j = 0; j < r; ++j) {
      sub(FheOpKind::Rotate, l, "coeff_to_slot", int64_t(1 + j + i * r));
      sub(FheOpKind::MulPlain, l, "coeff_to_slot");
      sub(FheOpKind::Add, l, "coeff_to_slot");
    }
    sub(FheOpKind::Rescale, l, "coeff_to_slot");
  }
  sub(FheOpKind::Conjugate, L - c, "conjugate");
  sub(FheOpKind::Add, L - c, "conjugate");
  for (uint32_t k = 0; k < e; ++k) {  // EvalMod
    const uint32_t l = L - c - k;
    const uint32_t mults = H / e + (k < H % e ? 1 : 0);
    for (uint32_t m = 0; m < mults; ++m) {
      sub(FheOpKind::Mul, l, "eval_mod");
      sub(FheOpKind::Relinearize, l, "eval_mod");
    }
    sub(FheOpKind::Rescale, l, "eval_mod");
  }
  for (uint32_t i = 0; i < s; ++i) {  // SlotToCoeff
    const uint32_t l = L - c - e - i;
    for (uint32_t j = 0; j < r; ++j) {
      sub(FheOpKind::Rotate, l, "slot_to_coeff", -int64_t(1 + j + i * r));
      sub(FheOpKind::MulPlain, l, "slot_to_coeff");
      sub(FheOpKind::Add, l, "slot_to_coeff");
    }
    sub(FheOpKind::Rescale, l, "slot_to_coeff");
  }
  return seq;
}

}  // namespace photon::fhe

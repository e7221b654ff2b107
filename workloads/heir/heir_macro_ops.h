// Expansion of Orion macro-ops into scheme operations (docs/heir.md, "Macro-ops").
#pragma once

#include <cstdint>
#include <vector>

namespace photon::heir {

/// Baby-step giant-step diagonal method for `orion.linear_transform` /
/// `openfhe.linear_transform` (Halevi-Shoup diagonals with BSGS as in Lattigo's
/// MultiplyByDiagMatrixBSGS, which HEIR's Orion path lowers to). Diagonal d (taken mod slots)
/// splits into a giant offset g = floor(d / n1) * n1 and a baby offset b = d mod n1:
/// result = sum_g rot_g( sum_b diag'_{g+b} * rot_b(ct) ).
///   n1 = Lattigo FindBestBSGSRatio (tuneinsight/lattigo hebase/utils.go): the largest power of
///        two with (#baby - 1) / (#giant - 1) <= max_ratio, scanning n1 = 1, 2, 4, ... < slots
///   baby rotations  = distinct nonzero b, hoisted on the input (one ModUp) -> one HoistedRotate
///   giant rotations = distinct nonzero g                                  -> one Rotate each
///   MulPlain = D (one per diagonal), Add = D - 1
struct LinearTransformPlan {
  uint32_t n1 = 1;                     ///< baby-step size
  uint32_t baby_rotations = 0;         ///< distinct nonzero baby offsets b
  std::vector<int64_t> giant_offsets;  ///< distinct nonzero giant offsets g, ascending
  uint32_t mul_plain = 0;
  uint32_t adds = 0;
};

/// `diagonals`: diagonal indices (slot offsets; reduced mod `slots`, a power of two);
/// `max_ratio` > 0: the baby:giant ratio bound (Orion's `bsgs_ratio`).
LinearTransformPlan plan_linear_transform(const std::vector<int64_t>& diagonals, int64_t slots,
                                          double max_ratio);

/// Polynomial evaluation for `orion.chebyshev` of degree d with the baby-step giant-step
/// Paterson-Stockmeyer variant (Bossuat et al. 2021, Alg. 2; Lattigo polynomial evaluator):
///   m = ceil(log2(d + 1)), l = floor(m / 2)
///   ciphertext products = (2^l - 1) baby powers + (m - l - 1) giant powers
///                         + (ceil((d + 1) / 2^l) - 1) recombinations
///   each product = Mul + Relinearize + Rescale; MulScalar = d + 1; Add = d.
struct PolyEvalPlan {
  uint32_t products = 0;
  uint32_t mul_scalar = 0;
  uint32_t adds = 0;
};

PolyEvalPlan plan_chebyshev(uint32_t degree);

}  // namespace photon::heir

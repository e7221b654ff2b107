#include "workloads/heir/heir_macro_ops.h"

#include <cmath>
#include <set>

#include "base/error.h"

namespace photon::heir {

namespace {

// Lattigo BSGSIndex: distinct giant offsets ((d / n1) * n1 mod slots) and baby offsets (d mod n1).
void split(const std::vector<int64_t>& diags, int64_t slots, int64_t n1, std::set<int64_t>* giant,
           std::set<int64_t>* baby) {
  for (int64_t d : diags) {
    int64_t r = d & (slots - 1);
    giant->insert(((r / n1) * n1) & (slots - 1));
    baby->insert(r & (n1 - 1));
  }
}

}  // namespace

LinearTransformPlan plan_linear_transform(const std::vector<int64_t>& diagonals, int64_t slots,
                                          double max_ratio) {
  if (diagonals.empty()) throw Error("linear transform without diagonals");
  if (slots < 2 || (slots & (slots - 1)))
    throw Error("linear transform: slots = " + std::to_string(slots) + " is not a power of two >= 2");
  if (!(max_ratio > 0)) throw Error("bsgs_ratio must be positive, got " + std::to_string(max_ratio));
  // FindBestBSGSRatio: ratio = (#baby - 1) / (#giant - 1) grows with n1.
  int64_t n1 = 1;  // Lattigo returns 1 when the scan ends without a decision
  for (int64_t cand = 1; cand < slots; cand <<= 1) {
    std::set<int64_t> giant, baby;
    split(diagonals, slots, cand, &giant, &baby);
    double nb_giant = static_cast<double>(giant.size()) - 1, nb_baby = static_cast<double>(baby.size()) - 1;
    if (nb_giant == 0 && nb_baby == 0) continue;  // 0/0 is NaN: no comparison holds
    double ratio = nb_giant == 0 ? HUGE_VAL : nb_baby / nb_giant;
    if (ratio == max_ratio) {
      n1 = cand;
      break;
    }
    if (ratio > max_ratio) {
      n1 = cand / 2;
      break;
    }
  }
  if (n1 < 1) n1 = 1;
  LinearTransformPlan p;
  p.n1 = static_cast<uint32_t>(n1);
  std::set<int64_t> giant, baby;
  split(diagonals, slots, n1, &giant, &baby);
  baby.erase(0);
  giant.erase(0);
  p.baby_rotations = static_cast<uint32_t>(baby.size());
  p.giant_offsets.assign(giant.begin(), giant.end());
  p.mul_plain = static_cast<uint32_t>(diagonals.size());
  p.adds = p.mul_plain - 1;
  return p;
}

PolyEvalPlan plan_chebyshev(uint32_t degree) {
  PolyEvalPlan p;
  if (degree == 0) return p;
  uint32_t m = 0;
  while ((1u << m) < degree + 1) ++m;
  uint32_t l = m / 2;
  uint32_t baby = (1u << l) - 1;
  uint32_t giant = m > l + 1 ? m - l - 1 : 0;
  uint32_t blocks = (degree + 1 + (1u << l) - 1) >> l;
  p.products = baby + giant + (blocks > 0 ? blocks - 1 : 0);
  p.mul_scalar = degree + 1;
  p.adds = degree;
  return p;
}

}  // namespace photon::heir

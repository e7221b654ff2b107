// The HEIR frontend's macro-op expansion: orion/openfhe linear transforms (BSGS diagonals) and
// Chebyshev polynomial evaluation, as scheme ops (plans in heir_macro_ops.h; docs/heir.md "Macro-ops").
#include <algorithm>
#include <cstdlib>

#include "base/error.h"
#include "workloads/heir/heir_frontend_internal.h"
#include "workloads/heir/heir_macro_ops.h"

namespace photon::heir {

using fhe::FheOp;
using fhe::FheOpKind;
using mlir::Attr;
using mlir::Operation;

void Frontend::expand_linear_transform(const Operation& op, Scope& s, const Value& in) {
  if (!in.ct) fail(op, "orion.linear_transform without a ciphertext operand");
  std::vector<int64_t> diags;
  if (const Attr* di = op.attr("diagonal_indices")) {
    for (const auto& [k, v] : di->items) {
      (void)k;
      long long x = 0;
      // `array<i32: 0, 1, ...>`: the first item is "i32 : 0"
      const Attr* a = v.get();
      if (a->kind == Attr::Kind::Scalar && !a->items.empty()) a = a->items.back().second.get();
      if (!mlir::scalar_int(a, &x)) fail(op, "diagonal_indices: expected an integer, got '" + v->str() + "'");
      diags.push_back(x);
    }
  }
  long long count = 0;
  if (mlir::scalar_int(op.attr("diagonal_count"), &count) && (count < 0 || count > (1 << 20)))
    fail(op, "diagonal_count = " + std::to_string(count) + " out of range [0, 2^20]");
  if (count > 0 && diags.empty())
    for (long long i = 0; i < count; ++i) diags.push_back(i);
  if (diags.empty()) fail(op, "orion.linear_transform needs diagonal_indices or diagonal_count");
  if (count > 0 && static_cast<size_t>(count) != diags.size())
    prog_.warnings.push_back(op.loc.str() + ": diagonal_count = " + std::to_string(count) +
                             " but diagonal_indices has " + std::to_string(diags.size()) + " entries");
  // Orion: bsgs_ratio (the baby:giant bound); openfhe: logBabyStepGiantStepRatio (its log2).
  double ratio = 2.0;
  long long log_ratio = 0;
  if (const Attr* r = op.attr("bsgs_ratio"))
    ratio = std::strtod(r->text.c_str(), nullptr);
  else if (mlir::scalar_int(op.attr("logBabyStepGiantStepRatio"), &log_ratio) && log_ratio >= 0 &&
           log_ratio < 30)
    ratio = static_cast<double>(1LL << log_ratio);
  long long slots = 0;
  if (!mlir::scalar_int(op.attr("slots"), &slots)) slots = 1LL << std::max(1, pp_.log_n - 1);  // CKKS: N/2
  LinearTransformPlan p;
  try {
    p = plan_linear_transform(diags, slots, ratio);
  } catch (Error& e) {
    e.with_context(op.loc.str());
    throw;
  }
  if (p.baby_rotations > 0) {
    FheOp h = make(op, FheOpKind::HoistedRotate, in);
    h.count = p.baby_rotations;
    h.rotation = 1;
    push(h);
  }
  for (uint32_t i = 0; i < p.mul_plain; ++i) push(make(op, FheOpKind::MulPlain, in));
  for (int64_t g : p.giant_offsets) {
    FheOp r = make(op, FheOpKind::Rotate, in);
    r.rotation = g;
    push(r);
  }
  for (uint32_t i = 0; i < p.adds; ++i) push(make(op, FheOpKind::Add, in));
  bind_results(op, s, in, FheOpKind::Add, true);
}

void Frontend::expand_chebyshev(const Operation& op, Scope& s, const Value& in) {
  if (!in.ct) fail(op, "orion.chebyshev without a ciphertext operand");
  long long degree = -1;
  if (const Attr* co = op.attr("coefficients")) degree = static_cast<long long>(co->items.size()) - 1;
  if (degree < 0 && !mlir::scalar_int(op.attr("degree"), &degree))
    fail(op, "orion.chebyshev needs `coefficients` or `degree`");
  if (degree < 0 || degree > (1 << 16))
    fail(op, "orion.chebyshev degree " + std::to_string(degree) + " out of range [0, 65536]");
  PolyEvalPlan p = plan_chebyshev(static_cast<uint32_t>(degree));
  Value cur = in;
  for (uint32_t i = 0; i < p.products; ++i) {
    push(make(op, FheOpKind::Mul, cur));
    Value d2 = cur;
    d2.degree = 2;
    push(make(op, FheOpKind::Relinearize, d2));
    push(make(op, FheOpKind::Rescale, cur));
  }
  for (uint32_t i = 0; i < p.mul_scalar; ++i) push(make(op, FheOpKind::MulScalar, in));
  for (uint32_t i = 0; i < p.adds; ++i) push(make(op, FheOpKind::Add, in));
  bind_results(op, s, in, FheOpKind::Add, true);
}

}  // namespace photon::heir

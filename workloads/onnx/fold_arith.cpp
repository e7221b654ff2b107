// Element-wise arithmetic of the constant folder: Add, Sub, Mul, Div, Pow, Equal, Less, Greater,
// Neg, Sqrt, Cast, Where (fold_ops.h).
#include "workloads/onnx/fold_ops.h"

#include <cmath>

#include "base/error.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {

using TP = onnx::TensorProto;

namespace {

bool is_compare(Bin op) { return op == Bin::Equal || op == Bin::Less || op == Bin::Greater; }

double apply_f(Bin op, double a, double b) {
  switch (op) {
    case Bin::Add: return a + b;
    case Bin::Sub: return a - b;
    case Bin::Mul: return a * b;
    case Bin::Div: return a / b;
    case Bin::Pow: return std::pow(a, b);
    case Bin::Equal: return a == b;
    case Bin::Less: return a < b;
    case Bin::Greater: return a > b;
  }
  return 0;
}

// Integer semantics (division truncates toward zero as in C); false on division by zero.
bool apply_i(Bin op, int64_t a, int64_t b, int64_t* r) {
  switch (op) {
    case Bin::Add: *r = a + b; return true;
    case Bin::Sub: *r = a - b; return true;
    case Bin::Mul: *r = a * b; return true;
    case Bin::Div:
      if (b == 0) return false;
      *r = a / b;
      return true;
    case Bin::Pow: *r = static_cast<int64_t>(std::llround(std::pow(double(a), double(b)))); return true;
    case Bin::Equal: *r = a == b; return true;
    case Bin::Less: *r = a < b; return true;
    case Bin::Greater: *r = a > b; return true;
  }
  return false;
}

}  // namespace

bool fold_binary(Bin op, const std::vector<FoldInput>& in, std::vector<ConstValue>* out) {
  const ConstValue& a = need(in, 0);
  const ConstValue& b = need(in, 1);
  ConstValue r;
  r.elem_type = is_compare(op) ? TP::BOOL : a.elem_type;
  r.shape = broadcast_shape(a.shape, b.shape);
  const bool int_math = a.is_int() && b.is_int();
  const bool int_out = r.is_int();
  auto eval = [&](int64_t ka, int64_t kb, int64_t* ri, float* rf) {
    if (int_math) {
      int64_t v;
      if (!apply_i(op, a.int_at(ka), b.int_at(kb), &v)) return false;
      if (int_out)
        *ri = v;
      else
        *rf = static_cast<float>(v);
    } else {
      const double v = apply_f(op, a.num_at(ka), b.num_at(kb));
      if (int_out)
        *ri = static_cast<int64_t>(v);
      else
        *rf = static_cast<float>(v);
    }
    return true;
  };
  if (a.splat && b.splat) {
    r.splat = true;
    if (!eval(0, 0, &r.splat_i, &r.splat_f)) return false;
    out->push_back(std::move(r));
    return true;
  }
  const int64_t n = shape_numel(r.shape);
  if (!within_budget(n, in)) return false;
  if (int_out)
    r.i.resize(static_cast<size_t>(n));
  else
    r.f.resize(static_cast<size_t>(n));
  const Shape sa = a.splat ? Shape(r.shape.size(), 0) : broadcast_strides(a.shape, r.shape);
  const Shape sb = b.splat ? Shape(r.shape.size(), 0) : broadcast_strides(b.shape, r.shape);
  bool ok = true;
  strided_loop(r.shape, {sa, sb}, {0, 0}, [&](int64_t k, const Shape& o) {
    int64_t ri = 0;
    float rf = 0;
    ok = ok && eval(o[0], o[1], &ri, &rf);
    if (int_out)
      r.i[static_cast<size_t>(k)] = ri;
    else
      r.f[static_cast<size_t>(k)] = rf;
  });
  if (!ok) return false;
  out->push_back(std::move(r));
  return true;
}

// Neg (`neg`) or Sqrt; Sqrt of an integer tensor is not folded.
bool fold_unary(const ConstValue& a, bool neg, std::vector<ConstValue>* out) {
  ConstValue r = a;
  auto fn = [&](double v) { return neg ? -v : std::sqrt(v); };
  if (r.is_int()) {
    if (!neg) return false;
    if (r.splat) r.splat_i = -r.splat_i;
    for (auto& v : r.i) v = -v;
  } else {
    if (r.splat) r.splat_f = static_cast<float>(fn(r.splat_f));
    for (auto& v : r.f) v = static_cast<float>(fn(v));
  }
  out->push_back(std::move(r));
  return true;
}

bool fold_cast(const ConstValue& a, int32_t to, std::vector<ConstValue>* out) {
  if (!onnx_is_integer_type(to) && !onnx_is_float_type(to)) return false;
  ConstValue r;
  r.elem_type = to;
  r.shape = a.shape;
  r.splat = a.splat;
  const int64_t n = a.stored();
  const bool to_bool = to == TP::BOOL;
  if (onnx_is_integer_type(to)) {
    auto conv = [&](int64_t k) -> int64_t {
      if (to_bool) return a.num_at(k) != 0;
      return a.int_at(k);  // float -> int truncates toward zero
    };
    if (a.splat)
      r.splat_i = conv(0);
    else {
      r.i.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) r.i[static_cast<size_t>(k)] = conv(k);
    }
  } else {
    if (a.splat)
      r.splat_f = static_cast<float>(a.num_at(0));
    else {
      r.f.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) r.f[static_cast<size_t>(k)] = static_cast<float>(a.num_at(k));
    }
  }
  out->push_back(std::move(r));
  return true;
}

bool fold_where(const std::vector<FoldInput>& in, std::vector<ConstValue>* out) {
  const ConstValue& c = need(in, 0);
  const ConstValue& x = need(in, 1);
  const ConstValue& y = need(in, 2);
  ConstValue r;
  r.elem_type = x.elem_type;
  r.shape = broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape);
  if (c.splat && x.splat && y.splat) {
    const ConstValue& pick = c.int_at(0) ? x : y;
    r.splat = true;
    r.splat_f = pick.splat_f;
    r.splat_i = pick.splat_i;
    out->push_back(std::move(r));
    return true;
  }
  const int64_t n = shape_numel(r.shape);
  if (!within_budget(n, in)) return false;
  auto strides = [&](const ConstValue& v) {
    return v.splat ? Shape(r.shape.size(), 0) : broadcast_strides(v.shape, r.shape);
  };
  if (r.is_int())
    r.i.resize(static_cast<size_t>(n));
  else
    r.f.resize(static_cast<size_t>(n));
  strided_loop(r.shape, {strides(c), strides(x), strides(y)}, {0, 0, 0}, [&](int64_t k, const Shape& o) {
    const ConstValue& pick = c.int_at(o[0]) ? x : y;
    const int64_t pk = c.int_at(o[0]) ? o[1] : o[2];
    if (r.is_int())
      r.i[static_cast<size_t>(k)] = pick.int_at(pk);
    else
      r.f[static_cast<size_t>(k)] = static_cast<float>(pick.num_at(pk));
  });
  out->push_back(std::move(r));
  return true;
}

}  // namespace photon::onnx_frontend

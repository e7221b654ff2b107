#include "workloads/onnx/const_fold.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "workloads/onnx/tensor_io.h"

namespace photon {
namespace {

using Shape = std::vector<int64_t>;
using TP = onnx::TensorProto;

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t dflt) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : dflt;
}

bool attr_ints(const onnx::NodeProto& n, const std::string& name, Shape* out) {
  const auto* a = find_attr(n, name);
  if (!a) return false;
  out->assign(a->ints().begin(), a->ints().end());
  return true;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const char* what) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    throw Error(std::string(what) + " " + std::to_string(axis) + " out of range for rank " +
                std::to_string(rank));
  }
  return a;
}

const ConstValue& need(const std::vector<FoldInput>& in, size_t k) {
  if (k >= in.size() || !in[k].value) throw Error("input " + std::to_string(k) + " is missing");
  return *in[k].value;
}

bool has(const std::vector<FoldInput>& in, size_t k) { return k < in.size() && in[k].value; }

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// numpy broadcast of two shapes (ONNX "multidirectional broadcasting").
Shape broadcast_shape(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t k = 0; k < r; ++k) {
    const int64_t da = k < r - a.size() ? 1 : a[k - (r - a.size())];
    const int64_t db = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    }
    out[k] = da == 1 ? db : da;
  }
  return out;
}

// Strides of `in` seen through a broadcast to `out` (0 on broadcast dimensions).
Shape broadcast_strides(const Shape& in, const Shape& out) {
  const Shape cs = contiguous_strides(in);
  Shape st(out.size(), 0);
  const size_t off = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) st[k + off] = in[k] == 1 ? 0 : cs[k];
  return st;
}

// Visits every element of `out_shape` in row-major order, calling f(out_flat, offsets) where
// offsets[j] = base[j] + sum_d index[d] * strides[j][d].
template <typename F>
void strided_loop(const Shape& out_shape, const std::vector<Shape>& strides, Shape off, F f) {
  const int64_t n = shape_numel(out_shape);
  const size_t r = out_shape.size();
  Shape idx(r, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(flat, off);
    for (size_t d = r; d-- > 0;) {
      for (size_t j = 0; j < strides.size(); ++j) off[j] += strides[j][d];
      if (++idx[d] < out_shape[d]) break;
      for (size_t j = 0; j < strides.size(); ++j) off[j] -= strides[j][d] * out_shape[d];
      idx[d] = 0;
    }
  }
}

// A view of `in` with `out_shape`: element k of the result is in[base + sum idx*strides].
ConstValue strided_copy(const ConstValue& in, const Shape& out_shape, const Shape& strides, int64_t base) {
  ConstValue out;
  out.elem_type = in.elem_type;
  out.shape = out_shape;
  if (in.splat) {
    out.splat = true;
    out.splat_f = in.splat_f;
    out.splat_i = in.splat_i;
    return out;
  }
  auto run = [&](const auto& src, auto& dst) {
    dst.resize(static_cast<size_t>(shape_numel(out_shape)));
    strided_loop(out_shape, {strides}, {base},
                 [&](int64_t k, const Shape& o) { dst[k] = src[static_cast<size_t>(o[0])]; });
  };
  if (in.is_int())
    run(in.i, out.i);
  else
    run(in.f, out.f);
  return out;
}

ConstValue with_shape(const ConstValue& in, Shape shape) {
  if (shape_numel(shape) != in.numel()) {
    throw Error("cannot reshape " + shape_str(in.shape) + " to " + shape_str(shape));
  }
  ConstValue out = in;
  out.shape = std::move(shape);
  return out;
}

bool within_budget(int64_t out_numel, const std::vector<FoldInput>& in) {
  int64_t dense = 0;
  for (const auto& x : in) {
    if (x.value) dense += x.value->stored();
  }
  return out_numel <= std::max(kMaxFoldElements, dense);
}

ConstValue decode(const TP& t) {
  ConstValue c;
  c.elem_type = t.data_type();
  c.shape.assign(t.dims().begin(), t.dims().end());
  decode_tensor_values(t, &c.f, &c.i);
  return c;
}

// ---- element-wise arithmetic ----

enum class Bin { Add, Sub, Mul, Div, Pow, Equal, Less, Greater };

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

// ---- shape and data movement ----

ConstValue fold_shape(const Shape& s, const onnx::NodeProto& node, int64_t opset) {
  const auto rank = static_cast<int64_t>(s.size());
  int64_t start = 0, end = rank;
  if (opset >= 15) {
    start = attr_int(node, "start", 0);
    end = attr_int(node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
  }
  Shape v;
  for (int64_t k = start; k < end; ++k) v.push_back(s[static_cast<size_t>(k)]);
  const auto len = static_cast<int64_t>(v.size());
  return ConstValue::make_ints({len}, std::move(v));
}

Shape reshape_target(const Shape& in, const Shape& spec, bool allowzero) {
  Shape out = spec;
  int64_t known = 1;
  int infer = -1;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 0 && !allowzero) {
      if (k >= in.size()) throw Error("Reshape: 0 at position " + std::to_string(k) + " beyond input rank");
      out[k] = in[k];
    }
    if (out[k] == -1) {
      if (infer >= 0) throw Error("Reshape: more than one -1 in " + shape_str(spec));
      infer = static_cast<int>(k);
    } else if (out[k] < 0) {
      throw Error("Reshape: invalid dimension " + std::to_string(out[k]));
    } else {
      known *= out[k];
    }
  }
  const int64_t n = shape_numel(in);
  if (infer >= 0) {
    if (known == 0 || n % known)
      throw Error("Reshape: cannot infer -1 for " + shape_str(in) + " -> " + shape_str(spec));
    out[static_cast<size_t>(infer)] = n / known;
  } else if (known != n) {
    throw Error("Reshape: target shape " + shape_str(out) + " has " + std::to_string(known) +
                " elements, input " + shape_str(in) + " has " + std::to_string(n));
  }
  return out;
}

ConstValue fold_squeeze(const ConstValue& a, const Shape* axes_in) {
  const auto rank = static_cast<int64_t>(a.shape.size());
  std::set<int64_t> axes;
  if (axes_in) {
    for (int64_t ax : *axes_in) {
      const int64_t n = normalize_axis(ax, rank, "Squeeze axis");
      if (a.shape[static_cast<size_t>(n)] != 1)
        throw Error("Squeeze: dimension " + std::to_string(n) + " is not 1");
      axes.insert(n);
    }
  }
  Shape out;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t d = a.shape[static_cast<size_t>(k)];
    const bool drop = axes_in ? axes.count(k) != 0 : d == 1;
    if (!drop) out.push_back(d);
  }
  return with_shape(a, out);
}

ConstValue fold_unsqueeze(const ConstValue& a, const Shape& axes_in) {
  const auto out_rank = static_cast<int64_t>(a.shape.size() + axes_in.size());
  std::set<int64_t> axes;
  for (int64_t ax : axes_in) axes.insert(normalize_axis(ax, out_rank, "Unsqueeze axis"));
  if (axes.size() != axes_in.size()) throw Error("Unsqueeze: repeated axis");
  Shape out;
  size_t src = 0;
  for (int64_t k = 0; k < out_rank; ++k) out.push_back(axes.count(k) ? 1 : a.shape[src++]);
  return with_shape(a, out);
}

ConstValue fold_transpose(const ConstValue& a, Shape perm) {
  const size_t r = a.shape.size();
  if (perm.empty()) {
    for (size_t k = r; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  }
  if (perm.size() != r)
    throw Error("Transpose: perm has " + std::to_string(perm.size()) + " entries for rank " +
                std::to_string(r));
  const Shape cs = contiguous_strides(a.shape);
  Shape out_shape(r), st(r);
  for (size_t d = 0; d < r; ++d) {
    const int64_t p = normalize_axis(perm[d], static_cast<int64_t>(r), "Transpose perm");
    out_shape[d] = a.shape[static_cast<size_t>(p)];
    st[d] = cs[static_cast<size_t>(p)];
  }
  return strided_copy(a, out_shape, st, 0);
}

ConstValue fold_slice(const ConstValue& a, const Shape& starts, const Shape& ends, Shape axes, Shape steps) {
  const auto rank = static_cast<int64_t>(a.shape.size());
  if (starts.size() != ends.size()) throw Error("Slice: starts and ends differ in length");
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    throw Error("Slice: axes/steps length differs from starts");
  const Shape cs = contiguous_strides(a.shape);
  Shape out_shape = a.shape, st = cs;
  int64_t base = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t ax = normalize_axis(axes[k], rank, "Slice axis");
    const int64_t dim = a.shape[static_cast<size_t>(ax)];
    const int64_t step = steps[k];
    if (step == 0) throw Error("Slice: step 0");
    int64_t s = starts[k], e = ends[k];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    int64_t count;
    if (dim == 0) {
      count = 0;
    } else if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count = s > e ? (s - e - step - 1) / (-step) : 0;
    }
    out_shape[static_cast<size_t>(ax)] = count;
    st[static_cast<size_t>(ax)] = cs[static_cast<size_t>(ax)] * step;
    if (count > 0) base += s * cs[static_cast<size_t>(ax)];
  }
  return strided_copy(a, out_shape, st, base);
}

bool fold_gather(const ConstValue& a, const ConstValue& idx, int64_t axis_attr,
                 const std::vector<FoldInput>& in, std::vector<ConstValue>* out) {
  const auto rank = static_cast<int64_t>(a.shape.size());
  const int64_t axis = normalize_axis(axis_attr, rank, "Gather axis");
  const int64_t dim = a.shape[static_cast<size_t>(axis)];
  Shape out_shape(a.shape.begin(), a.shape.begin() + axis);
  out_shape.insert(out_shape.end(), idx.shape.begin(), idx.shape.end());
  out_shape.insert(out_shape.end(), a.shape.begin() + axis + 1, a.shape.end());
  const Shape ids = idx.ints();
  for (int64_t v : ids) {
    if (v < -dim || v >= dim)
      throw Error("Gather: index " + std::to_string(v) + " out of range for dimension " +
                  std::to_string(dim));
  }
  if (a.splat) {
    out->push_back(ConstValue(a));
    out->back().shape = out_shape;
    return true;
  }
  if (!within_budget(shape_numel(out_shape), in)) return false;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= a.shape[static_cast<size_t>(k)];
  for (int64_t k = axis + 1; k < rank; ++k) inner *= a.shape[static_cast<size_t>(k)];
  ConstValue r;
  r.elem_type = a.elem_type;
  r.shape = out_shape;
  auto run = [&](const auto& src, auto& dst) {
    dst.reserve(static_cast<size_t>(shape_numel(out_shape)));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t v : ids) {
        const int64_t j = v < 0 ? v + dim : v;
        const auto first = src.begin() + (o * dim + j) * inner;
        dst.insert(dst.end(), first, first + inner);
      }
    }
  };
  if (a.is_int())
    run(a.i, r.i);
  else
    run(a.f, r.f);
  out->push_back(std::move(r));
  return true;
}

bool fold_concat(const std::vector<FoldInput>& in, int64_t axis_attr, std::vector<ConstValue>* out) {
  const ConstValue& first = need(in, 0);
  const auto rank = static_cast<int64_t>(first.shape.size());
  const int64_t axis = normalize_axis(axis_attr, rank, "Concat axis");
  Shape out_shape = first.shape;
  out_shape[static_cast<size_t>(axis)] = 0;
  bool same_splat = true;
  for (size_t k = 0; k < in.size(); ++k) {
    const ConstValue& v = need(in, k);
    if (static_cast<int64_t>(v.shape.size()) != rank) throw Error("Concat: inputs differ in rank");
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && v.shape[static_cast<size_t>(d)] != first.shape[static_cast<size_t>(d)]) {
        throw Error("Concat: shapes " + shape_str(first.shape) + " and " + shape_str(v.shape) +
                    " differ off the axis");
      }
    }
    out_shape[static_cast<size_t>(axis)] += v.shape[static_cast<size_t>(axis)];
    same_splat = same_splat && v.splat && v.elem_type == first.elem_type && v.splat_f == first.splat_f &&
                 v.splat_i == first.splat_i;
  }
  ConstValue r;
  r.elem_type = first.elem_type;
  r.shape = out_shape;
  if (same_splat) {
    r.splat = true;
    r.splat_f = first.splat_f;
    r.splat_i = first.splat_i;
    out->push_back(std::move(r));
    return true;
  }
  if (!within_budget(shape_numel(out_shape), in)) return false;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out_shape[static_cast<size_t>(d)];
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto& x : in) {
      const ConstValue& v = *x.value;
      const int64_t block = outer ? v.numel() / outer : 0;
      for (int64_t e = 0; e < block; ++e) {
        const int64_t k = v.splat ? 0 : o * block + e;
        if (r.is_int())
          r.i.push_back(v.int_at(k));
        else
          r.f.push_back(static_cast<float>(v.num_at(k)));
      }
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

bool fold_range(const std::vector<FoldInput>& in, std::vector<ConstValue>* out) {
  const ConstValue& s = need(in, 0);
  const ConstValue& l = need(in, 1);
  const ConstValue& d = need(in, 2);
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1)
    throw Error("Range: start, limit and delta must be scalars");
  ConstValue r;
  r.elem_type = s.elem_type;
  if (s.is_int()) {
    const int64_t a = s.int_at(0), b = l.int_at(0), st = d.int_at(0);
    if (st == 0) throw Error("Range: delta is 0");
    const int64_t n = std::max<int64_t>(0, st > 0 ? (b - a + st - 1) / st : (a - b - st - 1) / (-st));
    if (n > kMaxFoldElements) return false;
    for (int64_t k = 0; k < n; ++k) r.i.push_back(a + k * st);
    r.shape = {n};
  } else {
    const double a = s.num_at(0), b = l.num_at(0), st = d.num_at(0);
    if (st == 0) throw Error("Range: delta is 0");
    if (!std::isfinite((b - a) / st)) throw Error("Range: start, limit and delta must be finite");
    const auto n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((b - a) / st)));
    if (n > kMaxFoldElements) return false;
    for (int64_t k = 0; k < n; ++k) r.f.push_back(static_cast<float>(a + k * st));
    r.shape = {n};
  }
  out->push_back(std::move(r));
  return true;
}

bool fold_constant(const onnx::NodeProto& node, std::vector<ConstValue>* out) {
  for (const auto& a : node.attribute()) {
    if (a.name() == "value") {
      out->push_back(decode(a.t()));
      return true;
    }
    if (a.name() == "value_float") {
      out->push_back(ConstValue::make_splat(TP::FLOAT, {}, a.f()));
      out->back().materialize();
      return true;
    }
    if (a.name() == "value_int") {
      out->push_back(ConstValue::make_ints({}, {a.i()}));
      return true;
    }
    if (a.name() == "value_floats") {
      ConstValue c;
      c.shape = {a.floats_size()};
      c.f.assign(a.floats().begin(), a.floats().end());
      out->push_back(std::move(c));
      return true;
    }
    if (a.name() == "value_ints") {
      out->push_back(ConstValue::make_ints({a.ints_size()}, Shape(a.ints().begin(), a.ints().end())));
      return true;
    }
  }
  throw Error("Constant has no supported value attribute (value, value_float(s), value_int(s))");
}

ConstValue fold_constant_of_shape(const onnx::NodeProto& node, const ConstValue& shape_in) {
  Shape shape = shape_in.ints();
  for (int64_t d : shape) {
    if (d < 0) throw Error("ConstantOfShape: negative dimension in " + shape_str(shape));
  }
  ConstValue r;
  r.shape = shape;
  r.splat = true;
  if (const auto* a = find_attr(node, "value")) {
    const ConstValue v = decode(a->t());
    if (v.numel() != 1) throw Error("ConstantOfShape: value must hold one element");
    r.elem_type = v.elem_type;
    if (v.is_int())
      r.splat_i = v.i[0];
    else
      r.splat_f = v.f[0];
  }
  if (r.numel() <= 1) r.materialize();
  return r;
}

// ---- the table: one rule per op type ----

/// The arguments of one fold.
struct Call {
  const onnx::NodeProto& node;
  int64_t opset;
  const std::vector<FoldInput>& in;
  std::vector<ConstValue>* out;
  const ConstValue& arg(size_t k) const { return need(in, k); }
  bool emit(ConstValue v) const {
    out->push_back(std::move(v));
    return true;
  }
};

const Shape& input_shape(const Call& c) {
  if (c.in.empty() || !c.in[0].shape) throw Error(c.node.op_type() + ": input shape unknown");
  return *c.in[0].shape;
}

// Squeeze/Unsqueeze axes: the attribute before opset 13, input 1 from opset 13; false if absent.
bool squeeze_axes(const Call& c, Shape* axes) {
  if (c.opset < 13) return attr_ints(c.node, "axes", axes);
  if (!has(c.in, 1)) return false;
  *axes = c.in[1].value->ints();
  return true;
}

bool fold_constant_op(const Call& c) { return fold_constant(c.node, c.out); }
bool fold_constant_of_shape_op(const Call& c) { return c.emit(fold_constant_of_shape(c.node, c.arg(0))); }
bool fold_shape_op(const Call& c) { return c.emit(fold_shape(input_shape(c), c.node, c.opset)); }
bool fold_size_op(const Call& c) { return c.emit(ConstValue::make_ints({}, {shape_numel(input_shape(c))})); }
bool fold_identity_op(const Call& c) { return c.emit(c.arg(0)); }
bool fold_cast_op(const Call& c) {
  return fold_cast(c.arg(0), static_cast<int32_t>(attr_int(c.node, "to", TP::FLOAT)), c.out);
}
bool fold_neg_op(const Call& c) { return fold_unary(c.arg(0), true, c.out); }
bool fold_sqrt_op(const Call& c) { return fold_unary(c.arg(0), false, c.out); }
template <Bin B>
bool fold_binary_op(const Call& c) {
  return fold_binary(B, c.in, c.out);
}

bool fold_reshape_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape spec;
  if (c.opset < 5)
    attr_ints(c.node, "shape", &spec);
  else
    spec = c.arg(1).ints();
  return c.emit(with_shape(a, reshape_target(a.shape, spec, attr_int(c.node, "allowzero", 0) != 0)));
}

bool fold_flatten_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  const auto rank = static_cast<int64_t>(a.shape.size());
  int64_t axis = attr_int(c.node, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) throw Error("Flatten: axis out of range");
  int64_t lead = 1;
  for (int64_t k = 0; k < axis; ++k) lead *= a.shape[static_cast<size_t>(k)];
  return c.emit(with_shape(a, {lead, lead ? a.numel() / lead : 0}));
}

bool fold_squeeze_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape axes;
  const bool have_axes = squeeze_axes(c, &axes);
  return c.emit(fold_squeeze(a, have_axes ? &axes : nullptr));
}

bool fold_unsqueeze_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape axes;
  if (!squeeze_axes(c, &axes)) throw Error("Unsqueeze: axes missing");
  return c.emit(fold_unsqueeze(a, axes));
}

bool fold_transpose_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape perm;
  attr_ints(c.node, "perm", &perm);
  if (!a.splat && !within_budget(a.numel(), c.in)) return false;
  return c.emit(fold_transpose(a, perm));
}

bool fold_expand_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  const Shape target = broadcast_shape(a.shape, c.arg(1).ints());
  if (!a.splat && !within_budget(shape_numel(target), c.in)) return false;
  return c.emit(strided_copy(a, target, broadcast_strides(a.shape, target), 0));
}

bool fold_slice_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  Shape starts, ends, axes, steps;
  if (c.opset < 10) {
    attr_ints(c.node, "starts", &starts);
    attr_ints(c.node, "ends", &ends);
    attr_ints(c.node, "axes", &axes);
  } else {
    starts = c.arg(1).ints();
    ends = c.arg(2).ints();
    if (has(c.in, 3)) axes = c.in[3].value->ints();
    if (has(c.in, 4)) steps = c.in[4].value->ints();
  }
  return c.emit(fold_slice(a, starts, ends, axes, steps));
}

bool fold_gather_op(const Call& c) {
  const ConstValue& a = c.arg(0);
  return fold_gather(a, c.arg(1), attr_int(c.node, "axis", 0), c.in, c.out);
}
bool fold_concat_op(const Call& c) { return fold_concat(c.in, attr_int(c.node, "axis", 0), c.out); }
bool fold_where_op(const Call& c) { return fold_where(c.in, c.out); }
bool fold_range_op(const Call& c) { return fold_range(c.in, c.out); }

/// How one op type folds. `from_shape`: input 0 need not be constant, its static shape is read.
struct Rule {
  bool (*fold)(const Call&);
  bool from_shape = false;
};

const std::unordered_map<std::string, Rule>& rules() {
  static const std::unordered_map<std::string, Rule> t = {
      {"Constant", {fold_constant_op}},
      {"ConstantOfShape", {fold_constant_of_shape_op}},
      {"Shape", {fold_shape_op, true}},
      {"Size", {fold_size_op, true}},
      {"Identity", {fold_identity_op}},
      {"Cast", {fold_cast_op}},
      {"Neg", {fold_neg_op}},
      {"Sqrt", {fold_sqrt_op}},
      {"Add", {fold_binary_op<Bin::Add>}},
      {"Sub", {fold_binary_op<Bin::Sub>}},
      {"Mul", {fold_binary_op<Bin::Mul>}},
      {"Div", {fold_binary_op<Bin::Div>}},
      {"Pow", {fold_binary_op<Bin::Pow>}},
      {"Equal", {fold_binary_op<Bin::Equal>}},
      {"Less", {fold_binary_op<Bin::Less>}},
      {"Greater", {fold_binary_op<Bin::Greater>}},
      {"Reshape", {fold_reshape_op}},
      {"Flatten", {fold_flatten_op}},
      {"Squeeze", {fold_squeeze_op}},
      {"Unsqueeze", {fold_unsqueeze_op}},
      {"Transpose", {fold_transpose_op}},
      {"Expand", {fold_expand_op}},
      {"Slice", {fold_slice_op}},
      {"Gather", {fold_gather_op}},
      {"Concat", {fold_concat_op}},
      {"Where", {fold_where_op}},
      {"Range", {fold_range_op}},
  };
  return t;
}

const Rule* rule_of(const std::string& op) {
  auto it = rules().find(op);
  return it == rules().end() ? nullptr : &it->second;
}

}  // namespace

bool is_foldable_op(const std::string& op_type) { return rule_of(op_type) != nullptr; }

bool folds_from_input_shape(const std::string& op_type) {
  const Rule* r = rule_of(op_type);
  return r && r->from_shape;
}

bool fold_node(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& in,
               std::vector<ConstValue>* out) {
  out->clear();
  const Rule* r = rule_of(node.op_type());
  return r && r->fold(Call{node, opset, in, out});
}

}  // namespace photon

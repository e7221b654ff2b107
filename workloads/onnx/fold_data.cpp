// Shape and data movement in the constant folder: Shape, Reshape, Squeeze, Unsqueeze, Transpose,
// Slice, Gather, Concat, Range, Constant, ConstantOfShape (fold_ops.h).
#include "workloads/onnx/fold_ops.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/error.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {

using TP = onnx::TensorProto;

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

}  // namespace photon::onnx_frontend

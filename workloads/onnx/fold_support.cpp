// Shared helpers of the constant folder (fold_ops.h).
#include "workloads/onnx/fold_ops.h"

#include <algorithm>

#include "base/error.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {

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

}  // namespace photon::onnx_frontend

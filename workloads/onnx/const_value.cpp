#include "workloads/onnx/const_value.h"

#include <cmath>

#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {

bool ConstValue::is_int() const { return onnx_is_integer_type(elem_type); }

int64_t ConstValue::numel() const { return shape_numel(shape); }

int64_t ConstValue::int_at(int64_t k) const {
  if (is_int()) return splat ? splat_i : i[static_cast<size_t>(k)];
  const float v = splat ? splat_f : f[static_cast<size_t>(k)];
  return std::isfinite(v) ? static_cast<int64_t>(v) : 0;
}

double ConstValue::num_at(int64_t k) const {
  if (is_int()) return static_cast<double>(splat ? splat_i : i[static_cast<size_t>(k)]);
  return splat ? splat_f : f[static_cast<size_t>(k)];
}

void ConstValue::materialize() {
  if (!splat) return;
  const auto n = static_cast<size_t>(numel());
  if (is_int())
    i.assign(n, splat_i);
  else
    f.assign(n, splat_f);
  splat = false;
}

std::vector<int64_t> ConstValue::ints() const {
  std::vector<int64_t> out(static_cast<size_t>(numel()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = int_at(static_cast<int64_t>(k));
  return out;
}

ConstValue ConstValue::make_splat(int32_t elem_type, std::vector<int64_t> shape, double v) {
  ConstValue c;
  c.elem_type = elem_type;
  c.shape = std::move(shape);
  c.splat = true;
  if (c.is_int())
    c.splat_i = elem_type == 9 /*BOOL*/ ? (v != 0) : static_cast<int64_t>(v);
  else
    c.splat_f = static_cast<float>(v);
  return c;
}

ConstValue ConstValue::make_ints(std::vector<int64_t> shape, std::vector<int64_t> values) {
  ConstValue c;
  c.elem_type = 7;  // INT64
  c.shape = std::move(shape);
  c.i = std::move(values);
  return c;
}

int64_t shape_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? "x" : "") + std::to_string(shape[k]);
  return s;
}

}  // namespace photon::onnx_frontend

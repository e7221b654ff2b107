// ConstValue: a constant tensor during ONNX constant folding. Either a splat (one value standing
// for every element, as ConstantOfShape produces; never expanded when large) or dense values:
// fp32 for float element types, int64 for integer and bool types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace photon::onnx_frontend {

/// Largest element count a fold may materialise from splats (65536 elements, 256 KiB of fp32):
/// enough for every shape/index computation in torch.onnx exports, far below any weight.
constexpr int64_t kMaxFoldElements = int64_t{1} << 16;

struct ConstValue {
  int32_t elem_type = 1;       ///< onnx::TensorProto_DataType (1 = FLOAT)
  std::vector<int64_t> shape;  ///< static shape, outermost first
  bool splat = false;          ///< every element equals splat_f / splat_i
  float splat_f = 0;           ///< splat value (float element types)
  int64_t splat_i = 0;         ///< splat value (integer and bool element types)
  std::vector<float> f;        ///< dense values (float element types)
  std::vector<int64_t> i;      ///< dense values (integer and bool element types)

  bool is_int() const;  ///< integer or bool element type (values live in i / splat_i)
  int64_t numel() const;
  /// Element k as int64 (floats truncated toward zero) / as double.
  int64_t int_at(int64_t k) const;
  double num_at(int64_t k) const;
  /// Number of dense elements actually stored (1 for a splat).
  int64_t stored() const { return splat ? 1 : numel(); }
  /// Turns a splat into dense values (caller checks the size is small).
  void materialize();
  /// All int64 values (integer tensors used as shapes, axes, indices).
  std::vector<int64_t> ints() const;

  static ConstValue make_splat(int32_t elem_type, std::vector<int64_t> shape, double v);
  static ConstValue make_ints(std::vector<int64_t> shape, std::vector<int64_t> values);
};

/// Product of dims (1 for a scalar).
int64_t shape_numel(const std::vector<int64_t>& shape);
/// "1x3x224x224" ("scalar" for rank 0).
std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace photon::onnx_frontend

// Graph: the framework-neutral operator graph that the ONNX frontend produces and the AI lowering
// consumes. Plain data, no ONNX types. Tensors are fp32 unless noted; shapes are fully static
// after the frontend (symbolic dimensions resolved by --shape or rejected with an error).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace photon {

enum class DType { Float32, Int64, Int32, Bool, Float16, Other };

struct TensorInfo {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;     ///< static shape, outermost first
  bool is_constant = false;       ///< initializer, Constant or ConstantOfShape output
  std::vector<float> data;        ///< constant values as fp32 (empty if not loaded)
  std::vector<int64_t> int_data;  ///< constant values of integer tensors (shapes, indices)
  /// Every element equals splat_value: a ConstantOfShape output (or a constant folded from one,
  /// e.g. its Transpose), or a float initializer whose values are all equal. Only for numel > 1
  /// (and integer tensors above 65536 elements); data and int_data stay empty, so large weights
  /// are never materialised. Non-splat constants carry numel values in data.
  bool splat = false;
  float splat_value = 0;
  /// The model's element type name (ONNX TensorProto.DataType, e.g. "DOUBLE", "STRING") when
  /// `dtype` does not name it exactly: DOUBLE and BFLOAT16 (held and computed as Float32) and
  /// every DType::Other type. Empty otherwise (and in graphs not built from a model file).
  std::string source_type;
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>>;

struct Node {
  std::string name;                 ///< ONNX node name (or "<op_type>_<index>" if unnamed)
  std::string op_type;              ///< ONNX op type, e.g. "Conv"
  std::vector<std::string> inputs;  ///< tensor names ("" for an omitted optional input)
  std::vector<std::string> outputs;
  std::map<std::string, AttrValue> attrs;

  int64_t attr_int(const std::string& k, int64_t dflt) const;
  float attr_float(const std::string& k, float dflt) const;
  std::string attr_string(const std::string& k, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const std::string& k, const std::vector<int64_t>& dflt) const;
  std::vector<float> attr_floats(const std::string& k, const std::vector<float>& dflt) const;
  bool has_attr(const std::string& k) const { return attrs.count(k) != 0; }
};

/// True for the ONNX sliding-window ops, whose attributes strides, dilations, kernel_shape, pads
/// (and group) describe a window over the spatial axes: Conv, ConvTranspose, MaxPool, AveragePool,
/// LpPool (ONNX operator definitions, docs/Operators.md). The one list of them.
bool is_window_op(const std::string& op_type);

/// Attribute ranges of the sliding-window ops (is_window_op()), ConvTranspose, MaxPool, AveragePool, LpPool
/// (ONNX operator definitions, docs/Operators.md): throws Error "strides [0,0] has an entry < 1"
/// (no node context; the caller adds it) if strides, dilations or kernel_shape has an entry < 1,
/// pads an entry < 0, or group < 1. Other ops: no-op. Needs no shapes, so the ONNX frontend runs
/// it before ONNX shape inference (whose Conv/pooling inference divides by the strides); the
/// lowering runs it again, with the shape-dependent checks, on every graph it is given.
void check_window_attrs(const Node& n);

struct Graph {
  std::string name;
  int64_t opset = 0;
  std::vector<std::string> inputs;  ///< graph inputs that are not constants
  std::vector<std::string> outputs;
  std::vector<Node> nodes;                    ///< topologically sorted
  std::map<std::string, TensorInfo> tensors;  ///< every tensor, by name

  const TensorInfo& tensor(const std::string& name) const;  ///< throws Error if unknown
};

}  // namespace photon

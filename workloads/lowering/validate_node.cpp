// Pre-lowering checks of node attributes and tensor types (see validate_node() in
// lowering_internal.h).
#include <fmt/format.h>

#include "base/error.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {
namespace {

std::string list_str(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

// Checks that attribute `k` (if present) has `rank` entries, each >= `min`.
std::vector<int64_t> checked_ints(const Node& n, const std::string& k, size_t rank, int64_t min,
                                  int64_t dflt) {
  std::vector<int64_t> v = attr_is(n, k, std::vector<int64_t>(rank, dflt));
  if (v.size() != rank)
    throw Error(
        fmt::format("{} {} has {} entries, the input has {} spatial axes", k, list_str(v), v.size(), rank));
  for (int64_t e : v)
    if (e < min) throw Error(fmt::format("{} {} has an entry < {}", k, list_str(v), min));
  return v;
}

// Conv, ConvTranspose, MaxPool, AveragePool, LpPool: attribute ranges and geometry, per the
// operator definitions of the ONNX specification (docs/Operators.md, "Conv", "MaxPool").
void validate_conv_pool(const Node& n, const Graph& g) {
  check_window_attrs(n);
  const bool conv = n.op_type == "Conv" || n.op_type == "ConvTranspose";
  if (n.inputs.empty() || n.inputs[0].empty()) throw Error("missing input X");
  const TensorInfo& x = g.tensor(n.inputs[0]);
  if (x.shape.size() < 3)
    throw Error(
        fmt::format("input '{}' has rank {}, expected N x C x spatial (rank >= 3)", x.name, x.shape.size()));
  const size_t r = x.shape.size() - 2;
  std::vector<int64_t> kernel;
  if (conv) {
    if (n.inputs.size() < 2 || n.inputs[1].empty()) throw Error("missing weight input W");
    const TensorInfo& w = g.tensor(n.inputs[1]);
    if (w.shape.size() != x.shape.size())
      throw Error(fmt::format("weight '{}' has rank {}, input '{}' has rank {}", w.name, w.shape.size(),
                              x.name, x.shape.size()));
    kernel.assign(w.shape.begin() + 2, w.shape.end());
    if (n.has_attr("kernel_shape")) kernel = checked_ints(n, "kernel_shape", r, 1, 1);
    const int64_t group = attr_i(n, "group", 1);
    if (group < 1) throw Error(fmt::format("group {} must be >= 1", group));
    const int64_t C = x.shape[1];
    if (C % group != 0)
      throw Error(fmt::format("input channels C={} are not divisible by group {}", C, group));
    if (n.op_type == "Conv") {
      const int64_t M = w.shape[0];
      if (M % group != 0)
        throw Error(fmt::format("output channels M={} are not divisible by group {}", M, group));
      if (w.shape[1] * group != C)
        throw Error(fmt::format("weight '{}' has {} channels per group, input C={} / group {} = {}", w.name,
                                w.shape[1], C, group, C / group));
    }
  } else {
    if (!n.has_attr("kernel_shape")) throw Error("missing attribute kernel_shape");
    kernel = checked_ints(n, "kernel_shape", r, 1, 1);
  }
  for (int64_t k : kernel)
    if (k < 1) throw Error(fmt::format("kernel shape {} has an entry < 1", list_str(kernel)));
  checked_ints(n, "strides", r, 1, 1);
  const std::vector<int64_t> dil = checked_ints(n, "dilations", r, 1, 1);
  const std::string auto_pad = attr_s(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    throw Error(fmt::format("auto_pad '{}' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", auto_pad));
  std::vector<int64_t> pads(2 * r, 0);
  if (auto_pad == "NOTSET") pads = checked_ints(n, "pads", 2 * r, 0, 0);
  if (n.op_type == "ConvTranspose" || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return;
  for (size_t i = 0; i < r; ++i) {
    const int64_t eff = (kernel[i] - 1) * dil[i] + 1;  // dilated kernel extent
    const int64_t in = x.shape[i + 2] + pads[i] + pads[i + r];
    if (eff > in)
      throw Error(fmt::format(
          "kernel {} (dilations {}) does not fit the padded input: axis {} has {} + pads {} "
          "= {} elements, the kernel spans {}",
          list_str(kernel), list_str(dil), i + 2, x.shape[i + 2], pads[i] + pads[i + r], in, eff));
  }
}

// The GEMM engine's products (MatMul, Gemm, Conv, ConvTranspose): a reduction over no terms
// (K = 0: an input feature or weight axis of size 0) has no GEMM to run (its result is zeros
// or the bias alone) and would divide by zero in the tiling; it is an error naming the tensor.
// Empty batches or outputs (M = 0 or N = 0) stay what they are: products of no rows, no work.
void validate_gemm_reduction(const Node& n, const Graph& g) {
  const bool conv = n.op_type == "Conv" || n.op_type == "ConvTranspose";
  if (!conv && n.op_type != "MatMul" && n.op_type != "Gemm") return;
  if (n.inputs.size() < 2 || n.inputs[0].empty() || n.inputs[1].empty()) return;
  const TensorInfo& a = g.tensor(n.inputs[0]);
  const TensorInfo& b = g.tensor(n.inputs[1]);
  int64_t k = -1;
  std::string what;
  if (conv) {
    // K = C / group * kernel elements: the input channels and the weight's kernel axes.
    if (a.shape.size() >= 2 && a.shape[1] == 0) k = 0, what = fmt::format("input '{}' {} has 0 channels", a.name, list_str(a.shape));
    for (size_t i = 1; i < b.shape.size() && k != 0; ++i)
      if (b.shape[i] == 0) k = 0, what = fmt::format("weight '{}' {} has a size-0 axis {}", b.name, list_str(b.shape), i);
  } else if (n.op_type == "MatMul") {
    if (!a.shape.empty() && a.shape.back() == 0) k = 0, what = fmt::format("'{}' {} has K = 0", a.name, list_str(a.shape));
  } else {  // Gemm: A is M x K, or K x M with transA
    const bool ta = attr_i(n, "transA", 0) != 0;
    if (a.shape.size() == 2 && a.shape[ta ? 0 : 1] == 0) k = 0, what = fmt::format("'{}' {} has K = 0", a.name, list_str(a.shape));
  }
  if (k == 0)
    throw Error(fmt::format("a product over no terms: {}; the GEMM engine has no zero-length reduction (the "
                            "result would be zeros or the bias alone)", what));
}

}  // namespace

void validate_node(const Node& n, const Graph& g) {
  for (const auto* list : {&n.inputs, &n.outputs}) {
    for (const auto& nm : *list) {
      if (nm.empty()) continue;
      const TensorInfo& t = g.tensor(nm);
      if (t.dtype == DType::Other)
        throw Error(fmt::format("tensor '{}' has data type {}, which the platform cannot represent", nm,
                                t.source_type.empty() ? "other (not a number type)" : t.source_type));
    }
  }
  if (is_window_op(n.op_type)) validate_conv_pool(n, g);  // kernel shapes first: [0,0] is a kernel error
  validate_gemm_reduction(n, g);
  const OnnxOpRow* row = onnx_op(n.op_type);
  if (row && row->validate) row->validate(n, g);
}

void validate_reshape(const Node& n, const Graph& g) {
  if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty()) return;
  const TensorInfo& x = g.tensor(n.inputs[0]);
  const TensorInfo& y = g.tensor(n.outputs[0]);
  if (x.numel() != y.numel())
    throw Error(fmt::format("target shape {} of '{}' has {} elements, input '{}' {} has {}",
                            list_str(y.shape), y.name, y.numel(), x.name, list_str(x.shape), x.numel()));
}

}  // namespace photon::lowering

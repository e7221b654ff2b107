// Host fallback reference implementations: the host's own computation of graph nodes that the
// lowering does not map to the device (ConvTranspose, Resize, Gather with a non-constant index,
// Transpose with a permutation the DMA cannot do, Softmax/LogSoftmax over any axis, MaxPool and
// AveragePool the vector unit cannot do: dilated, 1-D or 3-D). Each follows
// the ONNX operator specification (onnx/docs/Operators.md, opsets 11..17) with plain loops over
// row-major fp32 tensors; integer tensors (indices) are held as fp32 values, as the platform's
// tensor bindings hold them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/graph/graph.h"

namespace photon::fallback {

/// A dense row-major fp32 tensor.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  ///< numel(shape) values
};

/// True if run_host_op() computes `n` of `g` (its op type and attributes are supported: Resize
/// modes nearest, linear and cubic (cubic_coeff_a, exclude_outside) with the coordinate
/// transformations half_pixel, pytorch_half_pixel, align_corners, asymmetric and
/// tf_half_pixel_for_nn; ConvTranspose with explicit pads, auto_pad or output_shape; MaxPool
/// (without its Indices output) and AveragePool of any rank, dilation, padding and ceil_mode;
/// every Gather, Transpose, Softmax and LogSoftmax). `why` (optional)
/// receives the reason when false.
bool has_host_op(const Node& n, const Graph& g, std::string* why = nullptr);

/// Computes the outputs of `n` (one HostTensor per output of n, shapes from `g`) from `inputs`
/// (one per input of n, nullptr for an omitted optional input). Throws Error for values the op
/// rejects (a Gather index out of range).
std::vector<HostTensor> run_host_op(const Node& n, const Graph& g,
                                    const std::vector<const HostTensor*>& inputs);

}  // namespace photon::fallback

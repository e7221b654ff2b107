// The ONNX op table of the AI lowering: one row per op type the lowering knows, the only list of
// them. Dispatch (ai_lowering.cpp), the free views of the memory plan (memory_plan.cpp) and the
// per-op checks of validate_node() are read from it. docs/extending.md "Adding an ONNX op".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/graph/graph.h"

namespace photon::lowering {

struct Ctx;

/// OnnxOpRow::kernel of rows whose lowering takes no kernel from the row: 0xFF is no
/// pcs::Vector::Op (isa/vector_ops.h).
constexpr uint8_t kNoKernel = 0xFF;

/// How the AI lowering maps one ONNX op type (docs/lowering.md gives each mapping).
struct OnnxOpRow {
  const char* op_type;  ///< ONNX op type, e.g. "Relu"
  /// Emits the node's commands (the node is Ctx::node, this row Ctx::row) and returns the op-table
  /// detail; throws Unsupported (host fallback) or Error. nullptr: no device mapping, the node falls
  /// back unless `view` holds.
  std::string (*lower)(Ctx& c) = nullptr;
  /// The vector kernel (pcs::Vector::Op) the lowering applies, for the element-wise, row and
  /// pooling families; kNoKernel for the others.
  uint8_t kernel = kNoKernel;
  /// The node is a free view when this returns true: its output shares the input's HBM address
  /// and it emits no commands. nullptr: never a view.
  bool (*view)(const Node& n, const Graph& g) = nullptr;
  /// Checks of the model particular to this op, run by validate_node() before any planning;
  /// throws Error naming the problem. nullptr: none.
  void (*validate)(const Node& n, const Graph& g) = nullptr;
};

/// Every row, in table order (grouped by op family).
const std::vector<OnnxOpRow>& onnx_op_rows();

/// The row of `op_type`, or nullptr when the lowering does not know the op (it falls back).
const OnnxOpRow* onnx_op(const std::string& op_type);

}  // namespace photon::lowering

// The vector-unit operations (pcs::Vector::Op): one descriptor row per op, the only list of them.
//
// The rows drive the command codec (which op values decode), the assembler and disassembler (the
// `vec op=<name>` spelling), the vector unit's plan and kernels (operand class, cost class) and the
// lowerings. docs/extending.md "Adding a vector kernel" lists what else a new op needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/command.h"

namespace photon::pcs {

/// What a vector op reads and how the unit iterates over it (pcs::Vector fields; sizes in
/// elements of fp32).
enum class VectorClass : uint8_t {
  Unary,      ///< dst[i] = f(src0[i]), i < n
  Binary,     ///< dst[i] = src0[i] (op) src1[(i / bcast_inner) % bcast_len]
  Scalar,     ///< dst[i] = f(src0[i], imm0, imm1)
  Softmax,    ///< each of n / inner rows of `inner` elements
  LayerNorm,  ///< each row of `inner`; gamma at src1, beta at src2 (`inner` each), epsilon imm0
  Reduce,     ///< each row of `inner` to one value: n / inner outputs
  Pool,       ///< src0 C x h x w (C = n / (h*w)) -> dst C x oh x ow
  Im2col,     ///< src0 C x h x w -> dst (C*kh*kw) x (oh*ow)
  Transpose,  ///< src0 (n / inner) x inner -> dst inner x (n / inner)
};

/// One vector operation.
struct VectorOpInfo {
  uint8_t op;        ///< Vector::Op value: head byte 1 of the command (docs/command-stream.md)
  const char* name;  ///< assembly spelling, unique
  VectorClass cls;   ///< operands and iteration
  /// Evaluated with a transcendental function (exp, erf, tanh, pow): the vector unit spends
  /// vector.transcendental_cycles per lane group instead of 1 (models/vector/README.md "Timing").
  bool transcendental;
};

/// Every vector op, in opcode order.
const std::vector<VectorOpInfo>& vector_ops();

/// The row of op value `op`, or nullptr when `op` names no operation (decode rejects it). O(1).
const VectorOpInfo* vector_op_info(uint8_t op);

/// The row spelled `name`, or nullptr.
const VectorOpInfo* vector_op_by_name(const std::string& name);

}  // namespace photon::pcs

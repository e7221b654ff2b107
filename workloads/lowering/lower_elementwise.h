// Element-wise engine shared by the vector-unit lowerings (internal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

/// One vector op applied in place to the streamed tile x: x = op(x [, B_b]) (imm0/imm1 scalars).
struct EwOp {
  uint8_t op = 0;
  float imm0 = 0, imm1 = 0;
  int b = -1;            ///< index into EwProgram::b_addr for a binary op, -1 for unary/scalar ops
  bool recip_b = false;  ///< replace the B piece by its reciprocal first
};

/// y[oshape] = ops applied to a[oshape]; every B operand has shape `bshape` (same rank as oshape,
/// each dimension 1 or equal) and is read with the vector unit's src1[(i / inner) % len] rule.
struct EwProgram {
  uint64_t a = 0, y = 0;
  std::vector<int64_t> oshape, bshape;
  std::vector<uint64_t> b_addr;
  std::vector<EwOp> ops;
};

/// Emits the chunked element-wise steps into `pl`; returns the tiling detail.
std::string emit_elementwise(Ctx& c, Pipeline& pl, const EwProgram& e);

}  // namespace photon::lowering

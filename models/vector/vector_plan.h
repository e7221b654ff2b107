// Decode-time validation, operand ranges and the timing/energy model of one pcs::Vector
// command: a pure O(1) function of the command's fields (no data). README.md has the model.
#pragma once

#include <cstdint>

#include "isa/command.h"
#include "models/vector/vector_config.h"

namespace photon {

/// Operand byte ranges and cost of one vector command.
///
/// Timing (simple SIMD model): the command runs as a sequence of passes; a pass over E
/// elements at c cycles per lane-group costs ceil(E / lanes) * c cycles;
/// cycles = sum over passes + pipeline_depth. c = 1 for simple ops and
/// transcendental_cycles for exp/erf/tanh/sigmoid/gelu/silu/pow. Passes per op class:
///   unary, binary, scalar, copy, transpose: 1 pass over n
///   Softmax:   max (1) + exp-and-sum (T) + scale (1) over n, + reciprocal (1) over rows
///   LayerNorm: mean (1) + variance (1) + normalise (1) + affine (1) over n,
///              + rsqrt (T) over rows
///   Reduce:    1 pass over n (ReduceMean: + scale (1) over rows)
///   MaxPool:   1 pass over C*oh*ow*kh*kw window elements; AvgPool: + divide (1) over outputs
///   Im2col:    1 pass over the C*kh*kw*oh*ow outputs
/// Energy: energy_pj_per_op * sum over passes of E * c (a transcendental element costs c ops).
struct VectorPlan {
  uint64_t src0_bytes = 0, src1_bytes = 0, src2_bytes = 0, dst_bytes = 0;
  uint64_t rows = 0;         ///< n / inner for row ops and transpose
  uint64_t element_ops = 0;  ///< sum over passes of E * c
  uint64_t elements = 0;     ///< output elements
  uint64_t cycles = 0;       ///< clock_ghz cycles, including pipeline_depth
  double energy_pj = 0;
};

/// Validates `v` (UnitFault(Decode) naming the field: unknown op, n == 0, inner == 0,
/// n % inner != 0, zero broadcast sizes, zero or inconsistent pooling geometry) and returns
/// its plan.
VectorPlan vector_plan(const VectorConfig& cfg, const pcs::Vector& v);

}  // namespace photon

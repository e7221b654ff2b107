// VectorEngine: the pure core of the vector (SIMD) unit (photon::Engine for pcs::Vector).
//
// Every pcs::Vector::Op on fp32 arrays at scratchpad byte offsets; semantics in
// vector_kernels.h (ONNX-matching), field validation, operand sizes and the timing/energy model
// in vector_plan.h. Operand sizes: src0 n floats; binary src1 bcast_len floats (element i uses
// src1[(i / bcast_inner) % bcast_len]); LayerNorm gamma at src1, beta at src2 (inner floats
// each), eps = imm0; dst n floats, n / inner (Reduce*), C*oh*ow (pooling) or
// C*kh*kw*oh*ow (im2col). Inputs are read before dst is written, so dst may alias a source.
// Faults: wrong opcode/body or bad fields -> UnitFault(Decode); a range outside the scratchpad
// -> UnitFault(Address); all raised before anything is written. Timing-only mode
// (spm.data == nullptr) is O(1) per command.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "models/vector/vector_config.h"
#include "models/vector/vector_plan.h"
#include "platform/engine.h"

namespace photon {

class VectorEngine : public Engine {
 public:
  /// Throws photon::Error for lanes == 0 or clock_ghz <= 0.
  explicit VectorEngine(const VectorConfig& cfg);

  const char* name() const override { return "vector"; }
  double clock_ghz() const override { return cfg_.clock_ghz; }
  /// Starts at max(now_cycle, end of the previous command); accept_cycle == done_cycle.
  IssueResult issue(const pcs::Command& cmd, uint64_t now_cycle, const MemView& spm) override;
  /// commands, elements (outputs written), element_ops (see vector_plan.h), cumulative.
  std::map<std::string, double> counters() const override;

  const VectorConfig& config() const { return cfg_; }

 private:
  VectorConfig cfg_;
  uint64_t next_free_cycle_ = 0;
  uint64_t commands_ = 0, elements_ = 0, element_ops_ = 0;
};

}  // namespace photon

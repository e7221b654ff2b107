// OpticalGemmEngine: the pure core of the optical GEMM unit (photon::Engine for pcs::Gemm).
//
// Executes C[m x n] (+)= A[m x k] * B[k x n] (+ bias[n]), fp32 operands at scratchpad byte
// offsets, row-major with leading dimensions in elements:
//   A(i,p) = a[i*lda + p]   (kTransposeA: A stored k x m, A(i,p) = a[p*lda + i])
//   B(p,j) = b[p*ldb + j]   (kTransposeB: B stored n x k, B(p,j) = b[j*ldb + p])
//   C(i,j) = c[i*ldc + j],  bias(j) = bias[j]
// Result, in fp32: acc = kAccumulate ? C_old(i,j) : 0; acc += each product A(i,p) B(p,j) in
// increasing p (ideal numerics) or each K tile's ADC output in k-tile order (physical);
// then acc += bias(j) if kBias. So K split over commands chained with kAccumulate (kBias on
// the last one) equals the unsplit command bit for bit in ideal mode. Operands may overlap C: the result is
// computed into a buffer before C is written. Faults: wrong opcode/body, unknown flag bits, m/n/k = 0 or a
// leading dimension below its row length -> UnitFault(Decode); an operand range outside the scratchpad ->
// UnitFault(Address). All checks happen before anything is written. Timing and energy: optical_gemm_timing.h.
// Timing-only mode (spm.data == nullptr) does O(1) work per command.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "models/optical_gemm/optical_gemm_config.h"
#include "models/optical_gemm/optical_gemm_timing.h"
#include "platform/engine.h"

namespace photon {

class OpticalGemmEngine : public Engine {
 public:
  /// Throws photon::Error for an invalid config (no rows, columns or wavelengths; a clock <= 0).
  explicit OpticalGemmEngine(const OpticalGemmConfig& cfg);

  const char* name() const override { return "optical_gemm"; }
  double clock_ghz() const override { return cfg_.clock_ghz; }
  /// Starts at max(now_cycle, end of the previous command); accept_cycle == done_cycle.
  IssueResult issue(const pcs::Command& cmd, uint64_t now_cycle, const MemView& spm) override;
  /// macs, weight_tiles, weight_programs, symbols, adc_conversions, commands (cumulative).
  std::map<std::string, double> counters() const override;

  const OpticalGemmConfig& config() const { return cfg_; }

 private:
  OpticalGemmConfig cfg_;
  bool physical_ = false;
  uint64_t next_free_cycle_ = 0;
  uint64_t commands_ = 0;
  uint64_t macs_ = 0, weight_tiles_ = 0, weight_programs_ = 0, symbols_ = 0, adc_conversions_ = 0;
};

}  // namespace photon

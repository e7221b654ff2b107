// Oracle of the optical engine's GEMM timing, restated from its documentation for the tests that
// check the simulator against it (the product has one implementation: optical_gemm_cost in
// models/optical_gemm/optical_gemm_timing.h; models/optical_gemm/README.md gives the model).
//
// One GEMM command C[m x n] (+)= A[m x k] * B[k x n] runs over T = ceil(k / cols) * ceil(n / rows)
// weight tiles of the rows x cols array (rows = output features in parallel, cols = reduction
// length). Per weight tile:
//   t_tile = t_program + ceil(m / wavelengths) / modulation_ghz + conversion_latency_ns
//            + pipeline_depth / clock_ghz                                                  [ns]
//   t_program = weight_program_ns in "stationary" weight mode, except for the command's first
//               tile when it carries kReuseWeights (the array already holds it), and 0 in
//               "streamed" mode (weights are modulated with the inputs; no programming step).
// The m rows of A stream through the array `wavelengths` vectors per symbol (WDM) at
// modulation_ghz symbols per ns; the DAC/ADC conversion and the electronic pipeline are paid once
// per tile. Structure of a WDM photonic tensor core: Lightening-Transformer (HPCA 2024).
#pragma once

#include <cstdint>

#include "isa/program.h"
#include "models/optical_gemm/optical_gemm_config.h"

namespace photon_test {

inline uint64_t gemm_ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/// Weight tiles one command programs: T, minus 1 with kReuseWeights; 0 in streamed mode.
inline uint64_t gemm_weight_programs(const photon::pcs::Gemm& g, const photon::OpticalGemmConfig& oc) {
  const uint64_t tiles = gemm_ceil_div(g.k, oc.cols) * gemm_ceil_div(g.n, oc.rows);
  if (oc.weight_mode != photon::WeightMode::Stationary) return 0;
  return (g.flags & photon::pcs::Gemm::kReuseWeights) ? tiles - 1 : tiles;
}

/// Optical-engine busy time of one GEMM command, ns (formula above).
inline double gemm_command_ns(const photon::pcs::Gemm& g, const photon::OpticalGemmConfig& oc) {
  const uint64_t tiles = gemm_ceil_div(g.k, oc.cols) * gemm_ceil_div(g.n, oc.rows);
  const double per_tile = double(gemm_ceil_div(g.m, oc.wavelengths)) / oc.modulation_ghz +
                          oc.conversion_latency_ns + double(oc.pipeline_depth) / oc.clock_ghz;
  return double(gemm_weight_programs(g, oc)) * oc.weight_program_ns + double(tiles) * per_tile;
}

/// Sum of gemm_command_ns over the GEMM commands of op-table entry `tag`, ns: the optical engine's
/// busy time for that layer.
inline double gemm_layer_formula_ns(const photon::pcs::Program& p, uint32_t tag,
                                    const photon::OpticalGemmConfig& oc) {
  double t = 0;
  for (const auto& c : p.commands)
    if (c.tag == tag && c.opcode == photon::pcs::Opcode::Gemm)
      t += gemm_command_ns(std::get<photon::pcs::Gemm>(c.body), oc);
  return t;
}

}  // namespace photon_test

#include "workloads/lowering/gemm_timing.h"

#include <cmath>

namespace photon::lowering {

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint64_t gemm_weight_programs(const pcs::Gemm& g, const OpticalGemmConfig& oc) {
  const uint64_t tiles = ceil_div(g.k, oc.cols) * ceil_div(g.n, oc.rows);
  if (oc.weight_mode != WeightMode::Stationary) return 0;
  // kReuseWeights: the array already holds the command's first weight tile.
  return (g.flags & pcs::Gemm::kReuseWeights) ? tiles - 1 : tiles;
}

double gemm_command_ns(const pcs::Gemm& g, const OpticalGemmConfig& oc) {
  const uint64_t tiles = ceil_div(g.k, oc.cols) * ceil_div(g.n, oc.rows);
  const double per_pass = double(ceil_div(g.m, oc.wavelengths)) / oc.modulation_ghz +
                          oc.conversion_latency_ns + double(oc.pipeline_depth) / oc.clock_ghz;
  return double(gemm_weight_programs(g, oc)) * oc.weight_program_ns + double(tiles) * per_pass;
}

double gemm_layer_formula_ns(const pcs::Program& p, uint32_t tag, const OpticalGemmConfig& oc) {
  double t = 0;
  for (const auto& c : p.commands)
    if (c.tag == tag && c.opcode == pcs::Opcode::Gemm) t += gemm_command_ns(std::get<pcs::Gemm>(c.body), oc);
  return t;
}

}  // namespace photon::lowering

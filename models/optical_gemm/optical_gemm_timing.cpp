#include "models/optical_gemm/optical_gemm_timing.h"

#include <cmath>

namespace photon {

uint64_t ns_to_cycles_ceil(double ns, double ghz) {
  const double c = ns * ghz;
  if (!(c > 0)) return 0;
  return static_cast<uint64_t>(std::ceil(c * (1.0 - 1e-9)));
}

OpticalGemmCost optical_gemm_cost(const OpticalGemmConfig& cfg, const pcs::Gemm& g) {
  OpticalGemmCost r;
  const uint64_t m = g.m, n = g.n, k = g.k;
  const uint64_t rows = cfg.rows ? cfg.rows : 1, cols = cfg.cols ? cfg.cols : 1;
  const uint64_t wl = cfg.wavelengths ? cfg.wavelengths : 1;
  r.k_tiles = (k + cols - 1) / cols;
  r.n_tiles = (n + rows - 1) / rows;
  r.tiles = r.k_tiles * r.n_tiles;
  const bool streamed = cfg.weight_mode == WeightMode::Streamed;
  if (!streamed) {
    r.programs = r.tiles;
    if ((g.flags & pcs::Gemm::kReuseWeights) && r.programs > 0) r.programs -= 1;
  }
  r.symbols_per_tile = (m + wl - 1) / wl;
  r.symbols = r.symbols_per_tile * r.tiles;
  r.macs = m * n * k;
  r.input_conversions = m * k * r.n_tiles;
  r.weight_modulations = streamed ? r.symbols_per_tile * n * k : 0;
  r.adc_conversions = m * n * r.k_tiles;
  r.cells_programmed = r.programs * rows * cols;

  r.program_ns = static_cast<double>(r.programs) * cfg.weight_program_ns;
  r.tile_ns = static_cast<double>(r.symbols_per_tile) / cfg.modulation_ghz + cfg.conversion_latency_ns +
              static_cast<double>(cfg.pipeline_depth) / cfg.clock_ghz;
  r.total_ns = r.program_ns + static_cast<double>(r.tiles) * r.tile_ns;
  r.cycles = ns_to_cycles_ceil(r.total_ns, cfg.clock_ghz);

  const double modulated = static_cast<double>(r.input_conversions + r.weight_modulations);
  r.modulation_pj = modulated * cfg.modulation_energy_pj;
  r.dac_pj = modulated * cfg.dac_energy_pj;
  r.adc_pj = static_cast<double>(r.adc_conversions) * cfg.adc_energy_pj;
  r.laser_pj = cfg.laser_power_mw * r.total_ns;
  r.program_pj = static_cast<double>(r.cells_programmed) * cfg.weight_program_energy_pj;
  r.energy_pj = r.modulation_pj + r.dac_pj + r.adc_pj + r.laser_pj + r.program_pj;
  return r;
}

}  // namespace photon

// Timing and energy of one GEMM command on the optical array: a pure O(1) function of the
// configuration and the command's shape (no data). README.md gives the model with sources.
#pragma once

#include <cstdint>

#include "isa/command.h"
#include "models/optical_gemm/optical_gemm_config.h"

namespace photon {

/// Cost of one pcs::Gemm on an OpticalGemmConfig array.
///
/// Tiling: the array holds a rows x cols weight tile (rows outputs, cols reduction terms);
/// k_tiles = ceil(k / cols), n_tiles = ceil(n / rows), tiles = k_tiles * n_tiles.
/// Per tile: symbols_per_tile = ceil(m / wavelengths) (WDM: `wavelengths` input vectors per
/// symbol), tile_ns = symbols_per_tile / modulation_ghz + conversion_latency_ns
///                    + pipeline_depth / clock_ghz.
/// Stationary weights: programs = tiles, minus 1 with kReuseWeights (the array already holds
/// the command's first weight tile, tile (n-tile 0, k-tile 0)); streamed: programs = 0.
/// total_ns = programs * weight_program_ns + tiles * tile_ns;
/// cycles = ceil(total_ns * clock_ghz) (1e-9 slack absorbs binary rounding of exact products).
struct OpticalGemmCost {
  uint64_t k_tiles = 0, n_tiles = 0, tiles = 0;
  uint64_t programs = 0;            ///< weight tile programmings
  uint64_t symbols_per_tile = 0;    ///< symbol times per tile
  uint64_t symbols = 0;             ///< symbol times, all tiles
  uint64_t macs = 0;                ///< m * n * k
  uint64_t input_conversions = 0;   ///< DAC conversions (and modulations) of inputs: m * k * n_tiles
  uint64_t weight_modulations = 0;  ///< streamed only: symbols_per_tile * n * k (DAC + modulator)
  uint64_t adc_conversions = 0;     ///< m * n * k_tiles (one per output per k-tile)
  uint64_t cells_programmed = 0;    ///< programs * rows * cols (unused cells are zeroed too)
  double program_ns = 0;            ///< programs * weight_program_ns
  double tile_ns = 0;               ///< per-tile stream + conversion + pipeline fill, ns
  double total_ns = 0;              ///< busy time of the command, ns
  uint64_t cycles = 0;              ///< total_ns in clock_ghz cycles, rounded up
  // Energy, pJ.
  double modulation_pj = 0;  ///< (input_conversions + weight_modulations) * modulation_energy_pj
  double dac_pj = 0;         ///< (input_conversions + weight_modulations) * dac_energy_pj
  double adc_pj = 0;         ///< adc_conversions * adc_energy_pj
  double laser_pj = 0;       ///< laser_power_mw * total_ns (mW * ns = pJ)
  double program_pj = 0;     ///< cells_programmed * weight_program_energy_pj
  double energy_pj = 0;      ///< sum of the above
};

/// Computes the cost; assumes m, n, k > 0 (the engine rejects zero sizes before calling).
OpticalGemmCost optical_gemm_cost(const OpticalGemmConfig& cfg, const pcs::Gemm& g);

/// ceil(ns * ghz) with a relative slack of 1e-9 for binary rounding; never negative.
uint64_t ns_to_cycles_ceil(double ns, double ghz);

}  // namespace photon

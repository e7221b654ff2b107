// Per-layer GEMM timing formula: how a GEMM layer's optical-engine time follows from the tiling the
// lowering chose and the engine's parameters (models/optical_gemm/optical_gemm_config.h).
//
// One GEMM command C[m x n] (+)= A[m x k] * B[k x n] runs over ceil(k / cols) * ceil(n / rows) weight
// tiles of the rows x cols array (rows = output features in parallel, cols = reduction length). Per
// weight tile:
//   t_tile = t_program + ceil(m / wavelengths) / modulation_ghz + conversion_latency_ns
//            + pipeline_depth / clock_ghz                                                  [ns]
//   t_program = weight_program_ns in "stationary" weight mode, except for the command's first
//               tile when it carries kReuseWeights (the array already holds it), and 0 in
//               "streamed" mode (weights are modulated with the inputs; no programming step).
// The lowering sets kReuseWeights only on single-tile commands whose weights the previous GEMM
// command programmed. This is the model of models/optical_gemm/optical_gemm_timing.h
// (optical_gemm_cost: programs = tiles - [kReuseWeights]), restated here so that the lowering
// does not depend on the engine's library.
// The m rows of A stream through the array `wavelengths` vectors per symbol (WDM) at
// modulation_ghz symbols per ns; the DAC/ADC conversion and the electronic pipeline are paid once
// per pass. Sources: the engine's parameters (Lightening-Transformer, HPCA 2024, for the structure of
// a WDM photonic tensor core); the same formula is the contract of models/optical_gemm.
#pragma once

#include <cstdint>

#include "isa/program.h"
#include "models/optical_gemm/optical_gemm_config.h"

namespace photon::lowering {

/// Optical-engine busy time of one GEMM command, ns (formula above).
double gemm_command_ns(const pcs::Gemm& g, const OpticalGemmConfig& oc);

/// Weight tiles one command programs: ceil(k / cols) * ceil(n / rows), minus 1 with kReuseWeights;
/// 0 in streamed mode.
uint64_t gemm_weight_programs(const pcs::Gemm& g, const OpticalGemmConfig& oc);

/// Sum of gemm_command_ns over the GEMM commands of op-table entry `tag`, ns: the optical engine's
/// busy time for that layer (a lower bound of the layer's simulated time, reached when DMA and the
/// vector unit are fully overlapped by double buffering).
double gemm_layer_formula_ns(const pcs::Program& p, uint32_t tag, const OpticalGemmConfig& oc);

}  // namespace photon::lowering

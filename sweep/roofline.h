// Roofline of one run (Williams, Waterman and Patterson, "Roofline: an insightful visual
// performance model for multicore architectures", CACM 52(4), 2009): each op-table row (ONNX
// layer or FHE op) at its operational intensity (ops per HBM byte) and achieved throughput (ops
// per second), under the platform's compute ceilings and its HBM bandwidth.
//
// Ops: AI workloads count 2 per GEMM multiply-accumulate plus one per vector element; FHE
// workloads count modular operations: butterflies (N/2 log2 N per limb transform, N from the op's
// "N=2^k" detail), modular multiplies and adds, base-conversion MACs and automorphism words.
// Ceilings, from the report's configuration and each unit's timing model (models/*/README.md):
//   optical GEMM  2 * rows * cols * wavelengths * modulation_ghz   GOP/s (one symbol per
//                 1/modulation_ghz ns carries `wavelengths` input vectors through the array)
//   vector        lanes * clock_ghz                                GOP/s
//   NTT unit      (lanes + modmul_lanes + bconv_macs + automorph_lanes) * clock_ghz  GOP/s
//                 (its four engines overlap)
//   HBM           HbmConfig::peak_bandwidth_gbps()                 GB/s
#pragma once

#include <nlohmann/json.hpp>

namespace photon::sweep {

/// The roofline of `report` (a photon run report) as JSON for the plotting script:
///   {workload, ops_label, hbm_gbps, ceilings: [{unit, gops, formula}],
///    ops: [{name, kind, unit, ops, hbm_bytes, latency_ns, intensity (null: no HBM bytes), gops,
///           bound: "memory" | "compute"}]}
/// `unit` of an op is the unit doing most of its counted work (optical_gemm or vector; ntt for
/// FHE); an op is memory-bound when its intensity is below that unit's ridge point (ceiling / HBM bandwidth).
/// Rows without ops or time are left out. Throws Error for a report without config or ops.
nlohmann::json roofline_data(const nlohmann::json& report);

}  // namespace photon::sweep

// FHE view of a run report: totals by scheme-op kind, and bootstrapping on its own.
#pragma once

#include <nlohmann/json.hpp>

namespace photon {

/// From the report's `ops` rows (name, kind, latency_ns, work{...}) of an FHE program: per kind
/// {count, latency_ns, ntt_limb_transforms, modmul_words, bconv_macs, key_bytes, dma_bytes}, `total`,
/// and `bootstrap` (rows of kind "bootstrap"). In the FHE lowering every HBM read after the set-up
/// op is an evaluation-key load, so key_bytes = hbm_read_bytes of those rows; dma_bytes (bytes
/// moved by the DMA engine) is the sum of the rows' work.dma_bytes. The set-up row is left out.
nlohmann::json fhe_summary(const nlohmann::json& ops);

}  // namespace photon

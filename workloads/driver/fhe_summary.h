// FHE view of a run: totals by scheme-op kind, and bootstrapping on its own (report key `fhe`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/report/platform_report.h"

namespace photon {

/// Totals over a set of FHE op rows.
struct FheTotals {
  uint64_t count = 0;
  double latency_ns = 0;  ///< sum of the rows' latency, ns
  uint64_t ntt_limb_transforms = 0, modmul_words = 0, bconv_macs = 0;
  uint64_t key_bytes = 0;  ///< evaluation-key bytes read from HBM
  uint64_t dma_bytes = 0;  ///< bytes moved by the DMA engine
  /// The memory plans' byte classes (docs/report.md "FHE memory"), summed, and the largest peak.
  uint64_t ct_in_bytes = 0, ct_out_bytes = 0, spill_bytes = 0, plaintext_bytes = 0;
  uint64_t peak_scratchpad_bytes = 0;
  void add(const OpRow& row);
  nlohmann::json to_json() const;
};

struct FheSummary {
  std::map<std::string, FheTotals> by_kind;
  FheTotals total, bootstrap;
  nlohmann::json to_json() const;
};

/// From the per-op rows of an FHE program: per kind, `total`, and `bootstrap` (rows of kind
/// "bootstrap"). key_bytes and the byte classes are the sums of the rows' memory plans
/// (key_bytes falls back to work.hbm_read_bytes for a row without one: then every HBM read after
/// the set-up op is a key load); dma_bytes = the rows' work.dma_bytes; peak_scratchpad_bytes is
/// the largest row's. The set-up row (kind "setup") is left out.
FheSummary fhe_summary(const std::vector<OpRow>& ops);

}  // namespace photon

#include "workloads/driver/fhe_summary.h"

#include <algorithm>

namespace photon {

void FheTotals::add(const OpRow& row) {
  count += 1;
  latency_ns += row.latency_ns;
  ntt_limb_transforms += row.work.ntt_limb_transforms;
  modmul_words += row.work.modmul_words;
  bconv_macs += row.work.bconv_macs;
  dma_bytes += row.work.dma_bytes;
  key_bytes += row.memory.empty() ? row.work.hbm_read_bytes : row.memory_figure("key_bytes");
  ct_in_bytes += row.memory_figure("ct_in_bytes");
  ct_out_bytes += row.memory_figure("ct_out_bytes");
  spill_bytes += row.memory_figure("spill_bytes");
  plaintext_bytes += row.memory_figure("plaintext_bytes");
  peak_scratchpad_bytes = std::max(peak_scratchpad_bytes, row.memory_figure("peak_scratchpad_bytes"));
}

nlohmann::json FheTotals::to_json() const {
  return {{"count", count},
          {"latency_ns", latency_ns},
          {"ntt_limb_transforms", ntt_limb_transforms},
          {"modmul_words", modmul_words},
          {"bconv_macs", bconv_macs},
          {"key_bytes", key_bytes},
          {"dma_bytes", dma_bytes},
          {"ct_in_bytes", ct_in_bytes},
          {"ct_out_bytes", ct_out_bytes},
          {"spill_bytes", spill_bytes},
          {"plaintext_bytes", plaintext_bytes},
          {"peak_scratchpad_bytes", peak_scratchpad_bytes}};
}

nlohmann::json FheSummary::to_json() const {
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& [kind, t] : by_kind) kinds[kind] = t.to_json();
  return {{"by_kind", kinds}, {"total", total.to_json()}, {"bootstrap", bootstrap.to_json()}};
}

FheSummary fhe_summary(const std::vector<OpRow>& ops) {
  FheSummary s;
  for (const auto& row : ops) {
    if (row.kind == "setup") continue;
    s.by_kind[row.kind].add(row);
    s.total.add(row);
    if (row.kind == "bootstrap") s.bootstrap.add(row);
  }
  return s;
}

}  // namespace photon

#include "workloads/driver/fhe_summary.h"

namespace photon {

nlohmann::json fhe_summary(const nlohmann::json& ops) {
  nlohmann::json by_kind = nlohmann::json::object();
  nlohmann::json total = {{"count", 0},        {"latency_ns", 0.0}, {"ntt_limb_transforms", 0},
                          {"modmul_words", 0}, {"bconv_macs", 0},   {"key_bytes", 0},
                          {"dma_bytes", 0}};
  nlohmann::json boot = total;
  auto add = [](nlohmann::json& acc, const nlohmann::json& row) {
    const nlohmann::json& w = row.value("work", nlohmann::json::object());
    acc["count"] = acc["count"].get<uint64_t>() + 1;
    acc["latency_ns"] = acc["latency_ns"].get<double>() + row.value("latency_ns", 0.0);
    for (const char* k : {"ntt_limb_transforms", "modmul_words", "bconv_macs", "dma_bytes"})
      acc[k] = acc[k].get<uint64_t>() + w.value(k, uint64_t(0));
    acc["key_bytes"] = acc["key_bytes"].get<uint64_t>() + w.value("hbm_read_bytes", uint64_t(0));
  };
  for (const auto& row : ops) {
    const std::string kind = row.value("kind", "");
    if (kind == "setup") continue;
    if (!by_kind.contains(kind))
      by_kind[kind] = {{"count", 0},        {"latency_ns", 0.0}, {"ntt_limb_transforms", 0},
                       {"modmul_words", 0}, {"bconv_macs", 0},   {"key_bytes", 0},
                       {"dma_bytes", 0}};
    add(by_kind[kind], row);
    add(total, row);
    if (kind == "bootstrap") add(boot, row);
  }
  return {{"by_kind", by_kind}, {"total", total}, {"bootstrap", boot}};
}

}  // namespace photon

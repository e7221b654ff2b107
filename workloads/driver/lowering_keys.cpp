#include "workloads/driver/lowering_keys.h"

#include <nlohmann/json.hpp>

namespace photon {

namespace {

// HBM capacity (HbmConfig::capacity_bytes) bounds the memory plans of both lowerings.
#define PHOTON_HBM_CAPACITY_KEYS                                                               \
  "hbm.channels", "hbm.pseudo_channels", "hbm.bank_groups", "hbm.banks_per_group", "hbm.rows", \
      "hbm.columns", "hbm.bus_width_bits", "hbm.burst_length"
// The address map, the command ring and the semaphores every lowering allocates against.
#define PHOTON_MEMORY_MAP_KEYS \
  "noc.hbm_base", "noc.scratchpad_base", "cpu.ring_base", "cpu.semaphores", "scratchpad.size_kib"

}  // namespace

const std::vector<std::string>& lowering_config_keys(const std::string& frontend) {
  // workloads/lowering: GEMM tiling against the array and its timing (lower_matmul.cpp,
  // gemm_timing.cpp), scratchpad allocation (ai_lowering.cpp), HBM plan (memory_plan.cpp).
  static const std::vector<std::string> onnx = {
      "optical_gemm.rows",           "optical_gemm.cols",        "optical_gemm.wavelengths",
      "optical_gemm.modulation_ghz", "optical_gemm.clock_ghz",   "optical_gemm.conversion_latency_ns",
      "optical_gemm.pipeline_depth", "optical_gemm.weight_mode", "optical_gemm.weight_program_ns",
      PHOTON_MEMORY_MAP_KEYS,        PHOTON_HBM_CAPACITY_KEYS};
  // workloads/fhe: limb word width, bootstrapping and key switching (fhe.*), scratchpad slots and
  // key placement (fhe_lowering.cpp), packed residue width (ntt.storage_bits: limb sizes).
  static const std::vector<std::string> heir = {"fhe.", "ntt.word_bits", "ntt.storage_bits",
                                                PHOTON_MEMORY_MAP_KEYS, PHOTON_HBM_CAPACITY_KEYS};
  static const std::vector<std::string> none;
  if (frontend == "onnx") return onnx;
  if (frontend == "heir") return heir;
  return none;
}

std::string workload_frontend(const std::string& path) {
  auto ends = [&](const char* s) {
    const std::string suf(s);
    return path.size() >= suf.size() && path.compare(path.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (ends(".onnx")) return "onnx";
  if (ends(".mlir")) return "heir";
  if (ends(".pcs")) return "pcs";
  if (ends(".pasm")) return "pasm";
  return "";
}

std::string lowering_signature(const RunConfig& cfg, const std::string& frontend) {
  nlohmann::json sig = nlohmann::json::object();
  const ParamSet ps = bind_params(const_cast<RunConfig&>(cfg));  // read only
  for (const auto& key : lowering_config_keys(frontend)) {
    if (!key.empty() && key.back() == '.') {
      for (auto it = ps.params().lower_bound(key);
           it != ps.params().end() && it->first.compare(0, key.size(), key) == 0; ++it)
        sig[it->first] = ps.value(it->first);
    } else {
      sig[key] = ps.value(key);
    }
  }
  return sig.dump();
}

}  // namespace photon

#include "soc/unit_area.h"

#include "models/dma/dma_area.h"
#include "models/hbm/hbm_area.h"
#include "models/ntt/ntt_area.h"
#include "models/optical_gemm/optical_gemm_area.h"
#include "models/scratchpad/scratchpad_area.h"
#include "models/vector/vector_area.h"
#include "soc/firmware_cpu_area.h"

namespace photon {

nlohmann::json unit_area_report(const PlatformConfig& cfg) {
  const std::pair<const char*, UnitArea> units[] = {
      {"dma", dma_area(cfg.dma)},
      {"optical_gemm", optical_gemm_area(cfg.optical_gemm)},
      {"ntt", ntt_area(cfg.ntt)},
      {"vector", vector_area(cfg.vector)},
      {"scratchpad", scratchpad_area(cfg.scratchpad)},
      {"hbm", hbm_area(cfg.hbm)},
      {"firmware_cpu", firmware_cpu_area(cfg.cpu)},
  };
  nlohmann::json total = nlohmann::json::object(), parts = nlohmann::json::object();
  double sum = 0;
  for (const auto& [name, a] : units) {
    total[name] = a.total_mm2();
    sum += a.total_mm2();
    for (const auto& [part, mm2] : a.parts) parts[name][part] = mm2;
  }
  total["total"] = sum;
  return {{"area_mm2", total}, {"area_parts_mm2", parts}};
}

}  // namespace photon

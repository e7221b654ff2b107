#include "soc/unit_area.h"

#include "models/hbm/hbm_area.h"
#include "models/scratchpad/scratchpad_area.h"
#include "soc/firmware_cpu_area.h"
#include "soc/unit_table.h"

namespace photon {

nlohmann::json unit_area_report(const PlatformConfig& cfg) {
  // The queue units from the unit table, then the memories and the firmware CPU.
  std::vector<std::pair<std::string, UnitArea>> units;
  for (const UnitDesc& u : unit_table()) units.emplace_back(u.name, u.area ? u.area(cfg) : UnitArea{});
  units.emplace_back("scratchpad", scratchpad_area(cfg.scratchpad));
  units.emplace_back("hbm", hbm_area(cfg.hbm));
  units.emplace_back("firmware_cpu", firmware_cpu_area(cfg.cpu));
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

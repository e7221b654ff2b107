#include "soc/unit_area.h"

#include "models/hbm/hbm_area.h"
#include "models/scratchpad/scratchpad_area.h"
#include "soc/firmware_cpu_area.h"
#include "soc/unit_table.h"

namespace photon {

std::vector<std::pair<std::string, UnitArea>> unit_areas(const PlatformConfig& cfg) {
  // The queue units from the unit table, then the memories and the firmware CPU.
  std::vector<std::pair<std::string, UnitArea>> units;
  for (const UnitDesc& u : unit_table()) units.emplace_back(u.name, u.area ? u.area(cfg) : UnitArea{});
  units.emplace_back("scratchpad", scratchpad_area(cfg.scratchpad));
  units.emplace_back("hbm", hbm_area(cfg.hbm));
  units.emplace_back("firmware_cpu", firmware_cpu_area(cfg.cpu));
  return units;
}

}  // namespace photon

// The area of every unit of the platform, for the report (models/<unit>/<unit>_area.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "platform/stats/area.h"
#include "soc/platform_config.h"

namespace photon {

/// (unit, area) for every unit of the unit table (its `area`), then the scratchpad, HBM and the
/// firmware CPU, from `cfg` alone; mm2.
std::vector<std::pair<std::string, UnitArea>> unit_areas(const PlatformConfig& cfg);

}  // namespace photon

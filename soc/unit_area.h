// The area of every unit of the platform, for the report (models/<unit>/<unit>_area.h).
#pragma once

#include <nlohmann/json.hpp>

#include "soc/platform_config.h"

namespace photon {

/// {"area_mm2": {unit: mm2, ..., "total": mm2}, "area_parts_mm2": {unit: {part: mm2}}} for every
/// unit of the unit table (its `area`), the scratchpad, HBM and the firmware CPU, from `cfg` alone.
nlohmann::json unit_area_report(const PlatformConfig& cfg);

}  // namespace photon

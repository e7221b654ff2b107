// Vector unit area (README.md "Area"): one fp32 adder and one fp32 multiplier per lane.
#pragma once

#include "models/vector/vector_config.h"
#include "platform/stats/area.h"

namespace photon {

/// fp32 adder and multiplier area at 45 nm, Horowitz, "Computing's energy problem (and what we
/// can do about it)", ISSCC 2014 (relative area costs): 4184 um2 and 7700 um2. um2.
constexpr double kFp32AddUm2At45nm = 4184, kFp32MulUm2At45nm = 7700;
/// Ideal area scaling from 45 nm to the 14 nm node of the other digital units: (14/45)^2.
constexpr double kArea45To14nm = (14.0 / 45.0) * (14.0 / 45.0);

/// lanes x (fp32 add + fp32 multiply) x kArea45To14nm. mm2.
UnitArea vector_area(const VectorConfig& c);

}  // namespace photon

// HBM area on the accelerator die (README.md "Area"): the PHY of each 1024-bit stack interface.
// The DRAM stacks are dies of their own and are not counted.
#pragma once

#include "models/hbm/hbm_config.h"
#include "platform/stats/area.h"

namespace photon {

/// PHY area per 1024-bit HBM stack interface: F1 (Feldmann et al., MICRO 2021, Table 3) reports
/// its memory interface, 2 HBM2 PHYs, as 29.80 mm2 at GF 14/12 nm. mm2.
constexpr double kHbmPhyMm2PerStack = 29.80 / 2;

/// units() x bus_width_bits / 1024 stack interfaces x kHbmPhyMm2PerStack. mm2.
UnitArea hbm_area(const HbmConfig& c);

}  // namespace photon

// Scratchpad area (README.md "Area"): capacity x SRAM density.
#pragma once

#include "models/scratchpad/scratchpad_config.h"
#include "platform/stats/area.h"

namespace photon {

/// size_kib / 1024 MiB x kSramMm2PerMib14nm (F1, MICRO 2021: 0.751 mm2/MiB at 14/12 nm, banked).
/// mm2.
UnitArea scratchpad_area(const ScratchpadConfig& c);

}  // namespace photon

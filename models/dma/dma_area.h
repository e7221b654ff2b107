// DMA engine area (README.md "Area"): its data buffers, one burst per outstanding request per
// channel, in SRAM. The descriptor and address logic is small next to them and not counted.
#pragma once

#include "models/dma/dma_config.h"
#include "platform/stats/area.h"

namespace photon {

/// channels x outstanding x burst_bytes bytes x kSramMm2PerMib14nm (F1, MICRO 2021). mm2.
UnitArea dma_area(const DmaConfig& c);

}  // namespace photon

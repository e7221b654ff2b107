#include "models/dma/dma_area.h"

namespace photon {

UnitArea dma_area(const DmaConfig& c) {
  UnitArea a;
  const double bytes = double(c.channels) * c.outstanding * c.burst_bytes;
  a.add("buffers", bytes / double(1 << 20) * kSramMm2PerMib14nm);
  return a;
}

}  // namespace photon

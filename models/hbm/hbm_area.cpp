#include "models/hbm/hbm_area.h"

namespace photon {

UnitArea hbm_area(const HbmConfig& c) {
  UnitArea a;
  a.add("phy", double(c.units()) * double(c.bus_width_bits) / 1024.0 * kHbmPhyMm2PerStack);
  return a;
}

}  // namespace photon

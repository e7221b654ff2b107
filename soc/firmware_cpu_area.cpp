#include "soc/firmware_cpu_area.h"

namespace photon {

UnitArea firmware_cpu_area(const CpuConfig&) {
  UnitArea a;
  a.add("core", kIbexSmallKge * 1000.0 * kGeUm2At22nm * 1e-6);
  return a;
}

}  // namespace photon

#include "models/scratchpad/scratchpad_area.h"

namespace photon {

UnitArea scratchpad_area(const ScratchpadConfig& c) {
  UnitArea a;
  a.add("sram", double(c.size_kib) / 1024.0 * kSramMm2PerMib14nm);
  return a;
}

}  // namespace photon

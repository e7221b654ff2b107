#include "models/vector/vector_area.h"

namespace photon {

UnitArea vector_area(const VectorConfig& c) {
  UnitArea a;
  a.add("fp32_lanes", double(c.lanes) * (kFp32AddUm2At45nm + kFp32MulUm2At45nm) * kArea45To14nm * 1e-6);
  return a;
}

}  // namespace photon

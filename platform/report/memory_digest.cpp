#include "platform/report/memory_digest.h"

#include <cstdio>

namespace photon {

std::string Fnv1a64::text() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

}  // namespace photon

// UnitArea: a unit's silicon area from its configuration, in mm2, with its parts. Each unit's
// formula and the sources of its densities are in models/<unit>/<unit>_area.h and the unit's
// README ("Area"); the report has them as area_mm2 (per unit and total) and area_parts_mm2.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace photon {

struct UnitArea {
  std::vector<std::pair<std::string, double>> parts;  ///< (part, mm2), in the order they add up

  void add(const std::string& part, double mm2) { parts.emplace_back(part, mm2); }
  /// Sum of the parts, mm2.
  double total_mm2() const {
    double t = 0;
    for (const auto& p : parts) t += p.second;
    return t;
  }
};

/// Published density of on-chip SRAM used by every unit's buffers: F1 (Feldmann et al., MICRO
/// 2021, Table 3) reports a 64 MiB scratchpad (16 banks of 4 MiB) in 48.09 mm2 at GF 14/12 nm,
/// i.e. 0.751 mm2 per MiB including the banks' periphery. mm2 per MiB.
constexpr double kSramMm2PerMib14nm = 48.09 / 64.0;

}  // namespace photon

// Statistics every unit keeps for the report: busy time, energy and named counters.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace photon {

struct UnitStats {
  double busy_ns = 0;                      ///< time the unit was doing work (union of its busy intervals), ns
  double energy_pj = 0;                    ///< dynamic energy, pJ
  uint64_t commands = 0;                   ///< commands (or transactions) completed
  std::map<std::string, double> counters;  ///< unit-specific, names carry units ("bytes_read")

  /// Adds a busy interval [start_ns, end_ns); overlapping intervals added in nondecreasing start
  /// order are merged, so busy_ns is the length of the union.
  void add_busy(double start_ns, double end_ns) {
    if (end_ns <= start_ns) return;
    if (start_ns < busy_until_ns_) start_ns = busy_until_ns_;
    if (end_ns > start_ns) busy_ns += end_ns - start_ns;
    if (end_ns > busy_until_ns_) busy_until_ns_ = end_ns;
  }
  double busy_until_ns() const { return busy_until_ns_; }

 private:
  double busy_until_ns_ = 0;
};

}  // namespace photon

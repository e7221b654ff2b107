// PortCalendar: the bandwidth reservations of one NoC port on a timeline that initiators reach out
// of order. Under temporal decoupling (loosely-timed TLM-2.0, quantum keeper) an initiator runs
// ahead of global time by up to a quantum, so a transfer can arrive at a time earlier than one
// already reserved by another initiator. A single "port free at" time would make it queue behind
// that future reservation; the calendar instead gives it the earliest gap of at least its duration
// at or after its arrival (first fit), as the port would have served the two in time order.
// Reservations that end before global time are dropped: no transaction can arrive before global
// time. Times in ns.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace photon {

class PortCalendar {
 public:
  /// Reserves `dur` ns starting at the earliest time >= `at` that overlaps no other reservation;
  /// returns that start. `now`: global time (reservations ending by then are forgotten).
  double reserve(double at, double dur, double now) {
    size_t drop = 0;
    while (drop < busy_.size() && busy_[drop].second <= now) ++drop;
    busy_.erase(busy_.begin(), busy_.begin() + long(drop));
    size_t i = 0;
    const double s = fit(at, dur, i);
    // Insert [s, s + dur) before busy_[i], merging with touching neighbours.
    const double e = s + dur;
    if (i > 0 && busy_[i - 1].second == s) {
      busy_[i - 1].second = e;
      if (i < busy_.size() && busy_[i].first == e) {
        busy_[i - 1].second = busy_[i].second;
        busy_.erase(busy_.begin() + long(i));
      }
    } else if (i < busy_.size() && busy_[i].first == e) {
      busy_[i].first = s;
    } else if (dur > 0) {
      busy_.insert(busy_.begin() + long(i), {s, e});
    }
    return s;
  }
  /// The start reserve(at, dur, ...) would give, without reserving.
  double earliest(double at, double dur) const {
    size_t i = 0;
    return fit(at, dur, i);
  }
  /// End of the latest reservation (0 if none), ns.
  double last_end() const { return busy_.empty() ? 0.0 : busy_.back().second; }

 private:
  /// First fit at or after `at`; `i`: index of the first reservation after the gap.
  double fit(double at, double dur, size_t& i) const {
    double s = at;
    // Reservations are sorted and disjoint, so their ends are sorted too: those ending by `at`
    // (all skipped by the loop below) are found by binary search.
    i = size_t(std::upper_bound(busy_.begin(), busy_.end(), at,
                                [](double t, const std::pair<double, double>& b) { return t < b.second; }) -
               busy_.begin());
    for (; i < busy_.size(); ++i) {
      if (busy_[i].second <= s) continue;    // ends before the candidate start
      if (busy_[i].first >= s + dur) break;  // the gap before it is long enough
      s = busy_[i].second;                   // overlaps: try after it
    }
    return s;
  }

  std::vector<std::pair<double, double>> busy_;  ///< sorted, disjoint [start, end), ns
};

}  // namespace photon

// Pareto fronts of two objectives, both minimised (latency vs energy, latency vs area).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace photon::sweep {

/// Indices of the non-dominated points of `pts` (x, y), both minimised: no other point is <= in
/// both and < in one. Equal points are all non-dominated. Points with a NaN are left out. The
/// result is sorted by x (then y, then index). O(n log n): sort by x, keep the running minimum
/// of y.
std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& pts);

}  // namespace photon::sweep

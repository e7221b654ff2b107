#include "sweep/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace photon::sweep {

std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& pts) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < pts.size(); ++i)
    if (!std::isnan(pts[i].first) && !std::isnan(pts[i].second)) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (pts[a].first != pts[b].first) return pts[a].first < pts[b].first;
    if (pts[a].second != pts[b].second) return pts[a].second < pts[b].second;
    return a < b;
  });
  std::vector<size_t> out;
  double best_y = std::numeric_limits<double>::infinity();  // min y over strictly smaller x
  for (size_t g = 0; g < idx.size();) {
    size_t end = g;
    while (end < idx.size() && pts[idx[end]].first == pts[idx[g]].first) ++end;
    const double min_y = pts[idx[g]].second;  // the group is sorted by y
    if (min_y < best_y)
      for (size_t k = g; k < end && pts[idx[k]].second == min_y; ++k) out.push_back(idx[k]);
    best_y = std::min(best_y, min_y);
    g = end;
  }
  return out;
}

}  // namespace photon::sweep

// Pareto fronts (sweep/pareto.h) against a brute-force O(n^2) dominance check.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sweep/pareto.h"

namespace photon::sweep {
namespace {

std::vector<size_t> brute_force(const std::vector<std::pair<double, double>>& p) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (std::isnan(p[i].first) || std::isnan(p[i].second)) continue;
    bool dominated = false;
    for (size_t j = 0; j < p.size() && !dominated; ++j)
      dominated = !std::isnan(p[j].first) && !std::isnan(p[j].second) && p[j].first <= p[i].first &&
                  p[j].second <= p[i].second && (p[j].first < p[i].first || p[j].second < p[i].second);
    if (!dominated) out.push_back(i);
  }
  return out;
}

std::vector<size_t> sorted(std::vector<size_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Pareto, MatchesBruteForceOnRandomSets) {
  std::mt19937_64 gen(5);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + gen() % 300;
    std::vector<std::pair<double, double>> p;
    // Coarse values make ties in x, in y and whole repeated points common.
    const int grid = trial % 2 ? 10 : 1000;
    for (size_t i = 0; i < n; ++i) p.push_back({double(gen() % grid), double(gen() % grid)});
    if (trial % 7 == 0) p[gen() % n].first = std::nan("");
    const auto front = pareto_front(p);
    EXPECT_EQ(sorted(front), brute_force(p)) << "trial " << trial;
    for (size_t k = 1; k < front.size(); ++k) EXPECT_LE(p[front[k - 1]].first, p[front[k]].first);
  }
}

TEST(Pareto, SmallCases) {
  EXPECT_TRUE(pareto_front({}).empty());
  EXPECT_EQ(pareto_front({{1, 1}}), (std::vector<size_t>{0}));
  // (2,2) is dominated by (1,2) and (2,1); equal points are both on the front.
  EXPECT_EQ(pareto_front({{2, 2}, {1, 2}, {2, 1}, {1, 2}}), (std::vector<size_t>{1, 3, 2}));
  EXPECT_EQ(pareto_front({{1, 5}, {2, 4}, {3, 3}, {4, 4}}), (std::vector<size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace photon::sweep

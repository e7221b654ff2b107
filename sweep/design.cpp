#include "sweep/design.h"

#include <cmath>
#include <random>
#include <string>

#include <fmt/format.h>

#include "base/error.h"

namespace photon::sweep {

namespace {

class Uniform {
 public:
  explicit Uniform(uint64_t seed) : gen_(seed) {}
  /// Uniform in [0, 1), from the top 53 bits of one 64-bit output.
  double next() { return double(gen_() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return std::min<uint64_t>(n - 1, uint64_t(next() * double(n))); }

 private:
  std::mt19937_64 gen_;
};

/// Maps t in [0, 1) to a value of `d`.
std::string value_at(const SampleDim& d, double t) {
  if (!d.choices.empty())
    return d.choices[std::min<size_t>(d.choices.size() - 1, size_t(t * double(d.choices.size())))];
  if (d.integer) {
    const double lo = std::ceil(d.from), hi = std::floor(d.to);
    double v;
    if (d.log) {
      v = std::round(
          std::exp(std::log(std::max(lo, 0.5)) + t * (std::log(hi) - std::log(std::max(lo, 0.5)))));
    } else {
      v = std::floor(lo + t * (hi - lo + 1));
    }
    return format_value(std::min(hi, std::max(lo, v)), true);
  }
  const double v = d.log ? std::exp(std::log(d.from) + t * (std::log(d.to) - std::log(d.from)))
                         : d.from + t * (d.to - d.from);
  const double r = std::stod(fmt::format("{:.6g}", v));
  return format_value(std::min(d.to, std::max(d.from, r)), false);
}

}  // namespace

uint64_t design_size(const SweepSpec& spec, uint64_t limit) {
  long double n = 1;
  for (const auto& a : spec.grid) n *= a.values.size();
  if (spec.sample) n *= spec.sample->count;
  if (!spec.points.empty()) n *= spec.points.size();
  if (n > limit)
    throw Error("the design has " + fmt::format("{:.0f}", double(n)) + " points, more than " +
                std::to_string(limit) + ": split the sweep");
  return uint64_t(n);
}

std::vector<Assignment> draw_samples(const SampleSpec& s) {
  Uniform u(s.seed);
  std::vector<Assignment> out(s.count);
  if (s.method == "lhs") {
    for (const auto& d : s.dims) {
      std::vector<uint64_t> perm(s.count);
      for (uint64_t i = 0; i < s.count; ++i) perm[i] = i;
      for (uint64_t i = s.count; i > 1; --i) std::swap(perm[i - 1], perm[u.below(i)]);  // Fisher-Yates
      for (uint64_t i = 0; i < s.count; ++i)
        out[i].emplace_back(d.key, value_at(d, (double(perm[i]) + u.next()) / double(s.count)));
    }
  } else {
    for (uint64_t i = 0; i < s.count; ++i)
      for (const auto& d : s.dims) out[i].emplace_back(d.key, value_at(d, u.next()));
  }
  return out;
}

std::vector<Assignment> expand_design(const SweepSpec& spec) {
  design_size(spec);
  std::vector<Assignment> out{Assignment{}};
  // Grid: nested loops, the last axis fastest.
  for (const auto& axis : spec.grid) {
    std::vector<Assignment> next;
    next.reserve(out.size() * axis.values.size());
    for (const auto& p : out)
      for (const auto& v : axis.values) {
        Assignment q = p;
        q.emplace_back(axis.key, v);
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  auto cross = [&](const std::vector<Assignment>& part) {
    std::vector<Assignment> next;
    next.reserve(out.size() * part.size());
    for (const auto& p : out)
      for (const auto& r : part) {
        Assignment q = p;
        q.insert(q.end(), r.begin(), r.end());
        next.push_back(std::move(q));
      }
    out = std::move(next);
  };
  if (spec.sample) cross(draw_samples(*spec.sample));
  if (!spec.points.empty()) cross(spec.points);
  return out;
}

}  // namespace photon::sweep

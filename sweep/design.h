// Design expansion: a SweepSpec's grid, sample and explicit points to the list of points.
//
// The design is the cartesian product of the parts given, in this order: grid (nested loops in
// the order written, the last key varying fastest), sample rows, explicit points. Each point is
// the swept keys' values as text, to be applied like `--set` (sweep/plan.h resolves and checks
// them). Pure functions: the same spec gives the same points, in the same order, everywhere.
#pragma once

#include <cstdint>
#include <vector>

#include "sweep/sweep_spec.h"

namespace photon::sweep {

/// One design point before resolution: (key, value text) per swept key.
using Assignment = std::vector<KeyValue>;

/// Points in the product, before constraints: |grid| * sample.count * |points| (empty parts
/// count 1). Throws Error when it exceeds `limit`.
uint64_t design_size(const SweepSpec& spec, uint64_t limit = 10000000);

/// Every point of the design, in order (see above). Throws Error like design_size.
std::vector<Assignment> expand_design(const SweepSpec& spec);

/// The samples of `s`, one Assignment per sample, from a generator seeded with s.seed:
/// `random` draws each dimension independently and uniformly (in log space for log ranges);
/// `lhs` (Latin hypercube, McKay, Beckman and Conover, Technometrics 1979) splits each dimension
/// into `count` equal strata and takes each stratum exactly once, in a random order per
/// dimension, at a uniform position inside the stratum. Integer keys: uniform over the integers
/// of the range (log: rounded); choices: uniform over the list. Continuous values are rounded to
/// 6 significant digits. The generator is std::mt19937_64, whose output the C++ standard fixes,
/// mapped to [0, 1) by its top 53 bits: the samples are the same on every platform.
std::vector<Assignment> draw_samples(const SampleSpec& s);

}  // namespace photon::sweep

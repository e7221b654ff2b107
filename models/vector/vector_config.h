// Vector (SIMD) unit configuration.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

struct VectorConfig {
  uint32_t lanes = 64;                 ///< fp32 elements per cycle
  double clock_ghz = 1.0;              ///< clock, GHz
  uint32_t pipeline_depth = 8;         ///< pipeline fill, cycles
  uint32_t transcendental_cycles = 4;  ///< cycles per lane-group for exp/erf/tanh/sigmoid
  double energy_pj_per_op = 0.5;       ///< per element operation, pJ

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".lanes", &lanes, 1, 65536, "fp32 lanes");
    ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 100, "clock, GHz");
    ps.add_uint(p + ".pipeline_depth", &pipeline_depth, 0, 10000, "pipeline depth, cycles");
    ps.add_uint(p + ".transcendental_cycles", &transcendental_cycles, 1, 1000,
                "cycles per element group for transcendental functions");
    ps.add_double(p + ".energy_pj_per_op", &energy_pj_per_op, 0, 1e6, "energy per element op, pJ");
  }
};

}  // namespace photon

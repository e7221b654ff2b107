// NocConfig: the data NoC's address map, port bandwidth and latency (noc.* keys).
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

/// Data NoC: a TLM router with per-port bandwidth and a hop latency.
struct NocConfig {
  double port_bandwidth_gbps = 256.0;          ///< per initiator/target port, GB/s
  double hop_latency_ns = 2.0;                 ///< router traversal, ns
  uint64_t hbm_base = 0x0;                     ///< data address map: HBM base
  uint64_t scratchpad_base = 0x4000000000ull;  ///< data address map: scratchpad base (256 GiB)
  double energy_pj_per_byte = 0.1;             ///< wire energy, pJ/byte
  void declare(ParamSet& ps, const std::string& p);
};

}  // namespace photon

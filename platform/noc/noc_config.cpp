#include "platform/noc/noc_config.h"

namespace photon {

void NocConfig::declare(ParamSet& ps, const std::string& p) {
  ps.add_double(p + ".port_bandwidth_gbps", &port_bandwidth_gbps, 0.001, 1e6, "per-port bandwidth, GB/s");
  ps.add_double(p + ".hop_latency_ns", &hop_latency_ns, 0, 1e6, "router traversal latency, ns");
  ps.add_uint(p + ".hbm_base", &hbm_base, 0, ~uint64_t(0) >> 1, "data address of HBM, bytes");
  ps.add_uint(p + ".scratchpad_base", &scratchpad_base, 0, ~uint64_t(0) >> 1,
              "data address of the scratchpad, bytes");
  ps.add_double(p + ".energy_pj_per_byte", &energy_pj_per_byte, 0, 1e6, "NoC energy, pJ/byte");
}

}  // namespace photon

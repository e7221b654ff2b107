// DMA engine configuration.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

struct DmaConfig {
  uint32_t channels = 2;             ///< independent descriptor channels
  uint32_t burst_bytes = 4096;       ///< bytes per TLM request the engine issues
  uint32_t outstanding = 16;         ///< requests in flight per channel
  double clock_ghz = 1.0;            ///< engine clock, GHz
  uint32_t setup_cycles = 20;        ///< descriptor fetch/decode overhead per copy, cycles
  double energy_pj_per_byte = 0.05;  ///< engine datapath energy, pJ/byte
  /// Copies of at least this many bytes take the bulk path (README "Bulk copies"): the first
  /// 4 bursts exact while the round trip is measured (trip_patience), the rest as streams;
  /// 0 = every burst exact. Bytes; 16 KiB = four default bursts (README "Why 16 KiB").
  uint64_t bulk_bytes = 16384;
  /// Bulk path: the round trip between two memories is measured (a copy's first bursts exact)
  /// until this many consecutive bulk copies between them have not lowered it; later copies
  /// stream from their first burst (README "Bulk copies"). 0 = every bulk copy measures. Copies.
  uint32_t trip_patience = 32;

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".channels", &channels, 1, 64, "descriptor channels");
    ps.add_uint(p + ".burst_bytes", &burst_bytes, 64, 1u << 20, "bytes per request");
    ps.add_uint(p + ".outstanding", &outstanding, 1, 1024, "requests in flight per channel");
    ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 10, "clock, GHz");
    ps.add_uint(p + ".setup_cycles", &setup_cycles, 0, 100000, "per-descriptor overhead, cycles");
    ps.add_double(p + ".energy_pj_per_byte", &energy_pj_per_byte, 0, 1000, "datapath energy, pJ/byte");
    ps.add_uint(p + ".bulk_bytes", &bulk_bytes, uint64_t(0), uint64_t(1) << 40,
                "copies of at least this size go as streams (the first bursts exact while the round trip is "
                "measured; 0 = every burst exact), bytes");
    ps.add_uint(p + ".trip_patience", &trip_patience, 0, 1u << 20,
                "measuring bulk copies in a row that do not lower the round trip between two memories, after "
                "which their copies stop measuring it (0 = every bulk copy measures), copies");
  }
};

}  // namespace photon

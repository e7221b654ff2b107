// Scratchpad configuration: a banked on-chip SRAM.
#pragma once

#include <cstdint>
#include <string>

#include "base/param_set.h"

namespace photon {

struct ScratchpadConfig {
  uint64_t size_kib = 8192;                ///< capacity, KiB
  uint32_t banks = 32;                     ///< independently addressable banks
  uint32_t bank_width_bytes = 64;          ///< bytes one bank reads or writes per cycle
  uint32_t ports = 2;                      ///< concurrent requesters served per cycle
  double clock_ghz = 1.0;                  ///< SRAM clock, GHz
  uint32_t latency_cycles = 2;             ///< access pipeline latency, cycles
  double read_energy_pj_per_byte = 0.1;    ///< CACTI-class 28 nm SRAM, pJ/byte
  double write_energy_pj_per_byte = 0.12;  ///< pJ/byte

  void declare(ParamSet& ps, const std::string& p) {
    ps.add_uint(p + ".size_kib", &size_kib, 1, uint64_t(1) << 24, "capacity, KiB");
    ps.add_uint(p + ".banks", &banks, 1, 4096,
                "banks (addresses interleave across banks by bank_width_bytes)");
    ps.add_uint(p + ".bank_width_bytes", &bank_width_bytes, 4, 4096, "bytes per bank per cycle");
    ps.add_uint(p + ".ports", &ports, 1, 64, "requesters served per cycle");
    ps.add_double(p + ".clock_ghz", &clock_ghz, 0.01, 10, "clock, GHz");
    ps.add_uint(p + ".latency_cycles", &latency_cycles, 0, 1000, "access latency, cycles");
    ps.add_double(p + ".read_energy_pj_per_byte", &read_energy_pj_per_byte, 0, 1000, "read energy, pJ/byte");
    ps.add_double(p + ".write_energy_pj_per_byte", &write_energy_pj_per_byte, 0, 1000,
                  "write energy, pJ/byte");
  }
  uint64_t size_bytes() const { return size_kib * 1024; }
  /// Peak bandwidth in bytes per ns (= GB/s): banks * bank_width_bytes * clock_ghz.
  double peak_bandwidth_gbps() const { return double(banks) * bank_width_bytes * clock_ghz; }
};

}  // namespace photon

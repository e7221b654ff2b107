// Runs an FHE command stream on the whole platform (soc/platform.h: firmware, queues, DMA, HBM,
// NTT unit) in a forked child, one SystemC elaboration per process (tests/support/forked.h), and
// returns the figures the calibration tests check, in NTT-unit clock cycles.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/program.h"
#include "workloads/config/run_config.h"

namespace photon::fhe {

struct PlatformFheRun {
  double cycles = 0;                           ///< simulated time x ntt.clock_ghz
  std::map<std::string, double> ntt_counters;  ///< the NTT unit's counters (busy_cycles.ntt, ...)
  double ntt_energy_pj = 0;                    ///< the NTT unit's energy, pJ
  double hbm_busy_cycles = 0;                  ///< HBM busy time, cycles
  double dma_busy_cycles = 0;                  ///< DMA busy time, cycles
  double hbm_bytes = 0;                        ///< bytes read from and written to HBM
  /// Per op-table entry: first start and last end of its commands, cycles (0, 0 if none).
  std::vector<std::pair<double, double>> op_cycles;
  /// busy_cycles.<unit> of the NTT unit ("ntt", "bconv", "ewe", "automorph").
  double busy(const std::string& unit) const { return ntt_counters.at("busy_cycles." + unit); }
};

/// Runs `program` to its END command. A run that does not finish fails the calling test.
PlatformFheRun run_on_platform(const pcs::Program& program, const RunConfig& cfg);

}  // namespace photon::fhe

// estimate_cycles: a pure-C++ run of an FHE command stream on NttEngine, without the platform.
//
// Commands are taken in stream order. NTT commands go to an NttEngine (its internal engines and
// scoreboard decide overlap); the DMA queue is one in-order timeline where a copy of B bytes
// takes setup + B / bandwidth, bandwidth = min(HbmConfig::peak_bandwidth_gbps(), NoC port). Signal and
// Wait behave as in firmware: a Signal in a queue fires when that queue's earlier commands are
// done; the k-th Wait on a semaphore releases at its k-th Signal. A Fence joins all queues.
// It omits the firmware's dispatch cost, HBM bank timing and NoC contention, so it is a lower
// bound of the platform's time and a calibration tool for the NTT unit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/program.h"
#include "workloads/config/run_config.h"

namespace photon {

struct FheEstimate {
  uint64_t total_cycles = 0;                    ///< NTT-unit clock cycles until every queue is done
  std::map<std::string, uint64_t> busy_cycles;  ///< "ntt", "bconv", "ewe", "automorph", "hbm"
  uint64_t hbm_bytes = 0;                       ///< bytes moved by DMA
  double energy_pj = 0;                         ///< NTT-unit dynamic energy, pJ
  std::map<std::string, double> counters;       ///< NttEngine counters
  /// Per op-table entry: first start and last completion cycle of its commands (0, 0 if none).
  std::vector<std::pair<uint64_t, uint64_t>> op_cycles;
};

/// Throws Error for a Wait that no Signal can ever release, or a non-FHE command.
FheEstimate estimate_cycles(const pcs::Program& program, const RunConfig& cfg);

}  // namespace photon

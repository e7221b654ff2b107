// HbmController: the whole HBM device as independent (pseudo-)channel controllers behind one
// address map. Pure C++ (no SystemC). Cycles are tCK of the configured clock (cfg.tck_ns).
//
// Two ways in, both through the same per-channel queues, scheduler and timing state:
// - request level (trace player): has_room(addr, is_write, cycle) / enqueue(addr, is_write,
//   cycle), then finish();
// - bulk level (DMA path): access(addr, bytes, is_write, arrival_cycle) splits a burst into
//   column accesses of access_bytes(), queues them (waiting for room when a queue is full) and
//   runs the touched channels until the burst's reads have returned their data.
// Each channel keeps its own clock; a request that arrives at a channel whose clock is already
// past its arrival cycle (an out-of-order initiator) is taken at the channel's current cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_timing.h"

namespace photon {

class HbmController {
 public:
  /// Validates the config (HbmConfig::validate) and builds units() channel controllers.
  explicit HbmController(const HbmConfig& cfg);

  const HbmConfig& config() const { return cfg_; }
  const HbmAddressMap& address_map() const { return map_; }
  const HbmTimingParams& timing_params() const { return tp_; }
  uint32_t units() const { return uint32_t(ch_.size()); }
  HbmChannelController& unit(uint32_t u) { return ch_[u]; }
  const HbmChannelController& unit(uint32_t u) const { return ch_[u]; }

  /// Bulk access of `bytes` bytes at HBM byte offset `addr` (rounded out to whole column
  /// accesses), arriving at `arrival_cycle`. Returns the cycle at which the last column access
  /// completes: data returned (reads, RD + CL + burst) or accepted into the write buffer + 1
  /// (posted writes). Returns arrival_cycle when bytes == 0.
  uint64_t access(uint64_t addr, uint64_t bytes, bool is_write, uint64_t arrival_cycle);

  /// True when the queue that `addr` maps to can take a request at `cycle` (advances that
  /// channel to `cycle`).
  bool has_room(uint64_t addr, bool is_write, uint64_t cycle);
  /// Queues one column access at the channel's current cycle (>= `cycle`) and returns that
  /// cycle. The queue must have room (has_room() at the same cycle).
  uint64_t enqueue(uint64_t addr, bool is_write, uint64_t cycle);
  /// Runs one channel until it has room for a request of this kind; returns its cycle.
  uint64_t wait_for_room(uint64_t addr, bool is_write);
  /// Runs every channel until all queued reads have returned data, then advances every channel
  /// to the latest completion cycle (so refreshes are counted over the same span); returns it.
  uint64_t finish();

  /// Counters summed over all channels.
  HbmCounters counters() const;
  /// Dynamic energy, pJ: act_energy_pj * ACT + read_energy_pj * RD + write_energy_pj * WR +
  /// refresh_energy_pj * REF (per-command energies of HbmConfig).
  double energy_pj() const;
  /// Latest cycle any channel has simulated up to.
  uint64_t max_cycle() const;

 private:
  HbmConfig cfg_;
  HbmTimingParams tp_;
  HbmAddressMap map_;
  std::vector<HbmChannelController> ch_;
  std::vector<uint32_t> touched_stamp_;
  std::vector<uint32_t> touched_;
  uint32_t group_ = 0;
};

}  // namespace photon

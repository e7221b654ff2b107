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
  /// Column accesses advanced analytically by the fast-forward so far (0 if never used).
  uint64_t fast_forwarded_accesses() const { return ff_accesses_; }
  /// Latest cycle any channel has simulated up to.
  uint64_t max_cycle() const;

  /// Fast-forward plan in periods of the address map (2^row_shift column accesses, at least
  /// units x columns): exact warm-up, sampled window (refresh off: kFfWindowPeriods; on:
  /// kFfWindowRefreshes refresh intervals per unit), exact tail; accesses shorter than kFfMinPeriods periods stay exact.
  static constexpr uint64_t kFfWarmPeriods = 1, kFfWindowPeriods = 2, kFfTailPeriods = 1,
                            kFfMinPeriods = 6;
  /// With refresh on, a unit's window spans this many REFs: from its first request after a REF
  /// to its first request after the kFfWindowRefreshes-th next one (same refresh phase).
  static constexpr uint64_t kFfWindowRefreshes = 4;

 private:
  struct Probe {  ///< one unit's sampling window
    enum State { kIdle, kWaiting, kOpen, kClosed } state = kIdle;
    uint64_t start_ref = 0;  ///< window opens at the first request once refreshes >= this
    uint64_t cycle = 0, end_cycle = 0;  ///< unit clock at the window's first / last request
    uint64_t accesses = 0;   ///< requests the unit took in the window after the first one
    HbmCounters ctr, end_ctr;  ///< unit counters at those requests
  };
  /// Window bookkeeping after a request to unit `u`; `pending` counts the units whose window
  /// has not closed yet (waiting to open or open).
  void sample(uint32_t& pending, uint32_t u, bool refresh);
  /// Advances every unit over column accesses [from, to) of the burst starting at byte `first`
  /// at the rates sampled in probe_. False (nothing changed) if a unit with work in that range
  /// was not sampled in a saturated state.
  bool fast_forward(uint64_t first, uint64_t from, uint64_t to);

  HbmConfig cfg_;
  HbmTimingParams tp_;
  HbmAddressMap map_;
  std::vector<HbmChannelController> ch_;
  std::vector<uint32_t> touched_stamp_;
  std::vector<uint32_t> touched_;
  uint32_t group_ = 0;
  std::vector<Probe> probe_;
  uint64_t ff_accesses_ = 0;
};

}  // namespace photon

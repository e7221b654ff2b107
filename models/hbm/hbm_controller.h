// HbmController: the whole HBM device as independent (pseudo-)channel controllers behind one
// address map. Pure C++ (no SystemC). Cycles are tCK of the configured clock (cfg.tck_ns).
//
// Two ways in, both through the same per-channel queues, scheduler and timing state:
// - request level (trace player): has_room(addr, is_write, cycle) / enqueue(addr, is_write,
//   cycle), then finish();
// - bulk level (DMA path): access(stream, is_write, arrival_cycle) splits a contiguous burst or a
//   2-D strided stream (HbmStream) into column accesses of access_bytes(), queues them in order
//   (waiting for room when a queue is full, so all banks and channels work in parallel) and runs
//   the touched channels until the stream's requests are done.
// Each channel keeps its own clock; a request that arrives at a channel whose clock is already
// past its arrival cycle (an out-of-order initiator under temporal decoupling) is served at its
// arrival if the channel did nothing since (HbmChannelController::rewind_idle), else at the
// channel's current cycle.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "models/hbm/hbm_address.h"
#include "models/hbm/hbm_calibration.h"
#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_prefetch.h"
#include "models/hbm/hbm_timing.h"

namespace photon {

/// A bulk access pattern: `rows` rows of `row_bytes` bytes each, row r starting at byte offset
/// addr + r * stride. A contiguous burst is rows = 1 (stride unused).
struct HbmStream {
  uint64_t addr = 0, row_bytes = 0, rows = 1, stride = 0;
  uint64_t bytes() const { return row_bytes * rows; }
};

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
  uint64_t access(uint64_t addr, uint64_t bytes, bool is_write, uint64_t arrival_cycle) {
    return access(HbmStream{addr, bytes, 1, bytes}, is_write, arrival_cycle);
  }
  /// Bulk access of a 2-D stream: its column accesses in row order (each row rounded out to whole
  /// column accesses) arrive at `arrival_cycle`; returns the cycle at which the last completes
  /// (as above). Rows with stride == row_bytes are one contiguous burst. Large streams are
  /// fast-forwarded (README "Fast-forward of large bulk accesses"); the sampled per-channel rates
  /// are kept per stream shape (direction, row_bytes, stride) and reused by later streams of the
  /// same shape, which then skip the sampling window; a stream too short to sample has its shape
  /// sampled once on a separate controller (calibration).
  uint64_t access(const HbmStream& stream, bool is_write, uint64_t arrival_cycle);

  /// True when the queue that `addr` maps to can take a request at `cycle` (advances that
  /// channel to `cycle`).
  bool has_room(uint64_t addr, bool is_write, uint64_t cycle);
  /// Queues one column access at the channel's current cycle (>= `cycle`) and returns that
  /// cycle. The queue must have room (has_room() at the same cycle).
  uint64_t enqueue(uint64_t addr, bool is_write, uint64_t cycle);
  /// Runs one channel until it has room for a request of this kind; returns its cycle.
  uint64_t wait_for_room(uint64_t addr, bool is_write);
  /// End of a request stream: runs every channel until all queued reads have returned data and
  /// every posted write has been issued as a WR command (the write buffers are drained), then
  /// advances every channel to the latest of those cycles (so refreshes are counted over the same
  /// span, drain_cycle()). Returns the latest request completion cycle (data return, or posted
  /// write acceptance + 1).
  uint64_t finish();
  /// After finish(): the cycle every channel was advanced to (>= finish()'s result): the last
  /// posted write has been issued before it.
  uint64_t drain_cycle() const { return drain_cycle_; }

  /// Counters summed over all channels.
  HbmCounters counters() const;
  /// Dynamic energy, pJ: act_energy_pj * ACT + read_energy_pj * RD + write_energy_pj * WR +
  /// refresh_energy_pj * REF (per-command energies of HbmConfig).
  double energy_pj() const;
  /// Column accesses advanced analytically by the fast-forward so far (0 if never used).
  uint64_t fast_forwarded_accesses() const { return ff_accesses_; }
  /// Fast-forwards that reused sampled rates of an earlier stream of the same shape.
  uint64_t fast_forward_reuses() const { return ff_reuses_; }
  /// Stream shapes whose rates were sampled on a separate controller (calibrate()).
  uint64_t calibrations() const { return calibrations_; }
  /// Latest cycle any channel has simulated up to.
  uint64_t max_cycle() const;
  /// The sampled windows (one per unit) that a fresh controller of this configuration measures
  /// for `stream` (README "Sampling"): what a calibration keeps for the stream's shape. Empty if
  /// the stream is too short to sample or a unit with work in the middle was not saturated.
  /// Runs each distinct per-unit request sequence once (hbm_sampling.cpp); equal, field for
  /// field, to the interleaved run of the whole stream.
  /// `cancel` (optional): once set, the sampling stops within one request and the result is
  /// meaningless (a caller that gives up on it).
  std::vector<HbmRateProbe> sample_rates(const HbmStream& stream, bool is_write,
                                         const std::atomic<bool>* cancel = nullptr) const;
  /// The synthetic stream a calibration triggered by `s` samples (calibrate()): `s`'s direction,
  /// address and shape, long enough for the warm-up, the windows, one period of middle and the
  /// tail.
  HbmStream calibration_stream(const HbmStream& s, bool is_write) const;
  /// Plans the calibrations that bulk streams arriving in this order (direction, stream) will
  /// trigger, as access() decides (each shape's first stream long enough to reuse rates; shapes
  /// already known or in an enabled HbmCalibrationMemo are skipped), and starts computing them on
  /// `threads` helper threads, at most one per planned calibration and per core beyond the
  /// caller's (README "Calibration prefetch"). access() then takes each one from
  /// the helpers, or computes it itself if they have not started it or the order differs. Changes
  /// nothing but the wall time: every result is what it would have been without it. threads = 0:
  /// no plan. Replaces an earlier plan.
  void plan_calibrations(const std::vector<std::pair<HbmStream, bool>>& streams, unsigned threads);
  /// Calibrations planned by plan_calibrations() (0 without a plan).
  uint64_t planned_calibrations() const { return planned_; }

  /// Fast-forward plan in periods of the address map (2^row_shift column accesses, at least
  /// units x columns): exact warm-up, sampled window (refresh off: kFfWindowPeriods; on:
  /// kFfWindowRefreshes refresh intervals per unit), exact tail; accesses shorter than kFfMinPeriods periods
  /// stay exact.
  static constexpr uint64_t kFfWarmPeriods = 1, kFfWindowPeriods = 2, kFfTailPeriods = 1, kFfMinPeriods = 6;
  /// With refresh on, a unit's window spans this many REFs: from its first request after a REF
  /// to its first request after the kFfWindowRefreshes-th next one (same refresh phase).
  static constexpr uint64_t kFfWindowRefreshes = 4;
  /// Streams of a shape with known rates: exact head and tail of hbm.stream_edge_columns column
  /// accesses per unit, all units together.
  uint64_t edge_columns() const { return uint64_t(units()) * cfg_.stream_edge_columns; }

 private:
  /// A stream shape: (is_write, row_bytes, stride); see shape_key().
  using ShapeKey = std::tuple<bool, uint64_t, uint64_t>;
  using Probe = HbmRateProbe;  ///< one unit's sampling window (hbm_calibration.h)
  /// Window bookkeeping of window `p` after a request to its unit's controller `ch`; `pending`
  /// counts the units whose window has not closed yet (waiting to open or open).
  static void sample(Probe& p, const HbmChannelController& ch, uint32_t& pending, bool refresh);
  /// Position in a stream's column sequence: row `row`, column `col` of that row (which has
  /// `cols` column accesses starting at column index `k0`), sequence index `i`.
  struct Cursor {
    uint64_t row = 0, col = 0, cols = 0, k0 = 0, i = 0;
  };
  void start_row(const HbmStream& s, Cursor& c) const;
  /// Fast-forward period of the address pattern, column accesses: 2^row_shift, at least
  /// units x columns (README "Fast-forward").
  uint64_t ff_period() const {
    return std::max<uint64_t>(uint64_t(1) << map_.row_shift(), uint64_t(units()) * cfg_.columns);
  }
  /// Moves `c` to the next column access (into the next row at a row's end).
  void next(const HbmStream& s, Cursor& c) const;
  /// Moves `c` forward to sequence index `target` (>= c.i).
  void seek(const HbmStream& s, Cursor& c, uint64_t target) const;
  /// Column accesses per unit in sequence range [c.i, to) (c is a copy; left unchanged).
  std::vector<uint64_t> unit_counts(const HbmStream& s, Cursor c, uint64_t to) const;
  /// The window kept its unit saturated: closed, at least `columns` requests, clock moved.
  bool saturated(const Probe& p) const;
  /// Closes still-open windows (no refresh) of the units in `todo` and checks every unit with
  /// work was sampled saturated (its clock moved while it took at least `columns` requests).
  /// `donor`: a unit without a saturated window takes the saturated units' windows pooled
  /// (a strided stream at another phase reaches units its shape's calibration did not); the
  /// probes vector keeps it.
  bool probes_ready(const std::vector<uint64_t>& todo, std::vector<Probe>& probes, bool donor) const;
  /// Advances every unit with todo[u] > 0 to the stream's arrival cycle, then at the rates of
  /// probes[u].
  void fast_forward(const std::vector<uint64_t>& todo, const std::vector<Probe>& probes,
                    uint64_t arrival_cycle);

  HbmConfig cfg_;
  HbmTimingParams tp_;
  HbmAddressMap map_;
  std::vector<HbmChannelController> ch_;
  std::vector<uint32_t> touched_stamp_;
  std::vector<uint32_t> touched_;
  /// Column accesses of the current access() not yet given to their unit, per unit.
  std::vector<std::vector<HbmColumn>> columns_;
  /// Gives every unit its pending column accesses (HbmChannelController::accept_all()).
  void accept_columns(bool is_write, uint64_t arrival_cycle);
  uint32_t group_ = 0;
  std::vector<Probe> probe_;
  /// (is_write, row_bytes, stride); contiguous bursts, and streams whose rows span at least two
  /// address-map periods (they move like one burst), are (is_write, 0, 0).
  ShapeKey shape_key(const HbmStream& s, bool is_write) const;
  /// Samples the rates of stream shape `s` on a fresh controller with a stream of that shape
  /// long enough to sample, and keeps them in rates_ (an empty entry if it could not be sampled).
  /// With HbmCalibrationMemo enabled, a calibration already made for the same configuration and
  /// stream is taken from it (the same windows: a calibration depends on nothing else).
  void calibrate(const HbmStream& s, bool is_write);
  /// The memo's windows under `memo_key` if there is a usable entry (one window per unit, or
  /// none), else nullptr.
  const std::vector<Probe>* memo_windows(const std::string& memo_key) const;

  /// Column accesses of stream `s` (each row rounded out to whole column accesses).
  uint64_t column_count(const HbmStream& s) const;
  /// The stream access() works on: one contiguous burst when rows are adjacent.
  static HbmStream normalised(const HbmStream& s) {
    return s.rows == 1 || s.stride == s.row_bytes ? HbmStream{s.addr, s.bytes(), 1, 0} : s;
  }
  /// Planned calibrations being computed ahead (plan_calibrations()); shared by copies.
  std::shared_ptr<HbmCalibrationPrefetch> prefetch_;
  uint64_t planned_ = 0;
  /// Sampled windows per stream shape. An empty entry: the shape does not saturate, stays exact.
  std::map<ShapeKey, std::vector<Probe>> rates_;
  uint64_t ff_accesses_ = 0, ff_reuses_ = 0, calibrations_ = 0;
  uint64_t drain_cycle_ = 0;
};

}  // namespace photon

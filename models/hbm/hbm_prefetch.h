// HbmCalibrationPrefetch: HBM calibrations computed ahead of need on helper threads (README.md
// "Calibration prefetch").
//
// A calibration (HbmController::calibrate) is a pure function of the HBM configuration and of its
// synthetic stream (hbm_calibration.h), so it can be computed as soon as that stream is known, on
// any thread. The platform knows a run's bulk streams from its command stream before the run
// (HbmController::plan_calibrations): helper threads compute the planned calibrations in order
// while the simulation runs, and the simulation takes each one when it needs it. Results are the
// same with or without helpers, whatever the threads' timing: only the wall time changes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "models/hbm/hbm_calibration.h"

namespace photon {

/// One planned calibration: the direction and the synthetic stream it samples
/// (HbmController::calibration_stream: byte offset addr, rows of row_bytes, stride apart).
struct HbmCalibrationJob {
  bool is_write = false;
  uint64_t addr = 0, row_bytes = 0, rows = 1, stride = 0;
};

class HbmCalibrationPrefetch {
 public:
  /// The calibration itself: the sampled windows of a job. Called concurrently from several
  /// threads, so it must only read shared state. Once `cancel` is set the result is discarded,
  /// so it may stop early (HbmController::sample_rates stops within one request).
  using Compute =
      std::function<std::vector<HbmRateProbe>(const HbmCalibrationJob&, const std::atomic<bool>& cancel)>;

  /// Starts up to `threads` helper threads that compute `jobs` in order with `compute`; fewer if
  /// the system refuses to start more (none: take() computes each job on its caller).
  HbmCalibrationPrefetch(std::vector<HbmCalibrationJob> jobs, Compute compute, unsigned threads);
  /// Cancels the calibrations in progress (they stop within one simulated request), starts no
  /// other, and joins the helpers.
  ~HbmCalibrationPrefetch();
  HbmCalibrationPrefetch(const HbmCalibrationPrefetch&) = delete;
  HbmCalibrationPrefetch& operator=(const HbmCalibrationPrefetch&) = delete;

  /// The windows of the planned calibration `job` into `out`: waits for a helper that is
  /// computing it, computes it on the calling thread if no helper has started it. False if it was
  /// not planned or was taken before (the caller computes it). Rethrows what computing it threw.
  bool take(const HbmCalibrationJob& job, std::vector<HbmRateProbe>& out);
  /// Planned calibrations taken so far, and those of them a helper had computed or started.
  uint64_t taken() const { return taken_; }
  uint64_t taken_from_helpers() const { return from_helpers_; }
  /// Helper threads running (fewer than asked if the system refused some).
  unsigned helpers() const { return unsigned(threads_.size()); }

 private:
  enum class State { kTodo, kRunning, kDone, kTaken };
  struct Slot {
    HbmCalibrationJob job;
    State state = State::kTodo;
    bool by_helper = false;
    std::vector<HbmRateProbe> probes;
    std::exception_ptr error;
  };
  using Key = std::tuple<bool, uint64_t, uint64_t, uint64_t, uint64_t>;
  static Key key(const HbmCalibrationJob& j) { return Key{j.is_write, j.addr, j.row_bytes, j.rows, j.stride}; }
  /// Claims the first planned calibration nobody has started (state kRunning) into `i`; false
  /// if none is left. Call with the lock held.
  bool claim_next(size_t& i);
  void helper();
  /// Computes slot `i` (claimed, state kRunning) without the lock, then stores the result.
  void run(size_t i, std::unique_lock<std::mutex>& lock);

  std::vector<Slot> slots_;
  std::map<Key, size_t> index_;
  Compute compute_;
  size_t next_ = 0;  ///< slots before it are claimed
  bool stop_ = false;
  std::atomic<bool> cancel_{false};  ///< set by the destructor: computations in progress stop
  uint64_t taken_ = 0, from_helpers_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
};

}  // namespace photon

// Calibrations of the HBM fast-forward (README.md "Fast-forward of large bulk accesses"): the
// sampled windows of one stream shape, and a memo of them across simulations.
//
// A calibration (HbmController::calibrate) is a pure function of the HBM configuration and of
// the stream that triggers it (direction, address, shape): it runs a fresh controller on a
// synthetic stream built from those alone. A process that simulates many configurations with
// the same HBM (a sweep worker) can therefore compute each calibration once and reuse it: the
// memo is off by default, and when on, every simulation is exactly what it would have been
// without it (tests/models/hbm/hbm_calibration_test.cpp). A store (HbmCalibrationStore) can keep
// the memo's entries beyond the process: the on-disk cache of `photon run` and `photon fhe`
// (soc/calibration_cache.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/hbm/hbm_channel.h"
#include "models/hbm/hbm_config.h"

namespace photon {

/// One unit's sampling window of a stream shape.
struct HbmRateProbe {
  enum State { kIdle, kWaiting, kOpen, kClosed } state = kIdle;
  uint64_t start_ref = 0;             ///< window opens at the first request once refreshes >= this
  uint64_t cycle = 0, end_cycle = 0;  ///< unit clock at the window's first / last request, tCK
  uint64_t accesses = 0;              ///< requests the unit took in the window after the first one
  HbmCounters ctr, end_ctr;           ///< unit counters at those requests
};

/// Where a memo keeps calibrations beyond its process: asked on a miss, given every new entry.
/// Neither call may throw for a missing or damaged entry (a store only saves time).
class HbmCalibrationStore {
 public:
  virtual ~HbmCalibrationStore() = default;
  /// The windows stored under `key` into `probes`; false if there are none.
  virtual bool load(const std::string& key, std::vector<HbmRateProbe>& probes) = 0;
  virtual void save(const std::string& key, const std::vector<HbmRateProbe>& probes) = 0;
};

/// The process-wide memo of calibrations (off until enable()).
class HbmCalibrationMemo {
 public:
  static HbmCalibrationMemo& instance();

  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  /// The key of a calibration: every HbmConfig value, the direction, the triggering stream's
  /// address and its shape (row_bytes, stride of HbmController's shape key).
  static std::string key(const HbmConfig& cfg, bool is_write, uint64_t addr, uint64_t row_bytes,
                         uint64_t stride);
  /// Backs the memo with `store` (nullptr: none); the caller keeps it alive while it is set.
  void set_store(HbmCalibrationStore* store) { store_ = store; }
  /// The memoised windows of `key` (asking the store on a miss), or nullptr.
  const std::vector<HbmRateProbe>* find(const std::string& key);
  /// Adds an entry and gives it to the store. An existing key with other windows (a damaged
  /// store entry its controller refused) takes the new ones, in the store too.
  void put(const std::string& key, const std::vector<HbmRateProbe>& probes);
  /// One entry as JSON ({key, probes}), and back. entry_probes throws Error for malformed JSON
  /// and for values no calibration makes (a count that is not an unsigned integer below 2^40, a
  /// probe not of 7 fields, a window whose end cycle or counters are below its start's).
  static nlohmann::json entry_json(const std::string& key, const std::vector<HbmRateProbe>& probes);
  static std::vector<HbmRateProbe> entry_probes(const nlohmann::json& entry);
  /// Entries as JSON ({"entries": [{key, probes}]}), all or those added after the first `from`.
  nlohmann::json to_json(size_t from = 0) const;
  /// Adds the entries of `j` (from to_json). Throws Error for malformed JSON.
  void merge(const nlohmann::json& j);
  size_t size() const { return order_.size(); }

 private:
  bool add(const std::string& key, const std::vector<HbmRateProbe>& probes);

  bool enabled_ = false;
  HbmCalibrationStore* store_ = nullptr;
  std::map<std::string, std::vector<HbmRateProbe>> entries_;
  std::vector<std::string> order_;  ///< keys in insertion order
};

}  // namespace photon

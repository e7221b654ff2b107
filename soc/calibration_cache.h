// HBM calibrations kept on disk between runs (models/hbm/README.md "Calibration memo"): a
// calibration is a pure function of the HBM configuration, its synthetic stream and the code
// that samples it, so `photon run` and `photon fhe` keep each one they compute in a per-user
// cache and take it from there in later runs of the same executable. Results are exactly those
// without the cache; only wall time changes.
//
//   $PHOTON_CACHE_DIR (set and empty: no cache), else $XDG_CACHE_HOME/photon, else
//   $HOME/.cache/photon; under it hbm-calibrations/BUILD_ID/HASH.json, one calibration per file
//   ({key, probes}: HbmCalibrationMemo::entry_json, and `check`, a hash of the probes' JSON, so
//   an edited or damaged file is a miss), BUILD_ID the executable's GNU build ID so a rebuilt
//   photon never reads another build's calibrations.
//
// Size: the first calibration a process saves, if the directory then holds more than
// kMaxEntries files, prunes it to three quarters of that, the least recently written first (the
// directory is the cache's own: any file in it counts). A calibration file is 1.5-5 KB, so a
// build's directory stays near 20 MB; other builds' directories are removed once unused for 14
// days.
#pragma once

#include <string>
#include <vector>

#include "models/hbm/hbm_calibration.h"

namespace photon {

/// A directory of calibration files. Missing, unreadable, damaged or foreign files are misses,
/// and a file that cannot be written is skipped: the cache never fails a run.
class CalibrationCache final : public HbmCalibrationStore {
 public:
  /// The cache directory of this executable from the environment (see above); empty when the
  /// cache is off or the executable has no build ID.
  static std::string default_dir();
  /// Files kept per build directory by default (see "Size" above).
  static constexpr size_t kMaxEntries = 4096;
  explicit CalibrationCache(std::string dir, size_t max_entries = kMaxEntries)
      : dir_(std::move(dir)), max_entries_(max_entries) {}

  bool load(const std::string& key, std::vector<HbmRateProbe>& probes) override;
  void save(const std::string& key, const std::vector<HbmRateProbe>& probes) override;
  /// The `check` of a file's probes (JSON array): a hash of their JSON text, so any edit of a
  /// window, even to values a calibration could make, makes the file a miss.
  static std::string check_of(const nlohmann::json& probes);
  /// The file that holds `key`.
  std::string path(const std::string& key) const;

 private:
  /// Once per process, before the first save: creates the directory or prunes it.
  void prepare();

  std::string dir_;
  size_t max_entries_;
  bool prepared_ = false;
};

/// Backs the process's HbmCalibrationMemo with the cache at default_dir() (and enables the
/// memo) for the rest of the process; does nothing when the cache is off.
void use_calibration_cache();

}  // namespace photon

// Files of a sweep directory, written so that readers never see a partial file and a full disk
// or an unwritable directory is one clear error.
//
//   DIR/results.sqlite   the database (written by the front end only)
//   DIR/plan.json        the resolved plan the workers read
//   DIR/spec.yaml        a copy of the spec
//   DIR/results/KEY.json one result per run (written by workers; the durable record)
//   DIR/reports/KEY.json each run's full report
//   DIR/logs/            worker logs, and a run's stderr when it fails
//   DIR/slurm/           the sbatch script, its task slices and task output
//   DIR/plots/           `photon sweep plot` output
//   DIR/cache/           HBM calibrations the workers share (models/hbm/hbm_calibration.h);
//                        cleared whenever a front end starts
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/output_file.h"

namespace photon::sweep {

using photon::write_atomic;  // base/output_file.h
/// Reads a whole file. Throws Error naming it.
std::string read_text(const std::string& path);
/// Parses a JSON file. Throws Error naming it.
nlohmann::json read_json(const std::string& path);

/// Creates DIR and its subfolders (results, reports, logs) and checks that a file can be written
/// in it. Throws Error naming DIR and the reason.
void prepare_sweep_dir(const std::string& dir);

std::string result_path(const std::string& dir, const std::string& key);
std::string report_path(const std::string& dir, const std::string& key);
/// "reports/KEY.json": how the database names a report (relative to DIR).
std::string report_relpath(const std::string& key);

/// An exclusive lock on DIR/.lock for the life of the object (flock), so that two front ends
/// never run one sweep directory. Throws Error when another process holds it.
class DirLock {
 public:
  explicit DirLock(const std::string& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

/// True when another process holds DIR's lock (a front end is running the sweep).
bool dir_locked(const std::string& dir);

}  // namespace photon::sweep

// Shared pieces of the photon subcommands: configuration options, atomic output files, progress.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "workloads/config/run_config.h"

namespace photon::cli {

/// --config FILE and --set key=value (repeatable), identical on every subcommand.
struct ConfigOptions {
  std::string file;
  std::vector<std::string> sets;
  void add_to(CLI::App& app, bool required = false);
  RunConfig load() const;
};

/// Checks, before any work, that `path` can be written: its directory exists and is writable and
/// it is not an existing non-regular file (a device, a directory). Throws Error naming the path.
void check_output_path(const std::string& path);

/// Writes `text` to `path` through a temporary file and a rename: readers never see a partial
/// file, and a failed write leaves no file behind. Throws Error naming the path.
void write_file_atomic(const std::string& path, const std::string& text);
void write_json_atomic(const std::string& path, const nlohmann::json& j);

/// A one-line progress indicator on stderr, shown only when stderr is a terminal, the run has
/// lasted more than a second of wall time and `quiet` is false.
class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress();
  void update(const std::string& text);
  /// False when stderr is not a terminal or --quiet was given: no progress callbacks needed.
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  bool shown_ = false;
  double start_s_;
};

/// Wall-clock seconds since an arbitrary epoch (steady clock).
double wall_seconds();

}  // namespace photon::cli

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

/// Checks, before any work, that `path` can be written by writing it (base/output_file.h): its
/// directory exists, it is not an existing non-regular file (a device, a directory), and it can
/// be created or opened for writing. Throws Error naming the path.
void check_output_path(const std::string& path);

/// The files one subcommand writes (--report, --trace, cosim.waveform): checked together before
/// any simulation (each one probed by writing it; no two naming the same file) and removed
/// together if the command fails, so an error leaves no new or half-written output behind.
class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  /// Unless keep() was called: removes every output created or changed since check().
  ~OutputFiles();
  /// `what` names the option or key in errors ("--report", "cosim.waveform"); "" paths are ignored.
  void add(const std::string& what, const std::string& path);
  /// Throws Error "<what>: <path>: ..." for a path that cannot be written, or "<a> and <b> name
  /// the same file: <path>". Records each file's state.
  void check();
  /// True if the output `what` was created or changed since check().
  bool changed(const std::string& what) const;
  /// Removes the output `what` (if it exists).
  void remove(const std::string& what);
  /// The command has finished: keep every output.
  void keep() { keep_ = true; }

 private:
  struct File {
    std::string what, path;
    bool existed = false;
    long long stamp = 0;  ///< modification time, ns since the file-clock epoch
    unsigned long long size = 0;
  };
  static void state_of(const std::string& path, bool& exists, long long& stamp, unsigned long long& size);
  const File* find(const std::string& what) const;
  std::vector<File> files_;
  bool keep_ = false;
};

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

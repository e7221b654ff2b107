#include "soc/calibration_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

#include "base/build_id.h"
#include "base/error.h"
#include "base/file_read.h"
#include "base/output_file.h"

namespace photon {

namespace fs = std::filesystem;

namespace {
/// Build directories of other executables untouched this long are removed when a new one is made.
constexpr auto kStaleBuildAge = std::chrono::hours(24 * 14);
/// Larger than any entry (a calibration has one probe per HBM unit, ~150 bytes each, and at most
/// a few hundred units), so a bigger file is not one.
constexpr uintmax_t kMaxEntryBytes = 4u << 20;
/// The subdirectories (or the regular files) of `dir` with their last write times; an entry
/// that cannot be read is left out, an unreadable `dir` gives none.
std::vector<std::pair<fs::file_time_type, fs::path>> entries_written(const fs::path& dir, bool directories) {
  std::vector<std::pair<fs::file_time_type, fs::path>> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    const bool kind = directories ? it->is_directory(entry_ec) : it->is_regular_file(entry_ec);
    if (!kind || entry_ec) continue;
    const auto written = it->last_write_time(entry_ec);
    if (!entry_ec) out.emplace_back(written, it->path());
  }
  return out;
}

/// Removes the sibling directories of `dir` (other builds' caches) untouched for kStaleBuildAge.
/// Best effort: an entry that cannot be read or removed is left.
void remove_stale_builds(const fs::path& dir) {
  const auto now = fs::file_time_type::clock::now();
  for (const auto& [written, path] : entries_written(dir.parent_path(), true)) {
    if (path == dir || written > now || now - written <= kStaleBuildAge) continue;
    std::error_code ec;
    fs::remove_all(path, ec);
  }
}

/// When `dir` holds more than `max` files, removes the least recently written down to 3/4 of
/// `max` (so that the next processes find room). Best effort, as remove_stale_builds.
void remove_oldest_entries(const fs::path& dir, size_t max) {
  auto files = entries_written(dir, false);
  if (files.size() <= max) return;
  const size_t keep = max - max / 4;
  std::nth_element(files.begin(), files.begin() + (files.size() - keep), files.end());
  for (size_t i = 0; i < files.size() - keep; ++i) {
    std::error_code ec;
    fs::remove(files[i].second, ec);
  }
}

}  // namespace

std::string CalibrationCache::default_dir() {
  fs::path root;
  if (const char* d = std::getenv("PHOTON_CACHE_DIR")) {
    if (!*d) return "";
    root = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    root = fs::path(x) / "photon";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    root = fs::path(h) / ".cache" / "photon";
  } else {
    return "";
  }
  const std::string id = executable_build_id();
  if (id.empty()) return "";
  return (root / "hbm-calibrations" / id).string();
}

std::string CalibrationCache::check_of(const nlohmann::json& probes) {
  // Within one build (the directory's), so std::hash serves.
  std::ostringstream h;
  h << std::hex << std::hash<std::string>{}(probes.dump());
  return h.str();
}

std::string CalibrationCache::path(const std::string& key) const {
  // std::hash is fixed within one executable, and so is the directory; a collision only
  // makes the file another key's, which load() takes for a miss.
  std::ostringstream name;
  name << std::hex << std::hash<std::string>{}(key) << ".json";
  return (fs::path(dir_) / name.str()).string();
}

bool CalibrationCache::load(const std::string& key, std::vector<HbmRateProbe>& probes) {
  try {
    // read_file refuses a FIFO, a device or a directory in the file's place without opening it
    // for a blocking read, and a file larger than any entry.
    const nlohmann::json j = nlohmann::json::parse(read_file(path(key), "an HBM calibration file", kMaxEntryBytes));
    if (j.at("key").get<std::string>() != key) return false;  // another key with the same file name
    if (j.at("check").get<std::string>() != check_of(j.at("probes"))) return false;  // edited or damaged
    probes = HbmCalibrationMemo::entry_probes(j);
    return true;
  } catch (const std::exception&) {  // missing, unreadable, damaged or truncated: computed again
    return false;
  }
}

void CalibrationCache::prepare() {
  prepared_ = true;
  std::error_code ec;
  const fs::path dir(dir_);
  if (!fs::exists(dir, ec)) {
    // A new build: drop the directories of builds nobody has run for a while.
    if (fs::create_directories(dir, ec)) remove_stale_builds(dir);
    return;
  }
  remove_oldest_entries(dir, max_entries_);
}

void CalibrationCache::save(const std::string& key, const std::vector<HbmRateProbe>& probes) {
  if (!prepared_) prepare();
  try {
    nlohmann::json j = HbmCalibrationMemo::entry_json(key, probes);
    j["check"] = check_of(j.at("probes"));
    write_atomic(path(key), j.dump());
  } catch (const std::exception&) {  // read-only or full: the run goes on without keeping it
  }
}

void use_calibration_cache() {
  static std::string dir = CalibrationCache::default_dir();
  if (dir.empty()) return;
  static CalibrationCache cache(dir);
  HbmCalibrationMemo& memo = HbmCalibrationMemo::instance();
  memo.set_store(&cache);
  memo.enable(true);
}

}  // namespace photon

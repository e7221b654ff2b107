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
#include "base/output_file.h"

namespace photon {

namespace fs = std::filesystem;

namespace {
/// Build directories of other executables untouched this long are removed when a new one is made.
constexpr auto kStaleBuildAge = std::chrono::hours(24 * 14);
/// Larger than any entry (a calibration has one probe per HBM unit, ~300 bytes each, and at most
/// a few hundred units), so a bigger file is not one.
constexpr uintmax_t kMaxEntryBytes = 4u << 20;
/// Removes the sibling directories of `dir` (other builds' caches) untouched for kStaleBuildAge.
/// Best effort: an entry that cannot be read or removed is left.
void remove_stale_builds(const fs::path& dir) {
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  fs::directory_iterator it(dir.parent_path(), ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    if (it->path() == dir || !it->is_directory(entry_ec) || entry_ec) continue;
    const auto written = it->last_write_time(entry_ec);
    if (entry_ec || written > now || now - written <= kStaleBuildAge) continue;
    fs::remove_all(it->path(), entry_ec);
  }
}

/// When `dir` holds more than `max` files, removes the least recently written down to 3/4 of
/// `max` (so that the next processes find room). Best effort, as remove_stale_builds.
void remove_oldest_entries(const fs::path& dir, size_t max) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec) || entry_ec) continue;
    const auto written = it->last_write_time(entry_ec);
    if (!entry_ec) files.emplace_back(written, it->path());
  }
  if (files.size() <= max) return;
  const size_t keep = max - max / 4;
  std::nth_element(files.begin(), files.begin() + (files.size() - keep), files.end());
  for (size_t i = 0; i < files.size() - keep; ++i) {
    std::error_code entry_ec;
    fs::remove(files[i].second, entry_ec);
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

std::string CalibrationCache::path(const std::string& key) const {
  // std::hash is fixed within one executable, and so is the directory; a collision only
  // makes the file another key's, which load() takes for a miss.
  std::ostringstream name;
  name << std::hex << std::hash<std::string>{}(key) << ".json";
  return (fs::path(dir_) / name.str()).string();
}

bool CalibrationCache::load(const std::string& key, std::vector<HbmRateProbe>& probes) {
  // Only a regular file of a calibration's size is read: a FIFO or device put in its place
  // would block or never end.
  std::error_code ec;
  const fs::path file = path(key);
  if (!fs::is_regular_file(file, ec)) return false;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec || size > kMaxEntryBytes) return false;
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("key").get<std::string>() != key) return false;
    probes = HbmCalibrationMemo::entry_probes(j);
    return true;
  } catch (const std::exception&) {  // damaged or truncated by hand: computed again
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
    write_atomic(path(key), HbmCalibrationMemo::entry_json(key, probes).dump());
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

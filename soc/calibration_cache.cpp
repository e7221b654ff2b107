#include "soc/calibration_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "base/build_id.h"
#include "base/error.h"
#include "base/output_file.h"

namespace photon {

namespace fs = std::filesystem;

namespace {
/// Build directories of other executables untouched this long are removed when a new one is made.
constexpr auto kStaleBuildAge = std::chrono::hours(24 * 14);
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
  std::ifstream in(path(key), std::ios::binary);
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

void CalibrationCache::save(const std::string& key, const std::vector<HbmRateProbe>& probes) {
  std::error_code ec;
  if (!prepared_) {
    prepared_ = true;
    const fs::path dir(dir_);
    if (!fs::exists(dir, ec) && fs::create_directories(dir, ec)) {
      // A new build: drop the directories of builds nobody has run for a while.
      const auto now = fs::file_time_type::clock::now();
      for (const auto& e : fs::directory_iterator(dir.parent_path(), ec))
        if (e.path() != dir && e.is_directory(ec) && now - e.last_write_time(ec) > kStaleBuildAge)
          fs::remove_all(e.path(), ec);
    }
  }
  try {
    write_atomic(path(key), HbmCalibrationMemo::entry_json(key, probes).dump());
  } catch (const Error&) {  // read-only or full: the run goes on without keeping it
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

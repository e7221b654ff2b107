// The on-disk HBM calibration cache (soc/calibration_cache.h): a run that takes its
// calibrations from the cache, one that finds the files damaged and one whose cache cannot be
// written all report exactly what a run without the cache reports (the oracle), and the cache
// keeps one file per calibration of the run.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "models/hbm/hbm_calibration.h"
#include "soc/calibration_cache.h"

namespace {

namespace fs = std::filesystem;
using photon_test::photon;
using photon_test::temp_path;

/// The report of a resnet18 timing run with PHOTON_CACHE_DIR=`cache`, without its wall times.
nlohmann::json report_with_cache(const std::string& cache) {
  ::setenv("PHOTON_CACHE_DIR", cache.c_str(), 1);
  const std::string report = temp_path("cache_report.json");
  const auto r = photon("run --config " + photon_test::src("configs/default.yaml") + " --workload " +
                        photon_test::shared("inputs/onnx/resnet18.onnx") + " --quiet --report " + report);
  ::unsetenv("PHOTON_CACHE_DIR");
  EXPECT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(photon_test::slurp(report));
  j.erase("wall_time_s");
  if (j.contains("sim")) j["sim"].erase("max_wall_s");
  return j;
}

std::vector<fs::path> cache_files(const std::string& cache) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(cache, ec))
    if (e.is_regular_file()) out.push_back(e.path());
  return out;
}

TEST(CalibrationCache, RunsReportTheSameWithTheCacheAsWithout) {
  const nlohmann::json without = report_with_cache("");  // set and empty: off
  const std::string cache = temp_path("calibrations");
  EXPECT_EQ(report_with_cache(cache), without);  // computes and keeps them
  const auto files = cache_files(cache);
  ASSERT_GE(files.size(), 2u);  // resnet18's weight and activation streams calibrate several shapes
  for (const auto& f : files)
    EXPECT_TRUE(nlohmann::json::parse(photon_test::slurp(f.string())).contains("probes")) << f;
  EXPECT_EQ(report_with_cache(cache), without);  // takes them
  EXPECT_EQ(cache_files(cache).size(), files.size());

  std::map<fs::path, std::string> computed;
  for (const auto& f : files) computed[f] = photon_test::slurp(f.string());

  // Windows altered in the files without their check are misses, computed and written again;
  // with the check made to match, they change what the run simulates: they are really read.
  auto halve_rates = [&](bool with_check) {
    for (const auto& f : files) {
      nlohmann::json e = nlohmann::json::parse(computed[f]);
      for (auto& p : e.at("probes")) p.at(3) = p.at(3).get<uint64_t>() * 2;  // end_cycle: half the rate
      if (with_check) e["check"] = photon::CalibrationCache::check_of(e.at("probes"));
      std::ofstream(f, std::ios::trunc) << e.dump();
    }
  };
  halve_rates(false);
  EXPECT_EQ(report_with_cache(cache), without);
  for (const auto& f : files) EXPECT_EQ(photon_test::slurp(f.string()), computed[f]) << f;
  halve_rates(true);
  EXPECT_NE(report_with_cache(cache).at("hbm"), without.at("hbm"));

  for (const auto& f : files) std::ofstream(f, std::ios::trunc) << "{\"key\": ";  // damaged
  EXPECT_EQ(report_with_cache(cache), without);
  for (const auto& f : cache_files(cache))  // computed again and rewritten whole
    EXPECT_TRUE(nlohmann::json::parse(photon_test::slurp(f.string())).contains("probes")) << f;

  // Damage that still parses, with a matching check: values no calibration makes are misses, and a file with another
  // number of windows than the HBM's units is refused by the controller; all are computed again,
  // reported as without the cache, and rewritten with the computed windows.
  const std::vector<std::pair<const char*, void (*)(nlohmann::json&)>> damages = {
      {"negative end cycle", [](nlohmann::json& e) { e["probes"][0][3] = -5; }},
      {"window ends before it starts",
       [](nlohmann::json& e) { e["probes"][0][2] = e["probes"][0][3].get<uint64_t>() + 1; }},
      {"fractional count", [](nlohmann::json& e) { e["probes"][0][4] = 1.5; }},
      {"counters go down",
       [](nlohmann::json& e) { e["probes"][0][5][0] = e["probes"][0][6][0].get<uint64_t>() + 1; }},
      {"a window of 2^40 cycles", [](nlohmann::json& e) { e["probes"][0][3] = (uint64_t(1) << 40) + 1; }},
      {"probes as an object", [](nlohmann::json& e) { e["probes"] = {{"a", 1}}; }},
      {"one window missing", [](nlohmann::json& e) { e["probes"].erase(e["probes"].size() - 1); }},
  };
  // The first run's files (the halved rates above changed that run's timing, so it may have
  // calibrated and kept shapes of its own, correctly: they stay as they are).
  const auto& good = files;
  for (const auto& [what, damage] : damages) {
    for (const auto& f : good) {
      nlohmann::json e = nlohmann::json::parse(computed[f]);
      if (e["probes"].empty()) continue;
      damage(e);
      e["check"] = photon::CalibrationCache::check_of(e["probes"]);  // as if written so
      std::ofstream(f, std::ios::trunc) << e.dump();
    }
    EXPECT_EQ(report_with_cache(cache), without) << what;
    for (const auto& f : good) EXPECT_EQ(photon_test::slurp(f.string()), computed[f]) << what << ": " << f;
  }

  EXPECT_EQ(report_with_cache("/dev/null/photon-cache"), without);  // cannot be written
}

TEST(CalibrationCache, APrunedDirectoryKeepsTheMostRecentlyWritten) {
  const std::string dir = temp_path("calibrations_pruned");
  const std::vector<photon::HbmRateProbe> probes(2);
  {
    photon::CalibrationCache cache(dir, 8);
    for (int i = 0; i < 10; ++i) cache.save("k" + std::to_string(i), probes);  // prunes once, at the first
    const auto now = fs::file_time_type::clock::now();
    for (int i = 0; i < 10; ++i)  // k0 written longest ago, k9 last
      fs::last_write_time(cache.path("k" + std::to_string(i)), now - std::chrono::hours(10 - i));
  }
  EXPECT_EQ(cache_files(dir).size(), 10u);
  photon::CalibrationCache later(dir, 8);
  later.save("new", probes);  // 10 > 8: down to 6, then its own
  std::vector<photon::HbmRateProbe> back;
  EXPECT_EQ(cache_files(dir).size(), 7u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(later.load("k" + std::to_string(i), back), i >= 4) << i;
  EXPECT_TRUE(later.load("new", back));
}

TEST(CalibrationCache, AFifoInPlaceOfAFileIsAMiss) {
  photon::CalibrationCache cache(temp_path("calibrations_fifo"));
  cache.save("a", std::vector<photon::HbmRateProbe>(2));  // creates the directory
  fs::remove(cache.path("a"));
  ASSERT_EQ(::mkfifo(cache.path("a").c_str(), 0600), 0);
  std::vector<photon::HbmRateProbe> back;
  EXPECT_FALSE(cache.load("a", back));  // no writer: reading it would block forever
}

TEST(CalibrationCache, AFileOfAnotherKeyIsAMiss) {
  photon::CalibrationCache cache(temp_path("calibrations_keys"));
  std::vector<photon::HbmRateProbe> probes(3);
  probes[1].state = photon::HbmRateProbe::kClosed;
  probes[1].cycle = 7;
  probes[1].end_cycle = 1234;
  probes[1].end_ctr.activates = 42;
  cache.save("a", probes);
  std::vector<photon::HbmRateProbe> back;
  ASSERT_TRUE(cache.load("a", back));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[1].state, photon::HbmRateProbe::kClosed);
  EXPECT_EQ(back[1].end_cycle, 1234u);
  EXPECT_EQ(back[1].end_ctr.activates, 42u);
  EXPECT_FALSE(cache.load("b", back));
  fs::copy_file(cache.path("a"), cache.path("b"));  // as if two keys shared a file name
  EXPECT_FALSE(cache.load("b", back));
}

}  // namespace

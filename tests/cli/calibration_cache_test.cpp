// The on-disk HBM calibration cache (soc/calibration_cache.h): a run that takes its
// calibrations from the cache, one that finds the files damaged and one whose cache cannot be
// written all report exactly what a run without the cache reports (the oracle), and the cache
// keeps one file per calibration of the run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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

  // The second run really took them: windows altered in the files change what it simulates.
  for (const auto& f : files) {
    nlohmann::json e = nlohmann::json::parse(photon_test::slurp(f.string()));
    for (auto& p : e.at("probes")) p.at(3) = p.at(3).get<uint64_t>() * 2;  // end_cycle: half the rate
    std::ofstream(f, std::ios::trunc) << e.dump();
  }
  EXPECT_NE(report_with_cache(cache).at("hbm"), without.at("hbm"));

  for (const auto& f : files) std::ofstream(f, std::ios::trunc) << "{\"key\": ";  // damaged
  EXPECT_EQ(report_with_cache(cache), without);
  for (const auto& f : cache_files(cache))  // computed again and rewritten whole
    EXPECT_TRUE(nlohmann::json::parse(photon_test::slurp(f.string())).contains("probes")) << f;

  EXPECT_EQ(report_with_cache("/dev/null/photon-cache"), without);  // cannot be written
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

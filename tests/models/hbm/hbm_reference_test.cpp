// DRAMsim3 reference: the four traces of shared/reference/hbm2_dramsim3 with the hbm2_dramsim3
// preset must land within 10 % on bandwidth and average read latency, within 3 points on
// row-hit rate (reference.json, produced by DRAMsim3 with configs/HBM2_8Gb_x128.ini).
#include <cmath>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_trace.h"

namespace {

const std::string kDir = std::string(PHOTON_SHARED_DIR) + "/reference/hbm2_dramsim3/";

nlohmann::json reference() {
  std::ifstream in(kDir + "reference.json");
  EXPECT_TRUE(in.good()) << kDir;
  return nlohmann::json::parse(in);
}

class DramSim3Reference : public ::testing::TestWithParam<std::string> {};

TEST_P(DramSim3Reference, MatchesWithinTolerance) {
  const std::string name = GetParam();
  const nlohmann::json ref = reference().at(name);
  photon::HbmConfig cfg;
  cfg.apply_preset("hbm2_dramsim3");
  const nlohmann::json got = photon::run_hbm_trace(cfg, kDir + name + ".trace");
  std::cout << name << ": " << got.dump() << "\n";
  EXPECT_EQ(got.at("requests").get<uint64_t>(), ref.at("requests").get<uint64_t>());
  const double bw = got.at("bandwidth_gbps"), bw_ref = ref.at("bandwidth_gbps");
  EXPECT_NEAR(bw, bw_ref, 0.10 * bw_ref);
  const double lat = got.at("avg_read_latency_ns"), lat_ref = ref.at("read_latency_ns");
  EXPECT_NEAR(lat, lat_ref, 0.10 * lat_ref);
  const double hit = got.at("row_hit_rate"), hit_ref = ref.at("row_hit_rate");
  EXPECT_NEAR(hit, hit_ref, 0.03);
  // Loose: command counts within 10 % (+2 for counts near zero).
  const double act = got.at("activates").get<double>(), act_ref = ref.at("activates");
  EXPECT_NEAR(act, act_ref, 0.10 * act_ref + 2);
  const double refr = got.at("refreshes").get<double>(), refr_ref = ref.at("refreshes");
  EXPECT_NEAR(refr, refr_ref, 0.10 * refr_ref + 2);
}

INSTANTIATE_TEST_SUITE_P(Traces, DramSim3Reference,
                         ::testing::Values("stream_read", "random_read", "row_conflict",
                                           "sparse_random_read"));

}  // namespace

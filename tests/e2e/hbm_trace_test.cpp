// `photon hbm` replays the DRAMsim3 traces of shared/reference/hbm2_dramsim3 with
// configs/default.yaml and --set hbm.preset=hbm2_dramsim3 (DRAMsim3's HBM2_8Gb_x128.ini), and the
// report file lands where the reference's README asks: within 10 % of reference.json on
// bandwidth and average read latency, within 3 points on row-hit rate. A malformed trace fails
// with one line naming file:line.
#include <string>

#include "tests/e2e/e2e_util.h"

namespace photon_e2e {
namespace {

const std::string kDir = "reference/hbm2_dramsim3/";

class HbmTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(HbmTrace, CliMatchesDramsim3) {
  const std::string name = GetParam(), trace = shared(kDir + name + ".trace");
  const nlohmann::json ref = read_json(shared(kDir + "reference.json")).at(name);
  const std::string dir = fresh_dir("hbm_" + name), report = dir + "/report.json";
  CliResult r = photon("hbm --config " + src("configs/default.yaml") +
                       " --set hbm.preset=hbm2_dramsim3 --trace " + trace + " --report " + report);
  record_wall("hbm_" + name, r.wall_s);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json got = read_json(report);
  EXPECT_EQ(nlohmann::json::parse(r.out), got);  // stdout prints the same JSON
  EXPECT_EQ(got.value("trace", ""), trace);
  EXPECT_EQ(got["config"].value("preset", ""), "hbm2_dramsim3");
  EXPECT_EQ(got.value("requests", 0), ref.value("requests", -1));
  const double bw = got.value("bandwidth_gbps", 0.0), bw_ref = ref.at("bandwidth_gbps");
  EXPECT_NEAR(bw, bw_ref, 0.10 * bw_ref);
  const double lat = got.value("avg_read_latency_ns", 0.0), lat_ref = ref.at("read_latency_ns");
  EXPECT_NEAR(lat, lat_ref, 0.10 * lat_ref);
  EXPECT_NEAR(got.value("row_hit_rate", -1.0), ref.at("row_hit_rate").get<double>(), 0.03);
}

INSTANTIATE_TEST_SUITE_P(Reference, HbmTrace,
                         ::testing::Values("stream_read", "random_read", "row_conflict",
                                           "sparse_random_read"),
                         [](const auto& info) { return info.param; });

TEST(HbmTraceErrors, BadCommandNamesFileAndLine) {
  const std::string dir = fresh_dir("hbm_bad"), trace = dir + "/bad.trace";
  write_text(trace, "0x0 READ 0\n0x40 FETCH 1\n0x80 READ 2\n");
  CliResult r = photon("hbm --config " + src("configs/default.yaml") + " --trace " + trace);
  EXPECT_ONE_LINE_ERROR(r, trace + ":2");
  EXPECT_EQ(r.out, "");
}

TEST(HbmTraceErrors, BadAddressNamesFileAndLine) {
  const std::string dir = fresh_dir("hbm_bad_addr"), trace = dir + "/bad.trace";
  write_text(trace, "# comment\n0x0 READ 0\n\n0xZZ WRITE 3\n");
  CliResult r = photon("hbm --config " + src("configs/default.yaml") + " --trace " + trace);
  EXPECT_ONE_LINE_ERROR(r, trace + ":4");
}

}  // namespace
}  // namespace photon_e2e

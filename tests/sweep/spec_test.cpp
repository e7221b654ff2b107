// Sweep specs and their expansion (sweep/sweep_spec.h, sweep/design.h): ranges against closed
// forms, grid sizes against the product of the axes, errors naming the spec line and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "sweep/design.h"
#include "tests/sweep/sweep_test_util.h"

namespace photon::sweep {
namespace {

using photon_test::parse;
using photon_test::parse_error;

std::vector<std::string> values(const SweepSpec& s, const std::string& key) {
  for (const auto& a : s.grid)
    if (a.key == key) return a.values;
  return {};
}

TEST(SweepSpec, RangesExpandToTheirClosedForms) {
  const SweepSpec s = parse(
      "grid:\n"
      "  optical_gemm.rows: [16, 32, 64]\n"
      "  optical_gemm.cols: {from: 16, to: 128, step: 16}\n"
      "  optical_gemm.wavelengths: {from: 1, to: 64, factor: 2}\n"
      "  optical_gemm.modulation_ghz: {from: 1, to: 16, count: 5, scale: log}\n"
      "  optical_gemm.conversion_latency_ns: {from: 0.5, to: 1.5, count: 3}\n");
  EXPECT_EQ(values(s, "optical_gemm.rows"), (std::vector<std::string>{"16", "32", "64"}));
  std::vector<std::string> cols;
  for (int c = 16; c <= 128; c += 16) cols.push_back(std::to_string(c));
  EXPECT_EQ(values(s, "optical_gemm.cols"), cols);
  EXPECT_EQ(values(s, "optical_gemm.wavelengths"),
            (std::vector<std::string>{"1", "2", "4", "8", "16", "32", "64"}));
  // count 5 evenly in log: 1, 2, 4, 8, 16.
  const auto f = values(s, "optical_gemm.modulation_ghz");
  ASSERT_EQ(f.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(std::stod(f[size_t(i)]), std::pow(2.0, i), 1e-12);
  EXPECT_EQ(values(s, "optical_gemm.conversion_latency_ns"), (std::vector<std::string>{"0.5", "1", "1.5"}));
}

TEST(SweepSpec, IntegerLogRangesRoundAndDropRepeats) {
  // 10 values from 1 to 8 in log space round to 1 1 2 2 3 3 4 5 6 8 -> 1 2 3 4 5 6 8.
  const SweepSpec s = parse("grid:\n  optical_gemm.rows: {from: 1, to: 8, count: 10, scale: log}\n");
  std::vector<std::string> expect;
  std::set<long> seen;
  for (int i = 0; i < 10; ++i) {
    const long v = std::lround(std::exp(std::log(8.0) * i / 9));
    if (seen.insert(v).second) expect.push_back(std::to_string(v));
  }
  EXPECT_EQ(values(s, "optical_gemm.rows"), expect);
}

TEST(SweepSpec, GridSizeIsTheProductOfTheAxes) {
  const SweepSpec s = parse(
      "grid:\n  optical_gemm.rows: [16, 32, 64]\n  optical_gemm.cols: {from: 8, to: 64, factor: 2}\n"
      "  optical_gemm.weight_mode: [stationary, streamed]\n"
      "points:\n  - {hbm.tRCD: 12}\n  - {hbm.tRCD: 14}\n");
  EXPECT_EQ(design_size(s), 3u * 4u * 2u * 2u);
  const auto pts = expand_design(s);
  ASSERT_EQ(pts.size(), 48u);
  // Nested loops in the order written, the last part fastest.
  EXPECT_EQ(pts[0], (Assignment{{"optical_gemm.rows", "16"},
                                {"optical_gemm.cols", "8"},
                                {"optical_gemm.weight_mode", "stationary"},
                                {"hbm.tRCD", "12"}}));
  EXPECT_EQ(pts[1].back(), (KeyValue{"hbm.tRCD", "14"}));
  EXPECT_EQ(pts[2][2], (KeyValue{"optical_gemm.weight_mode", "streamed"}));
  EXPECT_EQ(pts[47], (Assignment{{"optical_gemm.rows", "64"},
                                 {"optical_gemm.cols", "64"},
                                 {"optical_gemm.weight_mode", "streamed"},
                                 {"hbm.tRCD", "14"}}));
  std::set<Assignment> uniq(pts.begin(), pts.end());
  EXPECT_EQ(uniq.size(), pts.size());
}

TEST(SweepSpec, SamplesReproduceFromTheirSeed) {
  const std::string body =
      "sample:\n  method: lhs\n  count: 40\n  seed: 7\n  parameters:\n"
      "    optical_gemm.modulation_ghz: {from: 1, to: 20, scale: log}\n"
      "    optical_gemm.adc_bits: {from: 4, to: 10}\n"
      "    optical_gemm.weight_mode: [stationary, streamed]\n";
  const auto a = expand_design(parse(body)), b = expand_design(parse(body));
  EXPECT_EQ(a, b);
  std::string other = body;
  other.replace(other.find("seed: 7"), 7, "seed: 8");
  EXPECT_NE(a, expand_design(parse(other)));
  // Values stay in their ranges, integers are integers, choices come from the list.
  for (const auto& p : a) {
    ASSERT_EQ(p.size(), 3u);
    const double f = std::stod(p[0].second);
    EXPECT_GE(f, 1);
    EXPECT_LE(f, 20);
    const std::string& bits = p[1].second;
    EXPECT_EQ(bits.find_first_not_of("0123456789"), std::string::npos);
    EXPECT_GE(std::stoi(bits), 4);
    EXPECT_LE(std::stoi(bits), 10);
    EXPECT_TRUE(p[2].second == "stationary" || p[2].second == "streamed");
  }
}

TEST(SweepSpec, LatinHypercubeHitsEveryStratumOnce) {
  const SweepSpec s = parse(
      "sample:\n  method: lhs\n  count: 50\n  seed: 3\n  parameters:\n"
      "    optical_gemm.modulation_ghz: {from: 1, to: 100, scale: log}\n"
      "    optical_gemm.conversion_latency_ns: {from: 0, to: 5}\n");
  const auto pts = expand_design(s);
  std::set<int> log_strata, lin_strata;
  for (const auto& p : pts) {
    // Stratum of each value: 50 equal parts of log(1..100) and of 0..5 (values rounded to 6
    // significant digits, so a hair of slack at the edges).
    const double t0 = std::log(std::stod(p[0].second)) / std::log(100.0) * 50;
    const double t1 = std::stod(p[1].second) / 5.0 * 50;
    log_strata.insert(int(std::floor(t0 * (1 - 1e-9) + 1e-9)));
    lin_strata.insert(int(std::floor(t1 * (1 - 1e-9) + 1e-9)));
  }
  EXPECT_EQ(log_strata.size(), 50u);
  EXPECT_EQ(lin_strata.size(), 50u);
  EXPECT_EQ(*log_strata.begin(), 0);
  EXPECT_EQ(*log_strata.rbegin(), 49);
}

TEST(SweepSpec, RandomSamplesAreUniform) {
  // 2000 uniform integers on [0, 9]: every value appears, each within 5 sigma of 200.
  const SweepSpec s = parse(
      "sample:\n  method: random\n  count: 2000\n  seed: 11\n  parameters:\n"
      "    optical_gemm.pipeline_depth: {from: 0, to: 9}\n");
  std::map<std::string, int> hist;
  for (const auto& p : expand_design(s)) hist[p[0].second]++;
  ASSERT_EQ(hist.size(), 10u);
  const double sigma = std::sqrt(2000 * 0.1 * 0.9);
  for (const auto& [v, n] : hist) EXPECT_NEAR(n, 200, 5 * sigma) << v;
}

TEST(SweepSpec, ErrorsNameTheLineAndTheKey) {
  const std::string f = photon_test::spec_path();
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.bogus: [1, 2]\n"),
            f + ":4:3: unknown configuration key 'optical_gemm.bogus'");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: []\n"),
            f + ":4:22: grid: optical_gemm.rows: empty list of values");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: {from: 64, to: 16, step: 16}\n"),
            f + ":4:22: grid: optical_gemm.rows: empty range (from is larger than to)");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: {from: 16, to: 64, step: 0}\n"),
            f + ":4:22: grid: optical_gemm.rows: step must be positive");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: {from: 16, to: 64, factor: 1}\n"),
            f + ":4:22: grid: optical_gemm.rows: factor must be larger than 1");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: {from: 16, to: 64, factor: 0}\n"),
            f + ":4:22: grid: optical_gemm.rows: factor must be larger than 1");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: {from: 16, to: 64, step: 0, scale: log}\n"),
            f + ":4:22: grid: optical_gemm.rows: step is for linear ranges; use factor or count with scale: log");
  EXPECT_EQ(parse_error("grid:\n  dma.clock_ghz: {from: 0, to: 2, count: 3, scale: log}\n"),
            f + ":4:18: grid: dma.clock_ghz: a log range needs from > 0 and to > 0");
  try {  // a directory given as a workload
    photon::sweep::parse_sweep_spec_text(
        "base: ../../configs/default.yaml\nworkloads: [../../examples]\ngrid: {optical_gemm.rows: [1]}\n", f);
    ADD_FAILURE() << "no error";
  } catch (const photon::Error& e) {
    EXPECT_EQ(std::string(e.what()), f + ":2:13: workloads: " + std::string(PHOTON_SOURCE_DIR) +
                                         "/examples: is a directory, expected a workload file");
  }
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: [16, 32]\npoints:\n  - {optical_gemm.rows: 8}\n"),
            f + ":6:6: parameter optical_gemm.rows is given twice (in grid and in points)");
  EXPECT_EQ(parse_error("set: {optical_gemm.rows: 16}\ngrid:\n  optical_gemm.rows: [16, 32]\n"),
            f + ":5:3: parameter optical_gemm.rows is given twice (in set and in grid)");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: [16, 32]\n  optical_gemm.rows: [8]\n"),
            f + ":5:3: grid: 'optical_gemm.rows' is given twice");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: [16, 16]\n"),
            f + ":4:22: grid: optical_gemm.rows: value 16 is listed twice");
  EXPECT_EQ(
      parse_error("grid:\n  optical_gemm.weight_mode: {from: 1, to: 2, step: 1}\n"),
      f + ":4:29: grid: optical_gemm.weight_mode: a range needs a numeric key; list the values instead");
  EXPECT_EQ(parse_error("grid:\n  optical_gemm.rows: {from: 1, to: 8, step: 1, factor: 2}\n"),
            f + ":4:22: grid: optical_gemm.rows: give exactly one of step, count (with scale) or factor");
  EXPECT_EQ(parse_error("sample: {method: sobol, count: 4, parameters: {optical_gemm.rows: [1, 2]}}\n"),
            f + ":3:18: sample.method: expected random or lhs, got 'sobol'");
  EXPECT_EQ(parse_error(""), f + ": nothing to sweep: give a grid, a sample or points");
  // The YAML document itself (base/yaml_document.h): one document, nothing yaml-cpp cannot read.
  EXPECT_EQ(parse_error("grid: {optical_gemm.rows: [16]}\n---\ngrid: {optical_gemm.rows: [32]}\n"),
            f + ":5:1: the file holds 2 YAML documents ('---'); a sweep spec is one document");
  try {
    photon::sweep::parse_sweep_spec_text("# spec\n  , grid\n", f);
    ADD_FAILURE() << "no error";
  } catch (const photon::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              f + ":2:3: invalid YAML: unexpected ',' (outside a flow collection [...] or {...})");
  }
  EXPECT_EQ(parse_error("grids: {}\n"),
            f + ":3:1: unknown field 'grids' (name, base, set, workloads, grid, sample, points, constraints, "
                "metrics, timeout_s)");
  EXPECT_EQ(parse_error("metrics: {Latency: simulated_time_ns}\ngrid: {optical_gemm.rows: [1]}\n"),
            f + ":3:11: metrics: name 'Latency' must be lower case letters, digits and _");
}

}  // namespace
}  // namespace photon::sweep

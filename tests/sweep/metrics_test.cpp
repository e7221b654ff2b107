// Metric paths (sweep/metrics.h).
#include <gtest/gtest.h>

#include "base/error.h"
#include "sweep/metrics.h"

namespace photon::sweep {
namespace {

const nlohmann::json kReport = nlohmann::json::parse(R"({
  "simulated_time_ns": 1500.5,
  "units": {"ntt": {"utilization": 0.25, "counters": {"busy_cycles.ntt": 42, "butterflies": 7}}},
  "ops": [{"latency_ns": 3}, {"latency_ns": 4}],
  "status": "ok", "refresh": true
})");

TEST(Metrics, PathsFindNestedAndDottedKeys) {
  EXPECT_EQ(metric_value(kReport, "simulated_time_ns"), 1500.5);
  EXPECT_EQ(metric_value(kReport, "units.ntt.utilization"), 0.25);
  EXPECT_EQ(metric_value(kReport, "units.ntt.counters.busy_cycles.ntt"), 42);
  EXPECT_EQ(metric_value(kReport, "ops.1.latency_ns"), 4);
  EXPECT_EQ(metric_value(kReport, "refresh"), 1);
  EXPECT_EQ(metric_value(kReport, "status"), std::nullopt);
  EXPECT_EQ(metric_value(kReport, "units.vector.utilization"), std::nullopt);
  EXPECT_EQ(metric_value(kReport, "ops.2.latency_ns"), std::nullopt);
}

TEST(Metrics, DefaultsHaveOneUtilisationPerUnit) {
  const auto m = default_metrics({"dma", "ntt"});
  ASSERT_EQ(m.size(), 8u);
  EXPECT_EQ(m[0].name, "latency_ns");
  EXPECT_EQ(m[2].path, "area_mm2.total");
  EXPECT_EQ(m[7].name, "util_ntt");
  EXPECT_EQ(m[7].path, "units.ntt.utilization");
  EXPECT_THROW(all_metrics({"dma"}, {{"energy_pj", "x"}}), Error);
}

TEST(Metrics, PathChecksNameTheMetricAndWhatExists) {
  auto msg = [](const std::vector<MetricSpec>& m) {
    try {
      check_metric_paths(m, kReport);
    } catch (const Error& e) { return std::string(e.what()); }
    return std::string("ok");
  };
  EXPECT_EQ(msg({{"x", "units.ntt.counters.butterflies"}, {"y", "ops.0.latency_ns"}}), "ok");
  EXPECT_EQ(
      msg({{"x", "units.ntt.utilisation"}}),
      "metrics: x: report path 'units.ntt.utilisation' does not exist (keys under 'units.ntt': counters, "
      "utilization)");
  EXPECT_EQ(msg({{"x", "units.ntt"}}), "metrics: x: report path 'units.ntt' is a section, not a number");
  EXPECT_EQ(msg({{"x", "status"}}), "metrics: x: report path 'status' is text, not a number");
  // Sections only some workloads have are checked as far as the probe has them.
  EXPECT_EQ(msg({{"x", "fhe.total.latency_ns"}}), "ok");
}

TEST(Metrics, FhePathsAreCheckedAgainstTheSummaryOfTheProbe) {
  // A probe of an FHE sweep has the fhe summary with no ops (workloads/driver/fhe_summary.cpp):
  // its sections are fixed; fhe.by_kind.KIND has the fields of fhe.total.
  nlohmann::json probe = kReport;
  probe["fhe"] = {{"by_kind", nlohmann::json::object()},
                  {"total", {{"latency_ns", 0}, {"key_bytes", 0}}},
                  {"bootstrap", {{"latency_ns", 0}, {"key_bytes", 0}}}};
  auto msg = [&](const std::vector<MetricSpec>& m) {
    try {
      check_metric_paths(m, probe);
    } catch (const Error& e) { return std::string(e.what()); }
    return std::string("ok");
  };
  EXPECT_EQ(msg({{"a", "fhe.total.key_bytes"}, {"b", "fhe.bootstrap.latency_ns"}, {"c", "fhe.by_kind.rotate.key_bytes"}}),
            "ok");
  EXPECT_EQ(msg({{"x", "fhe.totl.latency_ns"}}),
            "metrics: x: report path 'fhe.totl.latency_ns' does not exist (keys under 'fhe': bootstrap, by_kind, "
            "total)");
  EXPECT_EQ(msg({{"x", "fhe.total.key_byte"}}),
            "metrics: x: report path 'fhe.total.key_byte' does not exist (keys under 'fhe.total': key_bytes, "
            "latency_ns)");
  EXPECT_EQ(msg({{"x", "fhe.by_kind.rotate.latncy_ns"}}),
            "metrics: x: report path 'fhe.by_kind.rotate.latncy_ns' does not exist (keys under 'fhe.total': "
            "key_bytes, latency_ns)");
}

}  // namespace
}  // namespace photon::sweep

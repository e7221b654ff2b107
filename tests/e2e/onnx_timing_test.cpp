// Every model in shared/inputs/onnx runs through `photon run` in timing mode, and its report
// holds every field of the report contract (docs/report.md) with values consistent with each
// other and with facts read from the model file independently of the frontend
// (onnx_model_facts.h): the op rows are exactly the model's compute nodes.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/e2e_util.h"
#include "tests/e2e/onnx_model_facts.h"

namespace photon_e2e {
namespace {

std::vector<std::string> all_models() {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(shared("inputs/onnx")))
    if (e.path().extension() == ".onnx") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

double num(const nlohmann::json& j, const char* key) {
  EXPECT_TRUE(j.contains(key) && j[key].is_number()) << key << " in " << j.dump().substr(0, 300);
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}

class TimingRun : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingRun, ReportHasEveryContractField) {
  const std::string m = GetParam(), model = onnx_input(m + ".onnx");
  const OnnxFacts facts = read_onnx_facts(model);
  ASSERT_EQ(facts.inputs.size(), 1u);
  // A symbolic input dimension needs --shape (batch and sequence dims set to 1). None of the
  // current files has one; the branch keeps the test valid for a file that does.
  std::string shape_args;
  for (const auto& [name, dims] : facts.inputs) {
    if (std::find(dims.begin(), dims.end(), -1) == dims.end()) continue;
    std::string s;
    for (int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d < 0 ? 1 : d);
    shape_args += " --shape '" + name + "=" + s + "'";
  }
  const std::string dir = fresh_dir("t_" + m), report = dir + "/report.json";
  CliResult r = photon("run --config " + src("configs/default.yaml") + " --workload " + model + shape_args +
                       " --report " + report + " -q");
  record_wall(m + "_timing", r.wall_s);
  ASSERT_EQ(r.status, 0) << r.err.substr(0, 2000);
  EXPECT_EQ(r.err, "");
  const nlohmann::json rep = read_json(report);

  EXPECT_EQ(rep.value("status", ""), "ok") << rep.value("error", "");
  EXPECT_EQ(rep.value("mode", ""), "timing");
  EXPECT_EQ(rep.value("workload", ""), model);
  const double t = num(rep, "simulated_time_ns");
  EXPECT_GT(t, 0);
  EXPECT_GT(num(rep, "wall_time_s"), 0);
  // The resolved configuration: default.yaml's values, every unit present.
  ASSERT_TRUE(rep["config"].is_object());
  for (const char* unit : {"cpu", "dma", "hbm", "noc", "optical_gemm", "vector", "ntt", "scratchpad"})
    EXPECT_TRUE(rep["config"].contains(unit)) << unit;
  EXPECT_EQ(rep["config"]["hbm"].value("preset", ""), "hbm2");

  // units: busy_ns and utilization = min(1, busy_ns / simulated_time_ns) for each unit.
  for (const char* unit : {"dma", "optical_gemm", "vector", "hbm", "scratchpad"}) {
    SCOPED_TRACE(unit);
    const nlohmann::json& u = rep["units"][unit];
    const double busy = num(u, "busy_ns"), util = num(u, "utilization");
    EXPECT_GT(busy, 0);  // every model moves data and has at least one Conv/Gemm/MatMul and one vector op
    EXPECT_NEAR(util, std::min(1.0, busy / t), 1e-12);
  }

  // hbm: traffic, bandwidth below the interface peak, hit rate a fraction.
  const nlohmann::json& hbm = rep["hbm"];
  const double rd = num(hbm, "bytes_read"), wr = num(hbm, "bytes_written"),
               bw = num(hbm, "avg_bandwidth_gbps");
  const double hit = num(hbm, "row_hit_rate");
  EXPECT_GT(wr, 0);
  // The input tensor and each Conv/Gemm/MatMul weight are read from HBM at least once.
  uint64_t input_bytes = 0;
  for (const auto& [name, dims] : facts.inputs) {
    uint64_t n = 4;
    for (int64_t d : dims) n *= uint64_t(d < 0 ? 1 : d);
    input_bytes += n;
  }
  EXPECT_GE(rd, double(facts.gemm_weight_bytes + input_bytes));
  // avg_bandwidth_gbps is (read + written) over the span of HBM activity, which lies inside the
  // run: at least bytes / simulated time, at most the interface peak
  // channels * pseudo_channels * bus_width_bits / 8 * beats_per_tck / tck_ns (GB/s).
  const nlohmann::json& hc = rep["config"]["hbm"];
  const double peak = hc["channels"].get<double>() * hc["pseudo_channels"].get<double>() *
                      hc["bus_width_bits"].get<double>() / 8 * hc["beats_per_tck"].get<double>() /
                      hc["tck_ns"].get<double>();
  EXPECT_GE(bw * (1 + 1e-9), (rd + wr) / t);
  EXPECT_LE(bw, peak);
  EXPECT_GE(hit, 0);
  EXPECT_LE(hit, 1);

  // energy_pj: total > 0 and the sum of the per-unit entries.
  const nlohmann::json& e = rep["energy_pj"];
  const double total = num(e, "total");
  EXPECT_GT(total, 0);
  double sum = 0;
  for (const auto& [k, v] : e.items())
    if (k != "total") sum += v.get<double>();
  EXPECT_NEAR(sum, total, 1e-9 * total);

  // Coverage: every node has one outcome; the node count is the model's compute-node count.
  const nlohmann::json& cov = rep["workload_info"]["coverage"];
  const int nodes = cov.value("nodes", -1);
  EXPECT_EQ(nodes, int(facts.compute_nodes.size()));
  EXPECT_EQ(
      cov.value("lowered", -1) + cov.value("free", -1) + cov.value("folded", -1) + cov.value("fallback", -1),
      nodes)
      << cov.dump();
  ASSERT_TRUE(rep["unsupported"].is_array());
  EXPECT_EQ(int(rep["unsupported"].size()), cov.value("fallback", -1));

  // ops: one row per compute node (the lowering adds one op-table entry per graph node, see
  // workloads/lowering/ai_lowering.cpp), named as the file names them.
  const nlohmann::json& ops = rep["ops"];
  ASSERT_TRUE(ops.is_array());
  EXPECT_EQ(int(ops.size()), nodes);
  std::map<std::string, int> want, got;
  for (const auto& n : facts.compute_nodes) ++want[n];
  std::map<std::string, double> unit_sum;
  for (const auto& row : ops) {
    ++got[row.value("name", "")];
    const double s = num(row, "start_ns"), en = num(row, "end_ns");
    EXPECT_LE(s, en) << row.dump();
    EXPECT_LE(en, t * (1 + 1e-12)) << row.dump();
    EXPECT_TRUE(row["kind"].is_string());
    for (const auto& [k, v] : row["unit_ns"].items()) unit_sum[k] += v.get<double>();
  }
  EXPECT_EQ(got, want);
  // The optical engine and the vector unit run one command at a time, so their busy time (the
  // union of busy intervals) is the sum of the rows' times; DMA has overlapping channels, so
  // its rows' sum bounds its busy time from above.
  for (const char* unit : {"optical_gemm", "vector"})
    EXPECT_NEAR(unit_sum[unit], rep["units"][unit]["busy_ns"].get<double>(), 1e-6 * t) << unit;
  EXPECT_GE(unit_sum["dma"] * (1 + 1e-12), rep["units"]["dma"]["busy_ns"].get<double>());
}

INSTANTIATE_TEST_SUITE_P(Onnx, TimingRun, ::testing::ValuesIn(all_models()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace photon_e2e

// Per-layer optical-engine time: for every Conv and Gemm/MatMul layer, the simulated busy time of
// the optical engine in the report (ops[tag].unit_ns.optical_gemm, the sum of that layer's GEMM
// command durations in the trace, soc/platform.cpp Platform::report) equals the mapping's
// closed form (tests/support/gemm_timing_oracle.h gemm_layer_formula_ns) evaluated on the same
// model compiled in-process with the same configuration. The engine rounds each command to its
// electronic clock, so the allowed difference is one engine cycle per GEMM command.
#include <cmath>
#include <cstdlib>
#include <string>

#include "tests/e2e/e2e_util.h"
#include "tests/support/gemm_timing_oracle.h"
#include "workloads/driver/workload.h"

namespace photon_e2e {
namespace {

void check_layers(const std::string& model, const std::string& tag) {
  const std::string config = src("configs/default.yaml");
  const photon::RunConfig cfg = photon::load_run_config(config, {});
  const photon::CompiledWorkload w = photon::compile_workload(model, cfg);

  const std::string dir = fresh_dir("g_" + tag), report = dir + "/report.json";
  CliResult r = photon("run --config " + config + " --workload " + model + " --report " + report + " -q");
  record_wall(tag + "_timing", r.wall_s);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json rep = read_json(report);
  ASSERT_EQ(rep.value("status", ""), "ok");
  // The same program ran: same command count, same op table.
  ASSERT_EQ(rep["workload_info"].value("commands", size_t(0)), w.program.commands.size());
  const nlohmann::json& ops = rep["ops"];
  ASSERT_EQ(ops.size(), w.program.ops.size());

  const double cycle_ns = 1.0 / cfg.optical_gemm.clock_ghz;
  int convs = 0, gemms = 0;
  for (uint32_t tag_i = 0; tag_i < w.program.ops.size(); ++tag_i) {
    const auto& op = w.program.ops[tag_i];
    ASSERT_EQ(ops[tag_i].value("name", ""), op.name);
    if (op.kind != "Conv" && op.kind != "Gemm" && op.kind != "MatMul") continue;
    SCOPED_TRACE(op.name);
    size_t commands = 0;
    for (const auto& c : w.program.commands)
      if (c.tag == tag_i && c.opcode == photon::pcs::Opcode::Gemm) ++commands;
    ASSERT_GT(commands, 0u);
    const double formula = photon_test::gemm_layer_formula_ns(w.program, tag_i, cfg.optical_gemm);
    const double sim = ops[tag_i]["unit_ns"].value("optical_gemm", 0.0);
    EXPECT_GT(formula, 0);
    EXPECT_NEAR(sim, formula, double(commands) * cycle_ns) << commands << " GEMM commands";
    (op.kind == "Conv" ? convs : gemms)++;
  }
  EXPECT_GT(convs, 0);
  EXPECT_GT(gemms, 0);
}

TEST(GemmLayer, Lenet5OpticalTimeMatchesFormula) {
  check_layers(onnx_input("lenet5_weights.onnx"), "lenet5");
}

TEST(GemmLayer, Resnet8OpticalTimeMatchesFormula) {
  const std::string dir = fresh_dir("resnet8_model");
  const std::string cmd =
      "/usr/bin/python3 " + src("scripts/make_example_models.py") + " " + dir + " >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  check_layers(dir + "/resnet8_cifar.onnx", "resnet8");
}

}  // namespace
}  // namespace photon_e2e

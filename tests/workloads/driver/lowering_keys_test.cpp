// The keys the lowerings read (workloads/driver/lowering_keys.h), checked the only way that can
// catch a missing one: change every configuration key, one at a time, and compile again. Where
// the change leaves the lowering signature as it was, the compiled program must be identical.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "workloads/driver/lowering_keys.h"
#include "workloads/driver/workload.h"

namespace photon {
namespace {

/// Another valid value of `p` (as text), trying a few; empty when none loads.
std::vector<std::string> other_values(const ParamSet::Param& p, const nlohmann::json& v) {
  std::vector<std::string> out;
  switch (p.kind) {
    case ParamSet::Kind::UInt:
    case ParamSet::Kind::UInt32: {
      const double x = v.get<double>();
      for (double c : {x + 1, x - 1, x * 2, std::floor(x / 2), p.min, p.max})
        if (c >= p.min && c <= p.max && c != x) out.push_back(std::to_string(uint64_t(c)));
      break;
    }
    case ParamSet::Kind::Double: {
      const double x = v.get<double>();
      for (double c : {x * 1.5, x * 0.5, x + 1, p.min, p.max})
        if (c >= p.min && c <= p.max && c != x) out.push_back(std::to_string(c));
      break;
    }
    case ParamSet::Kind::Bool: out.push_back(v.get<bool>() ? "false" : "true"); break;
    case ParamSet::Kind::Choice:
      for (const auto& c : p.choices)
        if (c != v.get<std::string>()) out.push_back(c);
      break;
    case ParamSet::Kind::Text: break;
  }
  return out;
}

struct Compiled {
  bool ok = false;
  std::string error;
  CompiledWorkload w;
};

Compiled compile(const std::string& file, const RunConfig& cfg) {
  Compiled c;
  try {
    c.w = compile_workload(file, cfg);
    c.ok = true;
  } catch (const Error& e) { c.error = e.what(); }
  return c;
}

void expect_same(const Compiled& a, const Compiled& b, const std::string& what) {
  ASSERT_EQ(a.ok, b.ok) << what << ": " << a.error << b.error;
  if (!a.ok) {
    EXPECT_EQ(a.error, b.error) << what;
    return;
  }
  EXPECT_TRUE(a.w.program == b.w.program) << what << ": the program differs";
  ASSERT_EQ(a.w.fills.size(), b.w.fills.size()) << what;
  for (size_t i = 0; i < a.w.fills.size(); ++i) {
    EXPECT_EQ(a.w.fills[i].address, b.w.fills[i].address) << what;
    EXPECT_EQ(a.w.fills[i].count, b.w.fills[i].count) << what;
  }
  ASSERT_EQ(a.w.unsupported.size(), b.w.unsupported.size()) << what;
  for (size_t i = 0; i < a.w.unsupported.size(); ++i)
    EXPECT_EQ(a.w.unsupported[i].to_json(), b.w.unsupported[i].to_json()) << what;
  EXPECT_EQ(a.w.info.to_json(), b.w.info.to_json()) << what;
}

void check_workload(const std::string& file, const std::string& config) {
  const RunConfig base = load_run_config(config, {});
  const std::string frontend = workload_frontend(file);
  const std::string sig = lowering_signature(base, frontend);
  const Compiled ref = compile(file, base);
  ASSERT_TRUE(ref.ok) << ref.error;
  int checked = 0;
  RunConfig mutable_base = base;
  const ParamSet base_ps = bind_params(mutable_base);
  for (const auto& [key, p] : base_ps.params()) {
    for (const auto& v : other_values(p, base_ps.value(key))) {
      RunConfig cfg;
      try {
        cfg = load_run_config(config, {key + "=" + v});
      } catch (const Error&) {
        continue;  // not a valid configuration: try another value
      }
      if (lowering_signature(cfg, frontend) != sig) break;  // a key the lowering reads
      expect_same(ref, compile(file, cfg), file + " with " + key + "=" + v);
      ++checked;
      break;
    }
  }
  EXPECT_GT(checked, 80) << checked << " keys changed without changing the lowering signature";
}

const std::string kShared = PHOTON_SHARED_DIR;
const std::string kConfigs = std::string(PHOTON_SOURCE_DIR) + "/configs/";

TEST(LoweringKeys, OnnxProgramsDependOnlyOnTheListedKeys) {
  check_workload(kShared + "/inputs/onnx/lenet5_weights.onnx", kConfigs + "default.yaml");
  check_workload(kShared + "/inputs/onnx/light_squeezenet.onnx", kConfigs + "default.yaml");
  check_workload(kShared + "/inputs/onnx/transformer_layer_d64_weights.onnx", kConfigs + "default.yaml");
}

TEST(LoweringKeys, HeirProgramsDependOnlyOnTheListedKeys) {
  check_workload(kShared + "/inputs/heir/orion_mlp_ckks.mlir", kConfigs + "sharp_like.yaml");
}

TEST(LoweringKeys, ListedKeysDoChangeTheProgram) {
  // Not every listed key changes every program, but the array shape changes an ONNX model's.
  const std::string m = kShared + "/inputs/onnx/lenet5_weights.onnx";
  const Compiled a = compile(m, load_run_config(kConfigs + "default.yaml", {}));
  const Compiled b = compile(m, load_run_config(kConfigs + "default.yaml", {"optical_gemm.rows=8"}));
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_FALSE(a.w.program == b.w.program);
  EXPECT_EQ(workload_frontend("x.onnx"), "onnx");
  EXPECT_EQ(workload_frontend("x.mlir"), "heir");
  EXPECT_TRUE(lowering_config_keys("pcs").empty());
}

}  // namespace
}  // namespace photon

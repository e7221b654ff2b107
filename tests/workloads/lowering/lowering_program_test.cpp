// Structure of lowered programs: memory plan, op table, fallbacks, command counts, timing formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "base/error.h"
#include "lowering_harness.h"
#include "models/optical_gemm/optical_gemm_timing.h"
#include "tests/support/gemm_timing_oracle.h"
#include "workloads/lowering/memory_plan.h"

namespace photon::testing {
namespace {

using Attrs = std::map<std::string, AttrValue>;

TEST(LoweringProgram, UnsupportedNodeIsListedWithCostAndInvalidatesFunctionalMode) {
  GraphBuilder b;
  b.input("x", {4, 10});
  b.tensor("h", {4, 10});
  b.tensor("y", {4, 10});
  b.g.outputs = {"y"};
  b.node("Hardmax", "hm", {"x"}, {"h"});
  b.node("Relu", "relu", {"h"}, {"y"});
  b.ints("shp", {4, 10});
  b.node("Shape", "shape", {"x"}, {"shp"});  // folded by the frontend: output constant
  auto r = lowering::lower_graph(b.g, PlatformConfig());
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_EQ(r.unsupported[0].op, "Hardmax");
  EXPECT_EQ(r.unsupported[0].node, "hm");
  EXPECT_EQ(r.unsupported[0].reason, "no device mapping for this op type");
  EXPECT_DOUBLE_EQ(r.unsupported[0].host_cost_ns, lowering::kHostFixedNs + lowering::kHostNsPerElement * 80);
  EXPECT_DOUBLE_EQ(r.host_fallback_ns, r.unsupported[0].host_cost_ns);
  EXPECT_FALSE(r.functional_valid);
  EXPECT_EQ(r.nodes_total, 3);
  EXPECT_EQ(r.nodes_lowered, 1);
  EXPECT_EQ(r.nodes_fallback, 1);
  EXPECT_EQ(r.nodes_folded, 1);
  EXPECT_EQ(r.fallback_by_op.at("Hardmax"), 1);
  ASSERT_EQ(r.program.ops.size(), 3u);
  EXPECT_EQ(r.program.ops[2].detail, "folded: every output is a constant, no commands");
  EXPECT_EQ(r.program.ops[0].name, "hm");
  EXPECT_EQ(r.program.ops[0].detail, "host fallback: no device mapping for this op type");
  EXPECT_EQ(r.program.ops[1].kind, "Relu");
  for (const auto& c : r.program.commands) {
    if (c.opcode != pcs::Opcode::End) {
      EXPECT_EQ(c.tag, 1u);  // only the Relu owns commands
    }
  }
  EXPECT_EQ(r.program.commands.back().opcode, pcs::Opcode::End);
}

TEST(LoweringProgram, HbmPlanAlignsReusesFreedActivationsAndKeepsOutputs) {
  GraphBuilder b;
  PlatformConfig cfg;
  cfg.noc.hbm_base = 0x1000;
  b.input("x", {1000});
  b.weight("w", {3}, {1, 2, 3});
  for (const char* t : {"r1", "r2", "r3", "r4"}) b.tensor(t, {1000});
  b.g.outputs = {"r4"};
  b.node("Relu", "n1", {"x"}, {"r1"});
  b.node("Relu", "n2", {"r1"}, {"r2"});
  b.node("Relu", "n3", {"r2"}, {"r3"});
  b.node("Relu", "n4", {"r3"}, {"r4"});
  b.node("Unsqueeze", "dead_view", {"w"}, {"wv"});  // unused view: no allocation of its own
  b.tensor("wv", {1, 3});
  auto p = lowering::plan_hbm(b.g, cfg);
  EXPECT_EQ(p.address.at("w"), 0x1000u);  // constants first
  EXPECT_EQ(p.address.at("x"), 0x1040u);  // then graph inputs (64-byte aligned)
  for (const auto& [n, a] : p.address) EXPECT_EQ(a % lowering::kHbmAlign, 0u) << n;
  EXPECT_EQ(p.address.at("r3"), p.address.at("r1"));  // r1 is dead once n2 ran
  EXPECT_NE(p.address.at("r2"), p.address.at("r1"));
  EXPECT_NE(p.address.at("r4"), p.address.at("r3"));
  EXPECT_EQ(p.address.at("wv"), p.address.at("w"));
  EXPECT_EQ(p.peak_activation_bytes, 2u * 4032u);  // two live 4000-byte blocks, 64-aligned
}

TEST(LoweringProgram, MidSizeConvTilingDetailAndCommandCount) {
  // ResNet-50 stage-1 3x3 convolution: 64 -> 64 channels at 56 x 56.
  GraphBuilder b;
  b.input("x", {1, 64, 56, 56});
  TensorInfo w;
  w.name = "w";
  w.shape = {64, 64, 3, 3};
  w.is_constant = true;  // no data: timing-only use
  b.g.tensors["w"] = w;
  b.tensor("y", {1, 64, 56, 56});
  b.g.outputs = {"y"};
  b.node("Conv", "res2a_branch2b", {"x", "w"}, {"y"},
         Attrs{{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"kernel_shape", std::vector<int64_t>{3, 3}}});
  PlatformConfig cfg;  // 8 MiB scratchpad, 32 x 32 array, 8 wavelengths
  auto r = lowering::lower_graph(b.g, cfg);
  ASSERT_EQ(r.program.ops.size(), 1u);
  const std::string& d = r.program.ops[0].detail;
  EXPECT_EQ(d.rfind("im2col 3x3 s1 g1; M=3136 N=64 K=576; tiles m", 0), 0u) << d;
  EXPECT_NE(d.find("weights resident"), std::string::npos) << d;
  EXPECT_FALSE(r.functional_valid);  // the weight has no data
  size_t gemms = 0, total = r.program.commands.size();
  uint32_t max_sem = 0;
  double stream_ns = 0;
  int64_t m_sum = 0;
  for (const auto& c : r.program.commands) {
    if (c.opcode == pcs::Opcode::Gemm) {
      const auto& g = std::get<pcs::Gemm>(c.body);
      ++gemms;
      EXPECT_EQ(g.k, 576u);
      EXPECT_EQ(g.n, 64u);
      EXPECT_EQ(g.m % 56, 0u);  // whole output rows
      m_sum += g.m;
      stream_ns += std::ceil(g.m / 8.0) / 5.0;
    }
    if (c.opcode == pcs::Opcode::Signal || c.opcode == pcs::Opcode::Wait)
      max_sem = std::max(max_sem, std::get<pcs::Sync>(c.body).sem);
  }
  // The 576 x 64 weights (147 KiB) stay resident; M = 3136 splits into row bands of the 8 MiB
  // scratchpad; per band: input load, Signal/Wait full, im2col, 2 hand-offs, GEMM, transpose,
  // Signal/Wait done, store = 13 commands; plus one weight load and End.
  EXPECT_EQ(m_sum, 3136);
  EXPECT_GE(gemms, 2u);
  EXPECT_LE(gemms, 8u);
  EXPECT_EQ(total, 13u * gemms + 2);
  EXPECT_LT(max_sem, cfg.cpu.semaphores);
  // Engine time: 36 weight tiles (18 column x 2 row tiles) per command, each programmed (10 ns),
  // converted (1 ns), pipelined (4 cycles at 1 GHz) and streamed ceil(m / 8) symbols at 5 GHz.
  const double t = photon_test::gemm_layer_formula_ns(r.program, 0, cfg.optical_gemm);
  EXPECT_NEAR(t, gemms * 36 * (10.0 + 1.0 + 4.0) + 36 * stream_ns, 1e-6);
}

// The oracle (tests/support/gemm_timing_oracle.h) and the engine's model (optical_gemm_cost)
// against hand-computed closed forms.
TEST(LoweringProgram, GemmFormulaClosedForm) {
  PlatformConfig cfg;  // 32 x 32, 8 wavelengths, 5 GHz, 1 ns conversion, 4 cycles at 1 GHz, 10 ns program
  pcs::Gemm g;
  auto expect_ns = [&](double want) {
    EXPECT_NEAR(photon_test::gemm_command_ns(g, cfg.optical_gemm), want, 1e-9);
    EXPECT_NEAR(optical_gemm_cost(cfg.optical_gemm, g).total_ns, want, 1e-9);
  };
  g.m = 64;
  g.n = 32;
  g.k = 32;
  expect_ns(16.6);  // 10 + ceil(64/8)/5 + 1 + 4 = 16.6 ns
  g.flags = pcs::Gemm::kReuseWeights;
  expect_ns(6.6);
  g.flags = 0;
  g.n = 40;  // 2 weight tiles, each programmed and streamed
  g.k = 70;  // 3 column tiles
  expect_ns(6 * 16.6);
  g.flags = pcs::Gemm::kReuseWeights;  // first of the 6 tiles already in the array
  expect_ns(6 * 16.6 - 10.0);
  EXPECT_EQ(photon_test::gemm_weight_programs(g, cfg.optical_gemm), 5u);
  EXPECT_EQ(optical_gemm_cost(cfg.optical_gemm, g).programs, 5u);
  cfg.optical_gemm.weight_mode = WeightMode::Streamed;
  expect_ns(6 * 6.6);
}

TEST(LoweringProgram, RowThatCannotFitOneTileIsAnErrorNamingTheNode) {
  GraphBuilder b;
  b.g.opset = 13;
  b.input("x", {2, 100000});
  b.tensor("y", {2, 100000});
  b.g.outputs = {"y"};
  b.node("Softmax", "big_softmax", {"x"}, {"y"});
  try {
    lowering::lower_graph(b.g, small_config());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'big_softmax' (Softmax)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
}

/// ResNet-50 (v1.5 shapes, batch 1, 224 x 224) built by hand: Conv+BN+Relu, bottlenecks, Add, pools,
/// Gemm, Softmax. Weights without data (timing-only), BN parameters with data.
Graph resnet50() {
  GraphBuilder b;
  b.g.opset = 13;
  int id = 0;
  auto wt = [&](std::vector<int64_t> s) {
    std::string n = "w" + std::to_string(id++);
    TensorInfo t;
    t.name = n;
    t.shape = s;
    t.is_constant = true;
    b.g.tensors[n] = t;
    return n;
  };
  auto act = [&](std::vector<int64_t> s) {
    std::string n = "t" + std::to_string(id++);
    b.tensor(n, s);
    return n;
  };
  auto conv_bn = [&](const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t s, int64_t hw_in,
                     bool relu) {
    const int64_t pad = k / 2, hw = (hw_in + 2 * pad - k) / s + 1;
    std::string w = wt({cout, cin, k, k}), y = act({1, cout, hw, hw});
    b.node("Conv", "conv" + std::to_string(id), {x, w}, {y},
           Attrs{{"strides", std::vector<int64_t>{s, s}},
                 {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                 {"kernel_shape", std::vector<int64_t>{k, k}}});
    std::vector<std::string> bn = {y};
    for (int i = 0; i < 4; ++i) {
      std::string p = "bn" + std::to_string(id++);
      b.weight(p, {cout}, std::vector<float>(cout, i == 3 ? 1.0f : 0.5f));
      bn.push_back(p);
    }
    std::string z = act({1, cout, hw, hw});
    b.node("BatchNormalization", "bn" + std::to_string(id), bn, {z});
    if (!relu) return z;
    std::string r = act({1, cout, hw, hw});
    b.node("Relu", "relu" + std::to_string(id), {z}, {r});
    return r;
  };
  b.input("data", {1, 3, 224, 224});
  std::string x = conv_bn("data", 3, 64, 7, 2, 224, true);
  std::string mp = act({1, 64, 56, 56});
  b.node("MaxPool", "pool1", {x}, {mp},
         Attrs{{"kernel_shape", std::vector<int64_t>{3, 3}},
               {"strides", std::vector<int64_t>{2, 2}},
               {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  x = mp;
  int64_t cin = 64, hw = 56;
  const int64_t widths[4] = {64, 128, 256, 512}, blocks[4] = {3, 4, 6, 3};
  for (int st = 0; st < 4; ++st)
    for (int bl = 0; bl < blocks[st]; ++bl) {
      const int64_t w = widths[st], s = (bl == 0 && st > 0) ? 2 : 1, hwo = hw / s;
      std::string a = conv_bn(x, cin, w, 1, 1, hw, true);
      std::string c2 = conv_bn(a, w, w, 3, s, hw, true);
      std::string c3 = conv_bn(c2, w, 4 * w, 1, 1, hwo, false);
      std::string sc = bl == 0 ? conv_bn(x, cin, 4 * w, 1, s, hw, false) : x;
      std::string sum = act({1, 4 * w, hwo, hwo}), r = act({1, 4 * w, hwo, hwo});
      b.node("Add", "add" + std::to_string(id), {c3, sc}, {sum});
      b.node("Relu", "relu" + std::to_string(id), {sum}, {r});
      x = r;
      cin = 4 * w;
      hw = hwo;
    }
  std::string gap = act({1, 2048, 1, 1}), flat = act({1, 2048}), fc = act({1, 1000}), prob = act({1, 1000});
  b.node("GlobalAveragePool", "gap", {x}, {gap});
  b.node("Flatten", "flatten", {gap}, {flat});
  std::string fw = wt({1000, 2048}), fb = wt({1000});
  b.node("Gemm", "fc", {flat, fw, fb}, {fc}, Attrs{{"transB", int64_t(1)}});
  b.node("Softmax", "prob", {fc}, {prob});
  b.g.outputs = {prob};
  return b.g;
}

TEST(LoweringProgram, ResNet50CommandCountStaysSmall) {
  Graph g = resnet50();
  PlatformConfig cfg;
  auto r = lowering::lower_graph(g, cfg);
  EXPECT_TRUE(r.unsupported.empty());
  EXPECT_EQ(r.nodes_lowered + r.nodes_free, r.nodes_total);
  EXPECT_EQ(r.lowered_by_op.at("Conv"), 53);
  EXPECT_EQ(r.lowered_by_op.at("BatchNormalization"), 53);
  EXPECT_LT(r.program.commands.size(), 30000u);
  EXPECT_GT(r.program.commands.size(), 1000u);
  std::set<uint32_t> sems;
  for (const auto& c : r.program.commands)
    if (c.opcode == pcs::Opcode::Signal || c.opcode == pcs::Opcode::Wait)
      sems.insert(std::get<pcs::Sync>(c.body).sem);
  EXPECT_LT(*sems.rbegin(), cfg.cpu.semaphores);
  EXPECT_EQ(r.program.ops.size(), g.nodes.size());
  // Every command encodes (pcs::validate) and the program survives the .pcs round trip.
  EXPECT_TRUE(pcs::deserialize(pcs::serialize(r.program)) == r.program);
}

}  // namespace
}  // namespace photon::testing

namespace photon::testing {
namespace {

TEST(LoweringProgram, SplatConstantsBecomeFillsAndComputeCorrectly) {
  GraphBuilder b;
  b.input("x", {1, 2, 5, 5});
  TensorInfo w;
  w.name = "w";
  w.shape = {3, 2, 3, 3};
  w.is_constant = true;
  w.splat = true;
  w.splat_value = 0.01f;
  b.g.tensors["w"] = w;
  for (const char* p : {"s", "bb", "mu", "var"}) {
    TensorInfo t;
    t.name = p;
    t.shape = {3};
    t.is_constant = true;
    t.splat = true;
    t.splat_value = std::string(p) == "var" ? 3.0f : 0.5f;
    b.g.tensors[p] = t;
  }
  b.tensor("c", {1, 3, 5, 5});
  b.tensor("y", {1, 3, 5, 5});
  b.g.outputs = {"y"};
  b.node("Conv", "conv", {"x", "w"}, {"c"},
         Attrs{{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"kernel_shape", std::vector<int64_t>{3, 3}}});
  b.node("BatchNormalization", "bn", {"c", "s", "bb", "mu", "var"}, {"y"}, Attrs{{"epsilon", 0.0f}});
  lowering::LoweringResult r;
  auto got = run_graph(b, PlatformConfig(), &r, true, 3)["y"];
  EXPECT_TRUE(r.functional_valid);
  EXPECT_TRUE(r.program.segments.empty());  // nothing materialised
  ASSERT_EQ(r.splat_fills.size(), 7u);      // w, 4 BN parameters, folded scale and shift
  const auto& f = r.splat_fills[0];
  EXPECT_EQ(f.tensor, "bb");  // placed constants in name order
  bool found_w = false;
  for (const auto& s : r.splat_fills)
    if (s.tensor == "w") {
      found_w = true;
      EXPECT_EQ(s.address, r.tensor_address.at("w"));
      EXPECT_EQ(s.bytes, 54u * 4);
      EXPECT_EQ(s.value, 0.01f);
    }
  EXPECT_TRUE(found_w);
  std::vector<float> wd(54, 0.01f);
  std::vector<int64_t> ys;
  auto conv = ref_conv(b.inputs["x"], {1, 2, 5, 5}, wd, {3, 2, 3, 3}, nullptr, 1, 1, 1, ys);
  const float sc = 0.5f / std::sqrt(3.0f);
  for (size_t i = 0; i < conv.size(); ++i) EXPECT_NEAR(got[i], (conv[i] - 0.5f) * sc + 0.5f, 1e-5);
}

}  // namespace
}  // namespace photon::testing

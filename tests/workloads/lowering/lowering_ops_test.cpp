// Lowered programs executed on the reference interpreter against naive ONNX references.
#include <gtest/gtest.h>

#include <cmath>

#include "isa/program.h"
#include "lowering_harness.h"
#include "ref_interpreter.h"

namespace photon::testing {
namespace {

void expect_close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
}

using Attrs = std::map<std::string, AttrValue>;

struct ConvCase {
  std::vector<int64_t> xs, ws;
  int64_t group, stride, pad;
  bool bias;
};

void run_conv(const ConvCase& cc, const PlatformConfig& cfg, bool interleaved,
              lowering::LoweringResult* res = nullptr) {
  GraphBuilder b;
  b.input("x", cc.xs);
  b.weight("w", cc.ws);
  std::vector<std::string> ins = {"x", "w"};
  if (cc.bias) {
    b.weight("b", {cc.ws[0]});
    ins.push_back("b");
  }
  std::vector<int64_t> ys;
  auto want = ref_conv(b.inputs["x"], cc.xs, b.g.tensors["w"].data, cc.ws,
                       cc.bias ? &b.g.tensors["b"].data : nullptr, cc.group, cc.stride, cc.pad, ys);
  b.tensor("y", ys);
  b.g.outputs = {"y"};
  b.node("Conv", "conv", ins, {"y"},
         Attrs{{"group", cc.group},
               {"strides", std::vector<int64_t>{cc.stride, cc.stride}},
               {"pads", std::vector<int64_t>{cc.pad, cc.pad, cc.pad, cc.pad}},
               {"kernel_shape", std::vector<int64_t>{cc.ws[2], cc.ws[3]}}});
  lowering::LoweringResult r;
  auto got = run_graph(b, cfg, &r, interleaved, 7);
  expect_close(got["y"], want);
  EXPECT_TRUE(r.unsupported.empty());
  if (res) *res = std::move(r);
}

TEST(LoweringConv, GroupedStridedPaddedWithBias) {
  ConvCase cc{{2, 6, 11, 13}, {8, 3, 3, 3}, 2, 2, 1, true};
  run_conv(cc, PlatformConfig(), false);
  run_conv(cc, small_config(), false);
  run_conv(cc, small_config(), true);
}

// Naive direct convolution (ONNX Conv, docs/Operators.md) with per-axis strides s, dilations d and
// pads {top, left, bottom, right}: y[n,m,oy,ox] = b[m] + sum x[n, g*Cg + c, oy*sh - pt + i*dh,
// ox*sw - pl + j*dw] * w[m,c,i,j], out-of-image taps 0; OH = (H + pt + pb - (dh*(KH-1)+1)) / sh + 1.
std::vector<float> ref_conv_dilated(const std::vector<float>& x, const std::vector<int64_t>& xs,
                                    const std::vector<float>& w, const std::vector<int64_t>& ws,
                                    const std::vector<float>& bias, int64_t group, std::vector<int64_t> s,
                                    std::vector<int64_t> d, std::vector<int64_t> p,
                                    std::vector<int64_t>& ys) {
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], M = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3];
  const int64_t OH = (H + p[0] + p[2] - (d[0] * (KH - 1) + 1)) / s[0] + 1;
  const int64_t OW = (W + p[1] + p[3] - (d[1] * (KW - 1) + 1)) / s[1] + 1;
  ys = {N, M, OH, OW};
  std::vector<float> y(N * M * OH * OW);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = bias[m];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t iy = oy * s[0] - p[0] + i * d[0], ix = ox * s[1] - p[1] + j * d[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += double(x[((n * C + m / (M / group) * Cg + c) * H + iy) * W + ix]) *
                       w[((m * Cg + c) * KH + i) * KW + j];
              }
          y[((n * M + m) * OH + oy) * OW + ox] = float(acc);
        }
  return y;
}

TEST(LoweringConv, DilatedGroupedStridedAsymmetricPads) {
  // dilations [2,1], group 2, strides [2,1], pads [1,2,0,1]: x 2x4x9x8, w 6x2x3x2 -> y 2x6x3x10.
  for (const PlatformConfig& cfg : {PlatformConfig(), small_config()}) {
    GraphBuilder b;
    b.input("x", {2, 4, 9, 8});
    b.weight("w", {6, 2, 3, 2});
    b.weight("b", {6});
    std::vector<int64_t> ys;
    auto want = ref_conv_dilated(b.inputs["x"], {2, 4, 9, 8}, b.g.tensors["w"].data, {6, 2, 3, 2},
                                 b.g.tensors["b"].data, 2, {2, 1}, {2, 1}, {1, 2, 0, 1}, ys);
    ASSERT_EQ(ys, (std::vector<int64_t>{2, 6, 3, 10}));
    b.tensor("y", ys);
    b.g.outputs = {"y"};
    b.node("Conv", "conv", {"x", "w", "b"}, {"y"},
           Attrs{{"group", int64_t{2}},
                 {"strides", std::vector<int64_t>{2, 1}},
                 {"dilations", std::vector<int64_t>{2, 1}},
                 {"pads", std::vector<int64_t>{1, 2, 0, 1}},
                 {"kernel_shape", std::vector<int64_t>{3, 2}}});
    lowering::LoweringResult r;
    auto got = run_graph(b, cfg, &r, false, 7);
    EXPECT_TRUE(r.unsupported.empty());
    expect_close(got["y"], want);
  }
}

TEST(LoweringConv, Depthwise) {
  run_conv({{1, 4, 9, 9}, {4, 1, 3, 3}, 4, 1, 1, false}, PlatformConfig(), false);
  run_conv({{1, 4, 9, 9}, {4, 1, 3, 3}, 4, 1, 1, true}, small_config(), true);
}

TEST(LoweringConv, TiledAcrossRowsChannelsAndOutputsWithAccumulation) {
  lowering::LoweringResult r;
  ConvCase cc{{1, 40, 12, 12}, {24, 40, 3, 3}, 1, 1, 1, true};
  run_conv(cc, small_config(), true, &r);
  // K = 360 does not fit the 64 KiB scratchpad in one tile: several K blocks accumulate.
  const std::string& d = r.program.ops.at(0).detail;
  EXPECT_NE(d.find("im2col 3x3 s1 g1"), std::string::npos) << d;
  size_t acc = 0, bias = 0;
  for (const auto& c : r.program.commands)
    if (c.opcode == pcs::Opcode::Gemm) {
      const auto& g = std::get<pcs::Gemm>(c.body);
      acc += (g.flags & pcs::Gemm::kAccumulate) != 0;
      bias += (g.flags & pcs::Gemm::kBias) != 0;
      EXPECT_TRUE(g.flags & pcs::Gemm::kTransposeB);
    }
  EXPECT_GT(acc, 0u);
  EXPECT_GT(bias, 0u);
}

TEST(LoweringConv, PointwiseReadsTheInputBandWithoutIm2col) {
  lowering::LoweringResult r;
  run_conv({{2, 40, 10, 10}, {24, 40, 1, 1}, 1, 1, 0, true}, small_config(), true, &r);
  for (const auto& c : r.program.commands) {
    if (c.opcode == pcs::Opcode::Vector) {
      EXPECT_NE(std::get<pcs::Vector>(c.body).op, pcs::Vector::kIm2col);
    }
  }
  EXPECT_EQ(r.program.ops.at(0).detail.rfind("pointwise 1x1 s1 g1; M=100 N=24 K=40", 0), 0u)
      << r.program.ops.at(0).detail;
  run_conv({{1, 8, 9, 9}, {6, 8, 1, 1}, 1, 2, 0, false}, small_config(), true);  // strided 1x1: im2col
}

TEST(LoweringConv, WeightReuseAcrossBatchWhenOneArrayTile) {
  GraphBuilder b;
  std::vector<int64_t> xs = {3, 2, 6, 6}, ws = {4, 2, 1, 1}, ys;
  b.input("x", xs);
  b.weight("w", ws);
  auto want = ref_conv(b.inputs["x"], xs, b.g.tensors["w"].data, ws, nullptr, 1, 1, 0, ys);
  b.tensor("y", ys);
  b.g.outputs = {"y"};
  b.node("Conv", "conv", {"x", "w"}, {"y"}, Attrs{{"kernel_shape", std::vector<int64_t>{1, 1}}});
  PlatformConfig cfg = small_config();
  lowering::LoweringResult r = lowering::lower_graph(b.g, cfg);
  RefMachine m(cfg, r.hbm_bytes + 4096);
  m.load(r);
  m.write_f32(r.tensor_address.at("x"), b.inputs["x"]);
  m.run_interleaved(r.program, 3);
  expect_close(m.read_f32(r.tensor_address.at("y"), want.size()), want);
  EXPECT_EQ(m.gemm_commands, 3u);
  EXPECT_EQ(m.reused_weights, 2u);  // batches 2 and 3 keep the programmed 2 x 4 tile
}

TEST(LoweringGemm, TransposesAlphaBetaAndBiasForms) {
  for (int variant = 0; variant < 3; ++variant) {
    GraphBuilder b;
    const int64_t M = 21, K = 19, N = 17;
    b.input("a", {K, M});   // transA
    b.weight("w", {N, K});  // transB
    std::vector<int64_t> cs = variant == 0   ? std::vector<int64_t>{N}
                              : variant == 1 ? std::vector<int64_t>{M, 1}
                                             : std::vector<int64_t>{M, N};
    b.weight("c", cs);
    const float alpha = variant == 0 ? 1.0f : 0.5f, beta = variant == 0 ? 1.0f : 2.0f;
    b.tensor("y", {M, N});
    b.g.outputs = {"y"};
    b.node("Gemm", "fc", {"a", "w", "c"}, {"y"},
           Attrs{{"transA", int64_t(1)}, {"transB", int64_t(1)}, {"alpha", alpha}, {"beta", beta}});
    std::vector<float> want(M * N);
    const auto& A = b.inputs["a"];
    const auto& W = b.g.tensors["w"].data;
    const auto& C = b.g.tensors["c"].data;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += double(A[k * M + m]) * W[n * K + k];
        float cv = variant == 0 ? C[n] : variant == 1 ? C[m] : C[m * N + n];
        want[m * N + n] = float(alpha * acc + beta * cv);
      }
    for (bool inter : {false, true}) {
      lowering::LoweringResult r;
      expect_close(run_graph(b, small_config(), &r, inter, 11)["y"], want);
      bool has_bias_flag = false;
      for (const auto& c : r.program.commands)
        if (c.opcode == pcs::Opcode::Gemm)
          has_bias_flag |= (std::get<pcs::Gemm>(c.body).flags & pcs::Gemm::kBias) != 0;
      EXPECT_EQ(has_bias_flag, variant == 0);
    }
  }
}

TEST(LoweringMatMul, BatchBroadcastAndFoldedBatch) {
  struct Case {
    std::vector<int64_t> as, bs;
    bool wconst;
  };
  for (const auto& cs : {Case{{2, 3, 5, 7}, {3, 7, 4}, false}, Case{{3, 6, 8}, {8, 5}, true},
                         Case{{7}, {2, 7, 3}, false}, Case{{4, 9, 40}, {40, 12}, true}}) {
    GraphBuilder b;
    b.input("a", cs.as);
    if (cs.wconst)
      b.weight("b", cs.bs);
    else
      b.input("b", cs.bs);
    std::vector<int64_t> ys;
    const auto& bd = cs.wconst ? b.g.tensors["b"].data : b.inputs["b"];
    auto as = cs.as;
    if (as.size() == 1) as.insert(as.begin(), 1);
    auto want = ref_matmul(b.inputs["a"], as, bd, cs.bs, ys);
    if (cs.as.size() == 1) ys.erase(ys.end() - 2);
    b.tensor("y", ys);
    b.g.outputs = {"y"};
    b.node("MatMul", "mm", {"a", "b"}, {"y"});
    expect_close(run_graph(b, PlatformConfig())["y"], want);
    expect_close(run_graph(b, small_config(), nullptr, true, 5)["y"], want);
  }
}

TEST(LoweringElementwise, BroadcastPatternsBothOperandOrders) {
  struct Case {
    std::vector<int64_t> as, bs;
    const char* op;
    char c;
  };
  for (const auto& cs :
       {Case{{2, 3, 4, 5}, {3, 1, 5}, "Add", '+'}, Case{{2, 3, 4, 5}, {2, 3, 4, 5}, "Mul", '*'},
        Case{{5}, {2, 3, 5}, "Sub", '-'}, Case{{2, 3, 1}, {2, 3, 40}, "Div", '/'},
        Case{{6, 70, 30}, {70, 1}, "Max", 'M'}, Case{{1, 3, 1, 1}, {2, 3, 8, 8}, "Min", 'm'},
        Case{{2, 3, 40}, {2, 3, 1}, "Pow", '^'}}) {
    GraphBuilder b;
    b.input("a", cs.as);
    b.input("b", cs.bs);
    if (cs.c == '^')
      for (auto& v : b.inputs["a"]) v = std::fabs(v) + 0.1f;
    if (cs.c == '/')
      for (auto& v : b.inputs["b"]) v = v >= 0 ? v + 0.5f : v - 0.5f;
    std::vector<int64_t> ys;
    auto want = ref_broadcast(b.inputs["a"], cs.as, b.inputs["b"], cs.bs, cs.c, ys);
    b.tensor("y", ys);
    b.g.outputs = {"y"};
    b.node(cs.op, "ew", {"a", "b"}, {"y"});
    expect_close(run_graph(b, PlatformConfig())["y"], want, 1e-5f);
    // 64 KiB scratchpad: periods and inner blocks are split across several commands.
    expect_close(run_graph(b, small_config(), nullptr, true, 9)["y"], want, 1e-5f);
  }
}

TEST(LoweringElementwise, ScalarConstantsAndUnaryChain) {
  GraphBuilder b;
  b.input("x", {3, 50});
  b.weight("two", {}, {2.0f});
  b.weight("half", {1}, {0.5f});
  b.tensor("p", {3, 50});
  b.tensor("q", {3, 50});
  b.tensor("y", {3, 50});
  b.g.outputs = {"y"};
  b.node("Pow", "pow", {"x", "two"}, {"p"});
  b.node("Sub", "rsub", {"half", "p"}, {"q"});  // 0.5 - x^2
  b.node("Tanh", "tanh", {"q"}, {"y"});
  std::vector<float> want;
  for (float v : b.inputs["x"]) want.push_back(std::tanh(0.5f - v * v));
  lowering::LoweringResult r;
  expect_close(run_graph(b, PlatformConfig(), &r)["y"], want, 1e-5f);
  EXPECT_NE(r.program.ops.at(0).detail.find("scalar 2"), std::string::npos);
}

TEST(LoweringRowOps, SoftmaxLayerNormReduce) {
  GraphBuilder b;
  b.g.opset = 17;
  b.input("x", {3, 4, 10});
  b.weight("gamma", {10});
  b.weight("beta", {10});
  for (const char* t : {"s", "l"}) b.tensor(t, {3, 4, 10});
  b.tensor("m", {3, 4, 1});
  b.g.outputs = {"s", "l", "m"};
  b.node("Softmax", "sm", {"x"}, {"s"}, Attrs{{"axis", int64_t(-1)}});
  b.node("LayerNormalization", "ln", {"x", "gamma", "beta"}, {"l"}, Attrs{{"epsilon", 1e-5f}});
  b.node("ReduceMean", "rm", {"x"}, {"m"}, Attrs{{"axes", std::vector<int64_t>{-1}}});
  const auto& x = b.inputs["x"];
  const auto& g = b.g.tensors["gamma"].data;
  const auto& be = b.g.tensors["beta"].data;
  std::vector<float> ws(120), wl(120), wm(12);
  for (int r = 0; r < 12; ++r) {
    double mx = -1e30, s = 0, mean = 0, var = 0;
    for (int j = 0; j < 10; ++j) mx = std::max<double>(mx, x[r * 10 + j]);
    for (int j = 0; j < 10; ++j) s += std::exp(x[r * 10 + j] - mx);
    for (int j = 0; j < 10; ++j) mean += x[r * 10 + j] / 10.0;
    for (int j = 0; j < 10; ++j) var += (x[r * 10 + j] - mean) * (x[r * 10 + j] - mean) / 10.0;
    for (int j = 0; j < 10; ++j) {
      ws[r * 10 + j] = float(std::exp(x[r * 10 + j] - mx) / s);
      wl[r * 10 + j] = float((x[r * 10 + j] - mean) / std::sqrt(var + 1e-5) * g[j] + be[j]);
    }
    wm[r] = float(mean);
  }
  auto got = run_graph(b, small_config(), nullptr, true, 2);
  expect_close(got["s"], ws);
  expect_close(got["l"], wl);
  expect_close(got["m"], wm);
}

TEST(LoweringPool, MaxAndAveragePoolWithPadding) {
  GraphBuilder b;
  b.input("x", {2, 3, 9, 9});
  b.tensor("mp", {2, 3, 5, 5});
  b.tensor("ap", {2, 3, 9, 9});
  b.tensor("gp", {2, 3, 1, 1});
  b.g.outputs = {"mp", "ap", "gp"};
  b.node("MaxPool", "mp", {"x"}, {"mp"},
         Attrs{{"kernel_shape", std::vector<int64_t>{3, 3}},
               {"strides", std::vector<int64_t>{2, 2}},
               {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.node("AveragePool", "ap", {"x"}, {"ap"},
         Attrs{{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.node("GlobalAveragePool", "gp", {"x"}, {"gp"});
  const auto& x = b.inputs["x"];
  std::vector<float> wmp(2 * 3 * 25), wap(2 * 3 * 81), wgp(6);
  for (int p = 0; p < 6; ++p) {
    double s = 0;
    for (int i = 0; i < 81; ++i) s += x[p * 81 + i];
    wgp[p] = float(s / 81);
    for (int oy = 0; oy < 9; ++oy)
      for (int ox = 0; ox < 9; ++ox) {
        double mx = -1e30, sum = 0;
        int cnt = 0;
        for (int ki = 0; ki < 3; ++ki)
          for (int kj = 0; kj < 3; ++kj) {
            int iy = oy - 1 + ki, ix = ox - 1 + kj;
            if (iy < 0 || iy >= 9 || ix < 0 || ix >= 9) continue;
            sum += x[p * 81 + iy * 9 + ix];
            ++cnt;
          }
        wap[p * 81 + oy * 9 + ox] = float(sum / cnt);  // count_include_pad = 0
        if (oy < 5 && ox < 5) {
          for (int ki = 0; ki < 3; ++ki)
            for (int kj = 0; kj < 3; ++kj) {
              int iy = oy * 2 - 1 + ki, ix = ox * 2 - 1 + kj;
              if (iy >= 0 && iy < 9 && ix >= 0 && ix < 9) mx = std::max<double>(mx, x[p * 81 + iy * 9 + ix]);
            }
          wmp[p * 25 + oy * 5 + ox] = float(mx);
        }
      }
  }
  auto got = run_graph(b, PlatformConfig(), nullptr, true, 4);
  expect_close(got["mp"], wmp);
  expect_close(got["ap"], wap);
  expect_close(got["gp"], wgp);
}

TEST(LoweringData, ConcatTransposeReshapeSliceGather) {
  GraphBuilder b;
  b.input("a", {2, 3, 4});
  b.input("c", {2, 5, 4});
  b.tensor("cat", {2, 8, 4});
  b.tensor("r", {2, 2, 4, 4});
  b.tensor("t1", {2, 4, 2, 4});  // perm 0,2,1,3: innermost axis stays (DMA)
  b.tensor("t2", {2, 2, 4, 4});  // perm 0,1,3,2: batched 2-D transpose (vector)
  b.tensor("sl", {2, 3, 2});     // cat[:, 1:7:2, 1:3]
  b.tensor("ga", {2, 2, 4});     // cat gathered on axis 1, indices {6, 0}
  b.ints("shape", {2, 2, 4, 4});
  b.ints("starts", {1, 1});
  b.ints("ends", {7, 3});
  b.ints("axes", {1, 2});
  b.ints("steps", {2, 1});
  b.ints("idx", {6, 0});
  b.g.outputs = {"cat", "t1", "t2", "sl", "ga"};
  b.node("Concat", "cat", {"a", "c"}, {"cat"}, Attrs{{"axis", int64_t(1)}});
  b.node("Reshape", "reshape", {"cat", "shape"}, {"r"});
  b.node("Transpose", "t1", {"r"}, {"t1"}, Attrs{{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  b.node("Transpose", "t2", {"r"}, {"t2"}, Attrs{{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  b.node("Slice", "sl", {"cat", "starts", "ends", "axes", "steps"}, {"sl"});
  b.node("Gather", "ga", {"cat", "idx"}, {"ga"}, Attrs{{"axis", int64_t(1)}});
  const auto& A = b.inputs["a"];
  const auto& C = b.inputs["c"];
  std::vector<float> cat(64);
  for (int n = 0; n < 2; ++n)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 4; ++k)
        cat[(n * 8 + j) * 4 + k] = j < 3 ? A[(n * 3 + j) * 4 + k] : C[(n * 5 + j - 3) * 4 + k];
  std::vector<float> t1(64), t2(64), sl(12), ga(16);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) {
          float v = cat[((n * 2 + i) * 4 + j) * 4 + k];
          t1[((n * 4 + j) * 2 + i) * 4 + k] = v;
          t2[((n * 2 + i) * 4 + k) * 4 + j] = v;
        }
  for (int n = 0; n < 2; ++n)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) sl[(n * 3 + j) * 2 + k] = cat[(n * 8 + 1 + 2 * j) * 4 + 1 + k];
  for (int n = 0; n < 2; ++n)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 4; ++k) ga[(n * 2 + j) * 4 + k] = cat[(n * 8 + (j == 0 ? 6 : 0)) * 4 + k];
  lowering::LoweringResult r;
  auto got = run_graph(b, small_config(), &r, true, 8);
  expect_close(got["cat"], cat, 0);
  expect_close(got["t1"], t1, 0);
  expect_close(got["t2"], t2, 0);
  expect_close(got["sl"], sl, 0);
  expect_close(got["ga"], ga, 0);
  EXPECT_EQ(r.tensor_address.at("r"), r.tensor_address.at("cat"));  // Reshape is a view
  EXPECT_EQ(r.nodes_free, 1);
  EXPECT_NE(r.program.ops.at(2).detail.find("DMA strided copy"), std::string::npos)
      << r.program.ops.at(2).detail;
  EXPECT_NE(r.program.ops.at(3).detail.find("vector transpose"), std::string::npos)
      << r.program.ops.at(3).detail;
}

TEST(LoweringBatchNorm, FoldedScaleShiftMatchesInferenceFormula) {
  GraphBuilder b;
  b.input("x", {2, 3, 5, 5});
  b.weight("s", {3});
  b.weight("bb", {3});
  b.weight("mean", {3});
  b.weight("var", {3}, {0.5f, 1.5f, 2.0f});
  b.tensor("y", {2, 3, 5, 5});
  b.g.outputs = {"y"};
  b.node("BatchNormalization", "bn", {"x", "s", "bb", "mean", "var"}, {"y"}, Attrs{{"epsilon", 1e-3f}});
  std::vector<float> want(150);
  const auto& x = b.inputs["x"];
  for (int i = 0; i < 150; ++i) {
    int c = (i / 25) % 3;
    want[i] = (x[i] - b.g.tensors["mean"].data[c]) / std::sqrt(b.g.tensors["var"].data[c] + 1e-3f) *
                  b.g.tensors["s"].data[c] +
              b.g.tensors["bb"].data[c];
  }
  expect_close(run_graph(b, PlatformConfig(), nullptr, true, 1)["y"], want);
}

TEST(LoweringLrnPad, MatchesOnnxFormulas) {
  GraphBuilder b;
  b.input("x", {1, 6, 3, 4});
  b.tensor("l", {1, 6, 3, 4});
  b.tensor("p", {1, 6, 5, 7});
  b.ints("pads", {0, 0, 1, 2, 0, 0, 1, 1});
  b.g.outputs = {"l", "p"};
  b.node("LRN", "lrn", {"x"}, {"l"},
         Attrs{{"size", int64_t(3)}, {"alpha", 0.3f}, {"beta", 0.75f}, {"bias", 2.0f}});
  b.node("Pad", "pad", {"x", "pads"}, {"p"});
  const auto& x = b.inputs["x"];
  std::vector<float> wl(72), wp(210, 0.0f);
  for (int c = 0; c < 6; ++c)
    for (int j = 0; j < 12; ++j) {
      double s = 0;
      for (int cc = std::max(0, c - 1); cc <= std::min(5, c + 1); ++cc)
        s += double(x[cc * 12 + j]) * x[cc * 12 + j];
      wl[c * 12 + j] = float(x[c * 12 + j] / std::pow(2.0 + 0.3 / 3 * s, 0.75));
      wp[c * 35 + (j / 4 + 1) * 7 + (j % 4) + 2] = x[c * 12 + j];
    }
  auto got = run_graph(b, PlatformConfig(), nullptr, true, 6);
  expect_close(got["l"], wl);
  expect_close(got["p"], wp, 0);
}

}  // namespace
}  // namespace photon::testing

// `photon run` on small hand-built ONNX models: checks made before any simulation (host fallbacks
// without a host reference in functional mode, Reshape element counts, colliding dump files, bad
// --dump-outputs paths, repeated --input) and the note for inputs left at zero.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "../workloads/onnx/model_builder.h"
#include "cli_util.h"

using namespace photon_test;
namespace pt = photon::test;

namespace {

std::string base_args(const std::string& model) {
  return "run --config " + src("configs/default.yaml") + " --workload " + model + " ";
}

/// (y, idx) = MaxPool(x) over x 2x3x4x4 with kernel 2x2, stride 2, and its Indices output: a host
/// fallback without a host reference (y and idx are 2x3x2x2).
std::string pool_with_indices_model(const pt::TempDir& d) {
  auto m = pt::new_model(13);
  pt::add_input(m, "x", {2, 3, 4, 4});
  auto* n = pt::add_node(m, "MaxPool", {"x"}, {"y", "idx"}, "mp");
  pt::set_ints(n, "kernel_shape", {2, 2});
  pt::set_ints(n, "strides", {2, 2});
  pt::add_output(m, "y");
  pt::add_output(m, "idx", onnx::TensorProto::INT64);
  return pt::write_model(d, "pool.onnx", m);
}

/// Two outputs 'a/b' = Relu(x) and 'a_b' = Sigmoid(x), x 2x3.
std::string two_output_model(const pt::TempDir& d) {
  auto m = pt::new_model(13);
  pt::add_input(m, "x", {2, 3});
  pt::add_node(m, "Relu", {"x"}, {"a/b"}, "r");
  pt::add_node(m, "Sigmoid", {"x"}, {"a_b"}, "s");
  pt::add_output(m, "a/b");
  pt::add_output(m, "a_b");
  return pt::write_model(d, "two.onnx", m);
}

/// y = Relu(x), x 2x3, and the input tensor file x = [1..6] / 2 - 2.
std::string relu_model(const pt::TempDir& d) {
  auto m = pt::new_model(13);
  pt::add_input(m, "x", {2, 3});
  pt::add_node(m, "Relu", {"x"}, {"y"}, "r");
  pt::add_output(m, "y");
  return pt::write_model(d, "relu.onnx", m);
}

std::string relu_input(const pt::TempDir& d) {
  onnx::TensorProto t;
  t.set_name("x");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_dims(3);
  for (int i = 1; i <= 6; ++i) t.add_float_data(i / 2.0f - 2.0f);
  return pt::write_bytes(d, "x.pb", t.SerializeAsString());
}

/// Float values of a dumped tensor (raw_data or float_data).
std::vector<float> tensor_values(const std::string& path) {
  onnx::TensorProto t;
  std::ifstream in(path, std::ios::binary);
  if (!t.ParseFromIstream(&in)) ADD_FAILURE() << "cannot parse " << path;
  std::vector<float> v(t.float_data().begin(), t.float_data().end());
  if (v.empty() && !t.raw_data().empty()) {
    v.resize(t.raw_data().size() / 4);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
  }
  return v;
}

}  // namespace

// Functional mode through the simulated vector unit's im2col (dilated taps) and the optical engine.
// Oracle: naive direct convolution (ONNX Conv, docs/Operators.md): y[n,m,oy,ox] = b[m] +
// sum_{c,i,j} x[n, g*Cg + c, oy*sh - pt + i*dh, ox*sw - pl + j*dw] * w[m,c,i,j], taps outside the
// image 0; OH = (H + pt + pb - (dh*(KH-1)+1)) / sh + 1, OW likewise.
TEST(OnnxRunChecks, DilatedGroupedConvMatchesDirectConvolution) {
  const int64_t N = 1, C = 4, H = 9, W = 8, M = 6, G = 2, Cg = C / G, KH = 3, KW = 2;
  const int64_t sh = 2, sw = 1, dh = 2, dw = 1, ptop = 1, pleft = 2, pbot = 0, pright = 1;
  const int64_t OH = (H + ptop + pbot - (dh * (KH - 1) + 1)) / sh + 1,
                OW = (W + pleft + pright - (dw * (KW - 1) + 1)) / sw + 1;
  ASSERT_EQ(OH, 3);
  ASSERT_EQ(OW, 10);
  std::vector<float> x(N * C * H * W), w(M * Cg * KH * KW), b(M);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 7 % 13) - 6) / 4.0f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 5 % 11) - 5) / 8.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.25f * float(i);
  std::vector<float> want(N * M * OH * OW);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        double acc = b[m];
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t i = 0; i < KH; ++i)
            for (int64_t j = 0; j < KW; ++j) {
              const int64_t iy = oy * sh - ptop + i * dh, ix = ox * sw - pleft + j * dw;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              acc +=
                  double(x[((m / (M / G) * Cg + c) * H + iy) * W + ix]) * w[((m * Cg + c) * KH + i) * KW + j];
            }
        want[(m * OH + oy) * OW + ox] = float(acc);
      }
  pt::TempDir d;
  auto model = pt::new_model(13);
  pt::add_input(model, "x", {N, C, H, W});
  pt::add_float_init(model, "w", {M, Cg, KH, KW}, w);
  pt::add_float_init(model, "b", {M}, b);
  auto* conv = pt::add_node(model, "Conv", {"x", "w", "b"}, {"y"}, "conv");
  pt::set_ints(conv, "dilations", {dh, dw});
  pt::set_ints(conv, "strides", {sh, sw});
  pt::set_ints(conv, "pads", {ptop, pleft, pbot, pright});
  pt::set_ints(conv, "kernel_shape", {KH, KW});
  pt::set_int(conv, "group", G);
  pt::add_output(model, "y");
  const std::string path = pt::write_model(d, "conv.onnx", model), out = d.file("out");
  onnx::TensorProto xt;
  xt.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t s : {N, C, H, W}) xt.add_dims(s);
  for (float v : x) xt.add_float_data(v);
  const std::string xpb = pt::write_bytes(d, "x.pb", xt.SerializeAsString());
  CliResult r = photon_test::photon(base_args(path) + "--mode functional --input x=" + xpb +
                                    " --dump-outputs " + out + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<float> got = tensor_values(out + "/y.pb");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i;
}

TEST(OnnxRunChecks, FunctionalRunWithHostFallbackFailsBeforeSimulating) {
  pt::TempDir d;
  const std::string model = pool_with_indices_model(d), rep = d.file("rep.json"), out = d.file("out");
  CliResult r = photon_test::photon(base_args(model) + "--mode functional --report " + rep +
                                    " --dump-outputs " + out + " -q");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("functional mode cannot compute node 'mp' (MaxPool, output 'idx' is not fp32): "
                       "host fallback is timing-only"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(rep));
  EXPECT_FALSE(std::filesystem::exists(out));
  // Timing mode keeps the fallback with its cost.
  CliResult t = photon_test::photon(base_args(model) + "--report " + rep + " -q");
  ASSERT_EQ(t.status, 0) << t.err;
  nlohmann::json j = nlohmann::json::parse(slurp(rep));
  ASSERT_EQ(j["unsupported"].size(), 1u);
  EXPECT_EQ(j["unsupported"][0]["name"], "mp");
  // Cost: kHostFixedNs + kHostNsPerElement * (96 input + 2 x 24 output elements) = 10000 + 144 ns.
  EXPECT_DOUBLE_EQ(j["unsupported"][0]["host_cost_ns"].get<double>(), 10144.0);
}

TEST(OnnxRunChecks, ReshapeWithDifferentElementCountIsAnError) {
  pt::TempDir d;
  auto m = pt::new_model(13);
  pt::add_input(m, "x", {2, 3});
  pt::add_int_init(m, "shape", {2}, {3, 3});
  pt::add_node(m, "Reshape", {"x", "shape"}, {"y"}, "rs");
  pt::add_output(m, "y");
  const std::string model = pt::write_model(d, "reshape.onnx", m);
  CliResult r = photon_test::photon(base_args(model) + "-q");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("node 'rs' (Reshape)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has 9 elements"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has 6"), std::string::npos) << r.err;
}

TEST(OnnxRunChecks, OutputsDumpedToTheSameFileAreAnError) {
  pt::TempDir d;
  const std::string model = two_output_model(d), out = d.file("out"), rep = d.file("rep.json");
  CliResult r = photon_test::photon(base_args(model) + "--mode functional --dump-outputs " + out +
                                    " --report " + rep + " -q");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("outputs 'a/b' and 'a_b' would both be written to " + out + "/a_b.pb"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(rep));
}

TEST(OnnxRunChecks, MissingInputIsNotedAndRepeatedInputIsAnError) {
  pt::TempDir d;
  const std::string model = relu_model(d), rep = d.file("rep.json"), out = d.file("out");
  CliResult r = photon_test::photon(base_args(model) + "--mode functional --report " + rep +
                                    " --dump-outputs " + out + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "note: input 'x' not given: all zeros\n");
  nlohmann::json j = nlohmann::json::parse(slurp(rep));
  const auto notes = j["workload_info"]["functional_notes"];
  EXPECT_NE(std::find(notes.begin(), notes.end(), "input 'x' not given: all zeros"), notes.end())
      << notes.dump();
  // With the input given: no note, and relu of the data.
  const std::string x = relu_input(d);
  CliResult g = photon_test::photon(base_args(model) + "--mode functional --input x=" + x + " --report " +
                                    rep + " --dump-outputs " + out + " -q");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(g.err, "");
  const std::vector<float> v = tensor_values(out + "/y.pb");
  const std::vector<float> want = {0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.0f};  // max(0, i/2 - 2), i = 1..6
  EXPECT_EQ(v, want);
  CliResult twice =
      photon_test::photon(base_args(model) + "--mode functional --input x=" + x + " --input x=" + x + " -q");
  EXPECT_NE(twice.status, 0);
  EXPECT_EQ(count_lines(twice.err), 1) << twice.err;
  EXPECT_NE(twice.err.find("input 'x' is given more than once"), std::string::npos) << twice.err;
}

TEST(OnnxRunChecks, DumpDirectoryUnderARegularFileIsAClearError) {
  pt::TempDir d;
  const std::string model = relu_model(d), afile = d.file("afile");
  write_text(afile, "not a directory\n");
  CliResult r =
      photon_test::photon(base_args(model) + "--mode functional --dump-outputs " + afile + "/sub -q");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.find("filesystem error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--dump-outputs " + afile + "/sub: '" + afile + "' exists and is not a directory"),
            std::string::npos)
      << r.err;
}

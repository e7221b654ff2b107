// `photon run --mode functional` on a model whose nodes fall back to the host (ConvTranspose,
// Gather with a graph-input integer index, Resize, dilated pooling): the host computes them between the
// device's commands, and the outputs match PyTorch / NumPy (tests/workloads/fallback/host_op_cases.json,
// written by make_host_op_cases.py). Timing mode still states each fallback's host cost.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../workloads/onnx/model_builder.h"
#include "cli_util.h"
#include "workloads/onnx/tensor_io.h"

using namespace photon_test;
namespace pt = photon::test;
using TP = onnx::TensorProto;

namespace {

nlohmann::json host_case(const std::string& name) {
  std::ifstream in(std::string(PHOTON_SOURCE_DIR) + "/tests/workloads/fallback/host_op_cases.json");
  const nlohmann::json all = nlohmann::json::parse(in);
  for (const auto& c : all["cases"])
    if (c["name"] == name) return c;
  ADD_FAILURE() << "no case " << name;
  return {};
}

std::vector<int64_t> shape_of(const nlohmann::json& t) { return t["shape"].get<std::vector<int64_t>>(); }
std::vector<float> data_of(const nlohmann::json& t) { return t["data"].get<std::vector<float>>(); }

void add_init(onnx::ModelProto& m, const std::string& name, const nlohmann::json& t) {
  pt::add_float_init(m, name, shape_of(t), data_of(t));
}

std::string write_pb(const pt::TempDir& d, const std::string& file, const std::string& name,
                     const std::vector<int64_t>& shape, const std::vector<float>& v, bool int64) {
  TP t;
  t.set_name(name);
  t.set_data_type(int64 ? TP::INT64 : TP::FLOAT);
  for (int64_t s : shape) t.add_dims(s);
  for (float x : v) int64 ? t.add_int64_data(int64_t(x)) : t.add_float_data(x);
  return pt::write_bytes(d, file, t.SerializeAsString());
}

std::vector<float> read_pb(const std::string& path) {
  return photon::onnx_frontend::read_tensor_pb(path).data;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 2e-5 * (1 + std::fabs(want[k]))) << k;
}

TEST(HostFallbackRun, FunctionalModeComputesFallbackNodesOnTheHost) {
  const auto ct = host_case("convtranspose2d_stride2_pad1_outpad1_bias");
  const auto ga = host_case("gather_axis0_negative");
  const auto rs = host_case("resize_linear_half_pixel");
  pt::TempDir d;
  // y1 = Relu(ConvTranspose(x)) (the Relu on the device reads the host's result),
  // y2 = Gather(table, idx) with idx an int64 graph input, y3 = Resize(x2) to the case's size.
  auto m = pt::new_model(13);
  pt::add_input(m, "x", shape_of(ct["inputs"][0]));
  pt::add_input(m, "idx", shape_of(ga["inputs"][1]), TP::INT64);
  pt::add_input(m, "x2", shape_of(rs["inputs"][0]));
  add_init(m, "w", ct["inputs"][1]);
  add_init(m, "b", ct["inputs"][2]);
  add_init(m, "table", ga["inputs"][0]);
  pt::add_int_init(m, "sizes", {4}, shape_of(rs["output"]));
  auto* c = pt::add_node(m, "ConvTranspose", {"x", "w", "b"}, {"ct"}, "deconv");
  pt::set_ints(c, "strides", {2, 2});
  pt::set_ints(c, "pads", {1, 1, 1, 1});
  pt::set_ints(c, "output_padding", {1, 1});
  pt::add_node(m, "Relu", {"ct"}, {"y1"}, "relu");
  pt::add_node(m, "Gather", {"table", "idx"}, {"y2"}, "gather");
  auto* r = pt::add_node(m, "Resize", {"x2", "", "", "sizes"}, {"y3"}, "resize");
  pt::set_string(r, "mode", "linear");
  for (const char* o : {"y1", "y2", "y3"}) pt::add_output(m, o);
  const std::string model = pt::write_model(d, "fallbacks.onnx", m);
  const std::string x = write_pb(d, "x.pb", "x", shape_of(ct["inputs"][0]), data_of(ct["inputs"][0]), false);
  const std::string idx =
      write_pb(d, "idx.pb", "idx", shape_of(ga["inputs"][1]), data_of(ga["inputs"][1]), true);
  const std::string x2 =
      write_pb(d, "x2.pb", "x2", shape_of(rs["inputs"][0]), data_of(rs["inputs"][0]), false);
  const std::string out = d.file("out"), rep = d.file("rep.json");
  CliResult res =
      photon_test::photon("run --config " + src("configs/default.yaml") + " --workload " + model +
                          " --mode functional --input x=" + x + " --input idx=" + idx + " --input x2=" + x2 +
                          " --dump-outputs " + out + " --report " + rep + " -q");
  ASSERT_EQ(res.status, 0) << res.err;
  std::vector<float> want1 = data_of(ct["output"]);
  for (float& v : want1) v = std::max(v, 0.0f);
  expect_close(read_pb(out + "/y1.pb"), want1);
  expect_close(read_pb(out + "/y2.pb"), data_of(ga["output"]));
  expect_close(read_pb(out + "/y3.pb"), data_of(rs["output"]));
  const auto j = nlohmann::json::parse(slurp(rep));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["workload_info"]["coverage"]["fallback"], 3);
  EXPECT_GT(j["workload_info"]["host_fallback_ns"].get<double>(), 3 * 10000.0);
  // Timing mode: the same fallbacks, costed and not computed.
  CliResult t = photon_test::photon("run --config " + src("configs/default.yaml") + " --workload " + model +
                                    " --report " + rep + " -q");
  ASSERT_EQ(t.status, 0) << t.err;
  const auto jt = nlohmann::json::parse(slurp(rep));
  EXPECT_EQ(jt["workload_info"]["coverage"]["fallback"], 3);
  EXPECT_EQ(jt["workload_info"]["host_fallback_ns"], j["workload_info"]["host_fallback_ns"]);
}

TEST(HostFallbackRun, DilatedPoolingAndCubicResizeAreComputedOnTheHost) {
  // y1 = MaxPool(x) with dilations, pads and ceil_mode (the vector unit pools without dilation),
  // y2 = AveragePool(x2) in 3-D (the vector unit pools in 2-D), y3 = Resize(x3) cubic: all host
  // fallbacks. (Dilated AveragePool needs opset 19; host_ops_test checks it.)
  const auto mp = host_case("maxpool2d_dilation_pad_ceil");
  const auto ap = host_case("averagepool3d_pad_count_include_pad");
  const auto rc = host_case("resize_cubic_half_pixel");
  pt::TempDir d;
  auto m = pt::new_model(17);
  pt::add_input(m, "x", shape_of(mp["inputs"][0]));
  pt::add_input(m, "x2", shape_of(ap["inputs"][0]));
  pt::add_input(m, "x3", shape_of(rc["inputs"][0]));
  pt::add_int_init(m, "sizes", {4}, shape_of(rc["output"]));
  auto* p = pt::add_node(m, "MaxPool", {"x"}, {"y1"}, "maxpool");
  for (const char* k : {"kernel_shape", "strides", "pads", "dilations"})
    pt::set_ints(p, k, mp["attrs"][k].get<std::vector<int64_t>>());
  pt::set_int(p, "ceil_mode", 1);
  auto* a = pt::add_node(m, "AveragePool", {"x2"}, {"y2"}, "avgpool");
  for (const char* k : {"kernel_shape", "strides", "pads"})
    pt::set_ints(a, k, ap["attrs"][k].get<std::vector<int64_t>>());
  pt::set_int(a, "count_include_pad", 1);
  auto* r = pt::add_node(m, "Resize", {"x3", "", "", "sizes"}, {"y3"}, "resize");
  pt::set_string(r, "mode", "cubic");
  for (const char* o : {"y1", "y2", "y3"}) pt::add_output(m, o);
  const std::string model = pt::write_model(d, "pools.onnx", m);
  std::string inputs;
  for (const auto& [name, c] : {std::pair{"x", mp}, std::pair{"x2", ap}, std::pair{"x3", rc}})
    inputs += std::string(" --input ") + name + "=" +
              write_pb(d, std::string(name) + ".pb", name, shape_of(c["inputs"][0]), data_of(c["inputs"][0]),
                       false);
  const std::string out = d.file("out"), rep = d.file("rep.json");
  CliResult res = photon_test::photon("run --config " + src("configs/default.yaml") + " --workload " + model +
                                      " --mode functional" + inputs + " --dump-outputs " + out +
                                      " --report " + rep + " -q");
  ASSERT_EQ(res.status, 0) << res.err;
  expect_close(read_pb(out + "/y1.pb"), data_of(mp["output"]));
  expect_close(read_pb(out + "/y2.pb"), data_of(ap["output"]));
  expect_close(read_pb(out + "/y3.pb"), data_of(rc["output"]));
  const auto j = nlohmann::json::parse(slurp(rep));
  EXPECT_EQ(j["workload_info"]["coverage"]["fallback"], 3);
}

TEST(HostFallbackRun, AFunctionalCompileWithHostNodesIsRefusedBeforeWriting) {
  // A .pcs cannot carry the host's computation: on its own it would wait for host_done forever.
  const auto ct = host_case("convtranspose1d_stride3");
  pt::TempDir d;
  auto m = pt::new_model(13);
  pt::add_input(m, "x", shape_of(ct["inputs"][0]));
  add_init(m, "w", ct["inputs"][1]);
  auto* c = pt::add_node(m, "ConvTranspose", {"x", "w"}, {"y"}, "deconv");
  pt::set_ints(c, "strides", {3});
  pt::add_output(m, "y");
  const std::string model = pt::write_model(d, "deconv.onnx", m), pcs = d.file("deconv.pcs");
  const std::string cmd = "compile --config " + src("configs/default.yaml") + " " + model + " -o " + pcs;
  const CliResult f = photon_test::photon(cmd + " --set sim.mode=functional");
  EXPECT_EQ(f.status, 1);
  EXPECT_EQ(count_lines(f.err), 1) << f.err;
  EXPECT_NE(f.err.find(
                "node 'deconv' (ConvTranspose) is computed by the host in functional mode, which a .pcs file "
                "cannot carry (1 such node(s))"),
            std::string::npos)
      << f.err;
  EXPECT_FALSE(std::filesystem::exists(pcs));
  // In timing mode the fallback is a cost, and the .pcs runs on its own.
  const CliResult t = photon_test::photon(cmd);
  ASSERT_EQ(t.status, 0) << t.err;
  const CliResult r =
      photon_test::photon("run --config " + src("configs/default.yaml") + " --workload " + pcs + " -q");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(HostFallbackRun, ConvertedOldModelReportsItsOpset) {
  // Opset 7: Upsample (converted to Resize, a host fallback) then Relu.
  pt::TempDir d;
  auto m = pt::new_model(7, 3);
  pt::add_input(m, "x", {1, 1, 2, 2});
  auto* up = pt::add_node(m, "Upsample", {"x"}, {"u"}, "up");
  auto* s = up->add_attribute();
  s->set_name("scales");
  s->set_type(onnx::AttributeProto::FLOATS);
  for (float v : {1.f, 1.f, 2.f, 2.f}) s->add_floats(v);
  pt::add_node(m, "Relu", {"u"}, {"y"}, "relu");
  pt::add_output(m, "y");
  const std::string model = pt::write_model(d, "old.onnx", m);
  const std::string x = write_pb(d, "x.pb", "x", {1, 1, 2, 2}, {1, -2, 3, -4}, false);
  const std::string out = d.file("out"), rep = d.file("rep.json");
  CliResult res = photon_test::photon("run --config " + src("configs/default.yaml") + " --workload " + model +
                                      " --mode functional --input x=" + x + " --dump-outputs " + out +
                                      " --report " + rep + " -q");
  ASSERT_EQ(res.status, 0) << res.err;
  const auto j = nlohmann::json::parse(slurp(rep));
  EXPECT_EQ(j["workload_info"]["onnx_opset_converted_from"], 7);
  EXPECT_EQ(j["workload_info"]["opset"], 13);
  // Nearest upsampling by 2 (Upsample-7 semantics: y[i][j] = x[i/2][j/2]), then Relu.
  expect_close(read_pb(out + "/y.pb"), {1, 1, 0, 0, 1, 1, 0, 0, 3, 3, 0, 0, 3, 3, 0, 0});
}

}  // namespace

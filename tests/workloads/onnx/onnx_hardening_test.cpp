// load_onnx on models written to probe the loader's contract (issue: every input reader survives
// malformed input): old opsets converted by the ONNX version converter, payloads that disagree
// with their dims, nodes missing what their schema requires, sizes that overflow, broadcasting
// that does not hold, and external data. Each bad model ends in one photon::Error naming the
// file and the node or tensor; none reaches the ONNX library unchecked.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "tests/workloads/onnx/model_builder.h"
#include "workloads/onnx/onnx_loader.h"

namespace photon::onnx_frontend {
namespace {

using namespace photon::test;
using TP = onnx::TensorProto;
namespace fs = std::filesystem;

std::string load_error(const std::string& path,
                       const std::map<std::string, std::vector<int64_t>>& shapes = {}) {
  try {
    load_onnx(path, shapes);
  } catch (const Error& e) { return e.what(); }
  ADD_FAILURE() << "no Error for " << path;
  return "";
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

onnx::NodeProto* attr_tensor(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  return n;
}

// ---- opsets below 9: converted by the ONNX version converter ----

TEST(OnnxHardening, Opset1ModelIsConvertedAndSaysSo) {
  // Reshape-1 takes its shape as an attribute; the converter turns it into Reshape-5's input.
  onnx::ModelProto m = new_model(1, 3);
  add_input(m, "x", {2, 3});
  add_node(m, "Relu", {"x"}, {"r"}, "relu");
  set_ints(add_node(m, "Reshape", {"r"}, {"y"}, "reshape"), "shape", {3, 2});
  add_output(m, "y");
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "old.onnx", m));
  EXPECT_EQ(g.opset_converted_from, 1);
  EXPECT_EQ(g.opset, 13);
  EXPECT_EQ(g.tensor("y").shape, (std::vector<int64_t>{3, 2}));
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].op_type, "Reshape");
  EXPECT_EQ(g.nodes[1].inputs.size(), 2u);  // the shape is an input now (a folded constant)
}

TEST(OnnxHardening, Opset7UpsampleBecomesResize) {
  onnx::ModelProto m = new_model(7, 3);
  add_input(m, "x", {1, 1, 2, 3});
  auto* up = add_node(m, "Upsample", {"x"}, {"y"}, "up");
  set_floats(up, "scales", {1, 1, 2, 2});
  set_string(up, "mode", "nearest");
  add_output(m, "y");
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "up7.onnx", m));
  EXPECT_EQ(g.opset_converted_from, 7);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "Resize");
  EXPECT_EQ(g.tensor("y").shape, (std::vector<int64_t>{1, 1, 4, 6}));
}

TEST(OnnxHardening, ImpossibleConversionNamesTheOpAndOpset) {
  // Pad-1 (attribute `paddings`) has no adapter to Pad-2 in the ONNX 1.12 converter.
  onnx::ModelProto m = new_model(1, 3);
  add_input(m, "x", {1, 1, 2, 2});
  set_ints(add_node(m, "Pad", {"x"}, {"y"}, "pad"), "paddings", {0, 0, 1, 1, 0, 0, 1, 1});
  add_output(m, "y");
  TempDir dir;
  const std::string p = write_model(dir, "pad1.onnx", m);
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "opset 1 cannot be converted to opset 13");
  EXPECT_HAS(e, "(op Pad)");
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

// ---- malformed payloads and nodes, caught before the ONNX library sees them ----

TEST(OnnxHardening, ConstantRawDataDisagreeingWithDimsIsAnError) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {4});
  auto* c = attr_tensor(add_node(m, "Constant", {}, {"c"}, "const"), "value");
  auto* t = c->mutable_attribute(0)->mutable_t();
  t->set_data_type(TP::FLOAT);
  t->add_dims(1000000);
  t->set_raw_data(std::string(8, '\0'));  // 2 floats for a million
  add_node(m, "Add", {"x", "c"}, {"y"}, "add");
  add_output(m, "y");
  TempDir dir;
  const std::string e = load_error(write_model(dir, "const.onnx", m));
  EXPECT_HAS(e, "node 'const' (Constant) attribute 'value'");
  EXPECT_HAS(e, "raw_data holds 8 bytes, dims 1000000 x FLOAT need 4000000");
}

TEST(OnnxHardening, TruncatedInitializerAndWrongTypedCountAreErrors) {
  TempDir dir;
  for (int variant = 0; variant < 2; ++variant) {
    onnx::ModelProto m = new_model(13);
    add_input(m, "x", {2, 3});
    auto* w = m.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(TP::FLOAT);
    w->add_dims(2);
    w->add_dims(3);
    if (variant == 0)
      w->set_raw_data(std::string(23, '\0'));  // 6 floats need 24 bytes
    else
      for (int k = 0; k < 5; ++k) w->add_float_data(1.0f);
    add_node(m, "Add", {"x", "w"}, {"y"}, "add");
    add_output(m, "y");
    const std::string e = load_error(write_model(dir, "trunc.onnx", m));
    EXPECT_HAS(e, "tensor 'w'");
    EXPECT_HAS(e, variant == 0 ? "raw_data holds 23 bytes" : "float_data holds 5 values, dims say 6");
  }
}

TEST(OnnxHardening, HugeDimsWithTinyPayloadFailBeforeAnyAllocation) {
  // 2^31 x 2^31 floats announced, 4 bytes given: the check compares sizes without allocating.
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {1});
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TP::FLOAT);
  w->add_dims(int64_t{1} << 31);
  w->add_dims(int64_t{1} << 31);
  w->set_raw_data(std::string(4, '\0'));
  add_node(m, "Add", {"x", "w"}, {"y"}, "add");
  add_output(m, "y");
  TempDir dir;
  EXPECT_HAS(load_error(write_model(dir, "huge.onnx", m)), "tensor 'w'");
  // dims whose product overflows 2^62
  w->clear_dims();
  for (int k = 0; k < 3; ++k) w->add_dims(int64_t{1} << 31);
  EXPECT_HAS(load_error(write_model(dir, "huge2.onnx", m)), "size overflow");
}

TEST(OnnxHardening, ScanWithoutBodyIsAnError) {
  onnx::ModelProto m = new_model(11);
  add_input(m, "x", {3, 2});
  set_int(add_node(m, "Scan", {"x"}, {"y"}, "scan"), "num_scan_inputs", 1);
  add_output(m, "y");
  TempDir dir;
  const std::string e = load_error(write_model(dir, "scan.onnx", m));
  EXPECT_HAS(e, "node 'scan' (Scan)");
  EXPECT_HAS(e, "required attribute 'body' of Scan-11 is missing");
}

TEST(OnnxHardening, NodeWithFewerInputsThanItsSchemaIsAnError) {
  onnx::ModelProto m = new_model(15);
  add_input(m, "x", {1, 2, 3, 3});
  add_node(m, "BatchNormalization", {"x"}, {"y"}, "bn");
  add_output(m, "y");
  TempDir dir;
  const std::string e = load_error(write_model(dir, "bn.onnx", m));
  EXPECT_HAS(e, "node 'bn' (BatchNormalization): 1 input, BatchNormalization-15 requires at least 5");
  // An empty name for a required input is refused too.
  onnx::ModelProto m2 = new_model(13);
  add_input(m2, "x", {2, 2});
  add_node(m2, "Add", {"x", ""}, {"y"}, "add");
  add_output(m2, "y");
  EXPECT_HAS(load_error(write_model(dir, "add.onnx", m2)), "input 1 ('B') of Add-13 is required but empty");
}

TEST(OnnxHardening, AttributeOfTheWrongTypeIsAnError) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {2, 3});
  set_int(add_node(m, "Transpose", {"x"}, {"y"}, "t"), "perm", 1);  // perm is INTS
  add_output(m, "y");
  TempDir dir;
  EXPECT_HAS(load_error(write_model(dir, "t.onnx", m)),
             "attribute 'perm' is INT, Transpose-13 declares INTS");
}

// ---- overflow-checked sizes ----

TEST(OnnxHardening, ExpandToTwoToThe62IsAnErrorNamingTheNode) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {1});
  add_int_init(m, "shape", {1}, {int64_t{1} << 62});
  add_node(m, "Expand", {"x", "shape"}, {"y"}, "expand");
  add_output(m, "y");
  TempDir dir;
  const std::string e = load_error(write_model(dir, "expand.onnx", m));
  EXPECT_HAS(e, "node 'expand' (Expand)");
  EXPECT_HAS(e, "2^40 or more elements");
}

TEST(OnnxHardening, ConvWithAbsurdDilationIsAnError) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {1, 1, 8, 8});
  add_float_init(m, "w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  set_ints(add_node(m, "Conv", {"x", "w"}, {"y"}, "conv"), "dilations", {int64_t{1} << 61, 1});
  add_output(m, "y");
  TempDir dir;
  const std::string e = load_error(write_model(dir, "dil.onnx", m));
  EXPECT_HAS(e, "node 'conv' (Conv)");
  EXPECT_HAS(e, "dilations [2305843009213693952,1] has an entry above 2^31 - 1");
}

// ---- broadcasting (ONNX docs/Broadcasting.md) ----

TEST(OnnxHardening, GemmCThatDoesNotBroadcastIsAnError) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "a", {2, 3});
  add_float_init(m, "b", {3, 4}, std::vector<float>(12, 1.0f));
  add_float_init(m, "c", {3}, {1, 2, 3});  // (M, N) = (2, 4): 3 does not broadcast
  add_node(m, "Gemm", {"a", "b", "c"}, {"y"}, "gemm");
  add_output(m, "y");
  TempDir dir;
  const std::string e = load_error(write_model(dir, "gemm.onnx", m));
  EXPECT_HAS(e, "node 'gemm' (Gemm): C 'c' of shape 3 does not broadcast to (M, N) = 2x4");
  // C of shape (2, 1) broadcasts.
  m.mutable_graph()->mutable_initializer(1)->clear_dims();
  m.mutable_graph()->mutable_initializer(1)->add_dims(2);
  m.mutable_graph()->mutable_initializer(1)->add_dims(1);
  m.mutable_graph()->mutable_initializer(1)->mutable_float_data()->RemoveLast();
  EXPECT_EQ(load_onnx(write_model(dir, "gemm_ok.onnx", m)).tensor("y").shape, (std::vector<int64_t>{2, 4}));
}

TEST(OnnxHardening, PReluSlopeMustBroadcastToX) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {1, 3, 2, 2});
  add_float_init(m, "s", {3, 1, 2}, std::vector<float>(6, 0.1f));  // right-aligned: 3 vs 3, 1 vs 2 ok, 2 vs 2
  add_node(m, "PRelu", {"x", "s"}, {"y"}, "prelu");
  add_output(m, "y");
  TempDir dir;
  EXPECT_NO_THROW(load_onnx(write_model(dir, "prelu_ok.onnx", m)));
  m.mutable_graph()->mutable_initializer(0)->set_dims(0, 2);  // 2x1x2 against 3x2x2
  m.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Truncate(4);
  EXPECT_HAS(load_error(write_model(dir, "prelu.onnx", m)),
             "slope 's' of shape 2x1x2 does not broadcast to X");
}

// ---- external data ----

class ExternalData : public ::testing::Test {
 protected:
  // Model w[2,3] (external) + x -> y, the data at `location` from `offset`.
  std::string model(const std::string& location, int64_t offset, int64_t length = -1) {
    onnx::ModelProto m = new_model(13);
    add_input(m, "x", {2, 3});
    auto* w = m.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(TP::FLOAT);
    w->add_dims(2);
    w->add_dims(3);
    w->set_data_location(TP::EXTERNAL);
    auto add = [&](const std::string& k, const std::string& v) {
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    if (length >= 0) add("length", std::to_string(length));
    add_node(m, "Add", {"x", "w"}, {"y"}, "add");
    add_output(m, "y");
    fs::create_directories(dir.file("models"));
    return write_model(dir, "models/m.onnx", m);
  }
  // weights.bin: 16 bytes of padding, then 1..6 as fp32.
  void write_weights(const std::string& rel) {
    std::string bytes(16, 'x');
    for (int k = 1; k <= 6; ++k) {
      const float v = float(k);
      bytes.append(reinterpret_cast<const char*>(&v), 4);
    }
    fs::create_directories(fs::path(dir.file(rel)).parent_path());
    std::ofstream(dir.file(rel), std::ios::binary) << bytes;
  }
  TempDir dir;
};

TEST_F(ExternalData, ReadRelativeToTheModelWithOffsetAndLength) {
  write_weights("models/data/weights.bin");
  const Graph g = load_onnx(model("data/weights.bin", 16, 24));
  const TensorInfo& w = g.tensor("w");
  ASSERT_TRUE(w.is_constant);
  EXPECT_EQ(w.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Without a length: the rest of the file.
  EXPECT_EQ(load_onnx(model("data/weights.bin", 16)).tensor("w").data,
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(ExternalData, MissingFileNamesTheResolvedPath) {
  const std::string e = load_error(model("data/absent.bin", 0));
  EXPECT_HAS(e, "tensor 'w'");
  EXPECT_HAS(e, (fs::weakly_canonical(dir.file("models")) / "data/absent.bin").string() + " does not exist");
}

TEST_F(ExternalData, AbsoluteAndEscapingLocationsAreRefused) {
  write_weights("weights.bin");  // outside models/
  EXPECT_HAS(load_error(model(dir.file("weights.bin"), 16)), "is absolute");
  EXPECT_HAS(load_error(model("../weights.bin", 16)), "leaves the model's directory ('..')");
  EXPECT_HAS(load_error(model("sub/../../weights.bin", 16)), "leaves the model's directory ('..')");
  // A symbolic link inside the directory that points outside it.
  fs::create_directories(dir.file("models"));
  fs::create_symlink(dir.file("weights.bin"), dir.file("models/link.bin"));
  EXPECT_HAS(load_error(model("link.bin", 16)), "outside the model's directory");
}

TEST_F(ExternalData, RangePastTheFileOrWrongLengthIsAnError) {
  write_weights("models/w.bin");
  EXPECT_HAS(load_error(model("w.bin", 16, 400)), "reaches past the end");
  EXPECT_HAS(load_error(model("w.bin", 100)), "past the end");
  EXPECT_HAS(load_error(model("w.bin", 20)), "external data holds 20 bytes");
  EXPECT_HAS(load_error(model("w.bin", -5)), "is not a decimal byte count");
}

}  // namespace
}  // namespace photon::onnx_frontend

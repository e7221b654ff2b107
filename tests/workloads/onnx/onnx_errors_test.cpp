// load_onnx on bad inputs: each error is a photon::Error whose message names the file and the
// offending element (node, tensor, opset, input dimension).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "platform/error.h"
#include "tests/workloads/onnx/model_builder.h"
#include "workloads/onnx/onnx_loader.h"

namespace photon {
namespace {

using namespace photon::test;
using TP = onnx::TensorProto;

const std::string kDir = std::string(PHOTON_SHARED_DIR) + "/inputs/onnx/";

// Runs load_onnx and returns the Error's what(); fails the test if no Error is thrown.
std::string load_error(const std::string& path,
                       const std::map<std::string, std::vector<int64_t>>& shapes = {}) {
  try {
    load_onnx(path, shapes);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no Error for " << path;
  return "";
}

#define EXPECT_HAS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

// x[2,3] -> Relu -> y: the smallest valid model, edited by the tests below.
onnx::ModelProto relu_model(int64_t opset = 13) {
  onnx::ModelProto m = new_model(opset);
  add_input(m, "x", {2, 3});
  add_node(m, "Relu", {"x"}, {"y"}, "relu1");
  add_output(m, "y");
  return m;
}

TEST(OnnxErrors, ValidTinyModelLoads) {
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "ok.onnx", relu_model()));
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].name, "relu1");
  EXPECT_EQ(g.tensor("y").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(g.outputs, std::vector<std::string>{"y"});
}

TEST(OnnxErrors, TextFile) {
  TempDir dir;
  const std::string p = write_bytes(dir, "notes.onnx", "This is a text file, not a model.\nline 2\n");
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "not an ONNX model");
}

TEST(OnnxErrors, MissingAndEmptyFile) {
  TempDir dir;
  EXPECT_HAS(load_error(dir.file("absent.onnx")), "cannot open file");
  EXPECT_HAS(load_error(write_bytes(dir, "empty.onnx", "")), "empty file");
}

TEST(OnnxErrors, TruncatedRealModel) {
  std::ifstream in(kDir + "resnet18.onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  ASSERT_GT(bytes.size(), 1000u);
  TempDir dir;
  for (size_t cut : {bytes.size() / 2, bytes.size() - 7}) {
    const std::string p = write_bytes(dir, "resnet18_cut.onnx", bytes.substr(0, cut));
    const std::string e = load_error(p);
    EXPECT_HAS(e, p);
    EXPECT_HAS(e, "not an ONNX model");
  }
}

TEST(OnnxErrors, EmptyGraph) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {2});
  TempDir dir;
  const std::string p = write_model(dir, "empty_graph.onnx", m);
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "empty graph");
}

TEST(OnnxErrors, OpsetOutOfRange) {
  TempDir dir;
  for (int64_t opset : {8, 18}) {
    const std::string p = write_model(dir, "opset.onnx", relu_model(opset));
    const std::string e = load_error(p);
    EXPECT_HAS(e, p);
    EXPECT_HAS(e, "opset " + std::to_string(opset) + " is not supported");
  }
  for (int64_t opset : {9, 17}) {
    EXPECT_NO_THROW(load_onnx(write_model(dir, "opset_ok.onnx", relu_model(opset)))) << opset;
  }
}

TEST(OnnxErrors, UndefinedInputTensor) {
  onnx::ModelProto m = relu_model();
  add_node(m, "Add", {"y", "nowhere"}, {"z"}, "add_bad");
  TempDir dir;
  const std::string p = write_model(dir, "missing.onnx", m);
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "node 'add_bad' (Add)");
  EXPECT_HAS(e, "'nowhere'");
}

TEST(OnnxErrors, UndefinedGraphOutputAndCycle) {
  TempDir dir;
  onnx::ModelProto m = relu_model();
  add_output(m, "ghost");
  EXPECT_HAS(load_error(write_model(dir, "ghost.onnx", m)), "graph output 'ghost'");

  onnx::ModelProto c = new_model(13);
  add_input(c, "x", {2});
  add_node(c, "Add", {"x", "b"}, {"a"}, "n_a");
  add_node(c, "Relu", {"a"}, {"b"}, "n_b");
  add_output(c, "b");
  EXPECT_HAS(load_error(write_model(dir, "cycle.onnx", c)), "cycle");
}

TEST(OnnxErrors, SymbolicDimNeedsShape) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {-1, 3});
  add_node(m, "Relu", {"x"}, {"y"});
  add_output(m, "y");
  TempDir dir;
  const std::string p = write_model(dir, "sym.onnx", m);
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "input 'x' has unknown dimension 0 ('batch'): pass --shape x=...");

  const Graph g = load_onnx(p, {{"x", {5, 3}}});
  EXPECT_EQ(g.tensor("x").shape, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(g.tensor("y").shape, (std::vector<int64_t>{5, 3}));

  EXPECT_HAS(load_error(p, {{"x", {5, 3, 1}}}), "has rank 3, the model's input has rank 2");
  EXPECT_HAS(load_error(p, {{"x", {5, 3}}, {"q", {1}}}), "--shape given for 'q', which is not a graph input");
}

TEST(OnnxErrors, ShapeOverridesStaticInput) {
  // --shape also overrides a static input (e.g. another batch size); shapes then follow.
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "ok.onnx", relu_model()), {{"x", {7, 3}}});
  EXPECT_EQ(g.tensor("y").shape, (std::vector<int64_t>{7, 3}));
}

TEST(OnnxErrors, ShapeOverrideOnRealModel) {
  // resnet18 exported with batch 1 (output declared 1x1000), loaded with batch 2.
  const Graph g = load_onnx(kDir + "resnet18.onnx", {{"input", {2, 3, 224, 224}}});
  EXPECT_EQ(g.tensor(g.outputs.at(0)).shape, (std::vector<int64_t>{2, 1000}));
}

TEST(OnnxErrors, UnsupportedInitializerType) {
  onnx::ModelProto m = relu_model();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("labels");
  t->set_data_type(TP::STRING);
  t->add_dims(1);
  t->add_string_data("cat");
  add_node(m, "Identity", {"labels"}, {"labels_out"});
  TempDir dir;
  const std::string p = write_model(dir, "strings.onnx", m);
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "tensor 'labels'");
  EXPECT_HAS(e, "STRING");
}

TEST(OnnxErrors, InitializerPayloadMismatch) {
  onnx::ModelProto m = relu_model();
  add_float_init(m, "w", {2, 3}, {1, 2, 3});  // 3 values for 6 elements
  add_node(m, "Add", {"y", "w"}, {"z"});
  TempDir dir;
  const std::string e = load_error(write_model(dir, "short.onnx", m));
  EXPECT_HAS(e, "tensor 'w'");
  EXPECT_HAS(e, "float_data holds 3 values, dims say 6");
}

TEST(OnnxErrors, ShapeInferenceFailureNamesNode) {
  // MatMul of 2x3 by 4x5: inner dimensions differ.
  onnx::ModelProto m = new_model(13);
  add_input(m, "a", {2, 3});
  add_input(m, "b", {4, 5});
  add_node(m, "MatMul", {"a", "b"}, {"c"}, "mm_bad");
  add_output(m, "c");
  TempDir dir;
  const std::string p = write_model(dir, "mm.onnx", m);
  const std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "shape inference failed");
  EXPECT_HAS(e, "mm_bad");
}

TEST(OnnxErrors, FoldErrorNamesNode) {
  // Gather of row 5 from a 2x3 constant, found while folding (ONNX shape inference does not
  // check index values).
  onnx::ModelProto m = relu_model();
  add_float_init(m, "w", {2, 3}, {1, 2, 3, 4, 5, 6});
  add_const_ints(m, "idx", {5});
  add_node(m, "Gather", {"w", "idx"}, {"w2"}, "gather_bad");
  add_node(m, "Add", {"y", "w2"}, {"z"});
  TempDir dir;
  const std::string e = load_error(write_model(dir, "fold.onnx", m));
  EXPECT_HAS(e, "node 'gather_bad' (Gather)");
  EXPECT_HAS(e, "index 5 out of range for dimension 2");
}

TEST(OnnxErrors, UnknownOpIsKeptWhenItsShapeIsDeclared) {
  // A custom-domain op has no ONNX shape inference; the shape declared in value_info is used and
  // the node is handed on (the lowering decides whether it is supported).
  onnx::ModelProto m = relu_model();
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  auto* n = add_node(m, "FancyOp", {"y"}, {"f"}, "fancy");
  n->set_domain("com.example");
  add_node(m, "Relu", {"f"}, {"g"}, "after");
  add_output(m, "g");
  TempDir dir;
  const std::string undeclared = write_model(dir, "custom.onnx", m);
  const std::string e = load_error(undeclared);
  EXPECT_HAS(e, "tensor 'f' has no static shape");
  EXPECT_HAS(e, "node 'fancy' (FancyOp)");

  add_value(m.mutable_graph()->mutable_value_info(), "f", {2, 3});
  const Graph g = load_onnx(write_model(dir, "custom_declared.onnx", m));
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[1].op_type, "FancyOp");
  EXPECT_EQ(g.tensor("g").shape, (std::vector<int64_t>{2, 3}));
}

TEST(OnnxErrors, UnnamedNodesGetOpTypeAndFileIndex) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {4});
  add_node(m, "Relu", {"x"}, {"a"});
  add_node(m, "Sigmoid", {"a"}, {"b"}, "named");
  add_node(m, "Tanh", {"b"}, {"c"});
  add_output(m, "c");
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "names.onnx", m));
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "Relu_0");
  EXPECT_EQ(g.nodes[1].name, "named");
  EXPECT_EQ(g.nodes[2].name, "Tanh_2");
}

TEST(OnnxErrors, NodesAreTopologicallySorted) {
  // File order: Tanh(b) before Relu(x)->a before Sigmoid(a)->b.
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {4});
  add_node(m, "Tanh", {"b"}, {"c"}, "third");
  add_node(m, "Relu", {"x"}, {"a"}, "first");
  add_node(m, "Sigmoid", {"a"}, {"b"}, "second");
  add_output(m, "c");
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "order.onnx", m));
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");
  EXPECT_EQ(g.nodes[2].name, "third");
}

}  // namespace
}  // namespace photon

// load_onnx on bad inputs: each error is a photon::Error whose message names the file and the
// offending element (node, tensor, opset, input dimension).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "tests/workloads/onnx/model_builder.h"
#include "workloads/onnx/onnx_loader.h"

namespace photon::onnx_frontend {
namespace {

using namespace photon::test;
using TP = onnx::TensorProto;

const std::string kDir = std::string(PHOTON_SHARED_DIR) + "/inputs/onnx/";

// Runs load_onnx and returns the Error's what(); fails the test if no Error is thrown.
std::string load_error(const std::string& path,
                       const std::map<std::string, std::vector<int64_t>>& shapes = {}) {
  try {
    load_onnx(path, shapes);
  } catch (const Error& e) { return e.what(); }
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
  // An unknown name is reported as such, before the missing dimension of x.
  EXPECT_HAS(load_error(p, {{"nope", {4, 16}}}),
             "--shape nope=4x16: no graph input named 'nope' (inputs: x)");
  EXPECT_HAS(load_error(p, {{"x", {5, 3}}, {"q", {1}}}), "no graph input named 'q' (inputs: x)");
}

TEST(OnnxErrors, ShapeDimensionsAreRangeChecked) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {-1, 3});
  add_node(m, "Relu", {"x"}, {"y"});
  add_output(m, "y");
  TempDir dir;
  const std::string p = write_model(dir, "sym.onnx", m);
  EXPECT_HAS(load_error(p, {{"x", {int64_t{1} << 31, 3}}}),
             "--shape x=2147483648x3: dimension 2147483648 is outside 1..2147483647");
  EXPECT_HAS(load_error(p, {{"x", {0, 3}}}), "--shape x=0x3: dimension 0 is outside 1..2147483647");
  EXPECT_HAS(load_error(p, {{"x", {int64_t{1} << 30, 1 << 10}}}), "2^40 or more elements");
  // 2^40 - 1 elements pass the range check (shape inference only, nothing is allocated).
  EXPECT_EQ(load_onnx(p, {{"x", {(int64_t{1} << 30) - 1, 3}}}).tensor("y").shape,
            (std::vector<int64_t>{(int64_t{1} << 30) - 1, 3}));
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

TEST(OnnxErrors, UnknownOpsAreRejected) {
  // An op type the ONNX registry does not know, in a custom domain or in the default one, is an
  // error naming the node, the op type and the domain (even with its output shape declared).
  onnx::ModelProto m = relu_model();
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  auto* n = add_node(m, "MyOp", {"y"}, {"f"}, "mine");
  n->set_domain("com.example");
  add_node(m, "Relu", {"f"}, {"g"}, "after");
  add_output(m, "g");
  add_value(m.mutable_graph()->mutable_value_info(), "f", {2, 3});
  TempDir dir;
  std::string p = write_model(dir, "custom.onnx", m);
  std::string e = load_error(p);
  EXPECT_HAS(e, p);
  EXPECT_HAS(e, "node 'mine' (MyOp): unknown op type 'MyOp' in domain 'com.example' (opset 1)");

  onnx::ModelProto d = relu_model();
  add_node(d, "FooBarOp", {"y"}, {"f"});
  p = write_model(dir, "foobar.onnx", d);
  e = load_error(p);
  EXPECT_HAS(e, "node 'FooBarOp_1' (FooBarOp): unknown op type 'FooBarOp' in domain 'ai.onnx' (opset 13)");

  // An op newer than the model's opset does not exist for it.
  onnx::ModelProto c = relu_model();
  add_node(c, "Celu", {"y"}, {"f"}, "celu");  // Celu: since opset 12
  EXPECT_EQ(load_onnx(write_model(dir, "celu13.onnx", c)).nodes.size(), 2u);
  onnx::ModelProto c11 = relu_model(11);
  add_node(c11, "Celu", {"y"}, {"f"}, "celu");
  EXPECT_HAS(load_error(write_model(dir, "celu11.onnx", c11)),
             "node 'celu' (Celu): unknown op type 'Celu' in domain 'ai.onnx' (opset 11)");

  // A custom domain without an opset_import.
  onnx::ModelProto u = relu_model();
  add_node(u, "MyOp", {"y"}, {"f"}, "orphan")->set_domain("com.other");
  EXPECT_HAS(load_error(write_model(dir, "orphan.onnx", u)),
             "node 'orphan' (MyOp): domain 'com.other' has no opset_import");
}

TEST(OnnxErrors, WindowAttributesCheckedBeforeShapeInference) {
  // ONNX's Conv/pooling shape inference divides by the strides: zero strides must be rejected
  // before it runs (the process would die with SIGFPE).
  TempDir dir;
  onnx::ModelProto c = new_model(13);
  add_input(c, "x", {1, 2, 8, 8});
  add_float_init(c, "w", {1, 2, 1, 1}, {1, 1});
  set_ints(add_node(c, "Conv", {"x", "w"}, {"y"}, "conv0"), "strides", {0, 0});
  add_output(c, "y");
  EXPECT_HAS(load_error(write_model(dir, "conv.onnx", c)),
             "node 'conv0' (Conv): strides [0,0] has an entry < 1");

  onnx::ModelProto p = new_model(13);
  add_input(p, "x", {1, 2, 8, 8});
  auto* n = add_node(p, "AveragePool", {"x"}, {"y"}, "pool0");
  set_ints(n, "kernel_shape", {2, 2});
  set_ints(n, "strides", {2, 0});
  add_output(p, "y");
  EXPECT_HAS(load_error(write_model(dir, "pool.onnx", p)),
             "node 'pool0' (AveragePool): strides [2,0] has an entry < 1");

  onnx::ModelProto g = new_model(13);
  add_input(g, "x", {1, 2, 8, 8});
  add_float_init(g, "w", {1, 2, 1, 1}, {1, 1});
  set_int(add_node(g, "Conv", {"x", "w"}, {"y"}, "conv1"), "group", 0);
  add_output(g, "y");
  EXPECT_HAS(load_error(write_model(dir, "group.onnx", g)), "node 'conv1' (Conv): group 0 must be >= 1");
}

TEST(OnnxErrors, StringTensorsAreRejected) {
  onnx::ModelProto m = new_model(13);
  add_input(m, "s", {2}, TP::STRING);
  add_node(m, "Identity", {"s"}, {"t"}, "id_str");
  add_output(m, "t");
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TP::STRING);
  TempDir dir;
  const std::string e = load_error(write_model(dir, "str.onnx", m));
  EXPECT_HAS(
      e, "node 'id_str' (Identity): tensor 's' has data type STRING, which the platform cannot represent");
}

TEST(OnnxErrors, WidenedFloatTypesKeepTheirSourceType) {
  // DOUBLE and BFLOAT16 are held as fp32 and remember the model's type; FLOAT does not.
  onnx::ModelProto m = new_model(13);
  add_input(m, "x", {2, 3}, TP::DOUBLE);
  add_node(m, "Relu", {"x"}, {"y"}, "relu_d");
  add_output(m, "y");
  add_input(m, "b", {4}, TP::BFLOAT16);
  add_node(m, "Relu", {"b"}, {"c"}, "relu_b");
  add_output(m, "c");
  add_input(m, "f", {4});
  add_node(m, "Relu", {"f"}, {"g"}, "relu_f");
  add_output(m, "g");
  auto* outs = m.mutable_graph()->mutable_output();
  outs->Mutable(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TP::DOUBLE);
  outs->Mutable(1)->mutable_type()->mutable_tensor_type()->set_elem_type(TP::BFLOAT16);
  TempDir dir;
  const Graph g = load_onnx(write_model(dir, "double.onnx", m));
  EXPECT_EQ(g.tensor("y").dtype, DType::Float32);
  EXPECT_EQ(g.tensor("y").source_type, "DOUBLE");
  EXPECT_EQ(g.tensor("c").source_type, "BFLOAT16");
  EXPECT_EQ(g.tensor("g").source_type, "");
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
}  // namespace photon::onnx_frontend

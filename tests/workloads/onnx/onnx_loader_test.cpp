// load_onnx on every shared model: loads, folds, every tensor static, compute nodes preserved
// (counted independently from the raw ModelProto), key shapes and real weights.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "base/error.h"
#include "workloads/onnx/onnx_loader.h"

namespace photon::onnx_frontend {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(PHOTON_SHARED_DIR) + "/inputs/onnx/";

onnx::ModelProto raw_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(ss.str())) << path;
  return m;
}

// Independent oracle for the folding: the nodes that must survive are exactly those that depend,
// through any path that does not pass a Shape or Size node, on a real graph input (an input that
// is not an initializer). Everything else is computable from constants and the (static) input
// shapes. Returns op type -> count.
std::map<std::string, int> data_dependent_ops(const onnx::ModelProto& m) {
  const auto& g = m.graph();
  std::unordered_set<std::string> inits, live;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  for (const auto& vi : g.input()) {
    if (!inits.count(vi.name())) live.insert(vi.name());
  }
  std::map<std::string, int> count;
  // The shared files are topologically sorted (checked by the ONNX checker when exported), so
  // one pass in file order propagates liveness.
  for (const auto& n : g.node()) {
    bool dep = false;
    for (const auto& in : n.input()) dep = dep || live.count(in) != 0;
    if (!dep) continue;
    if (n.op_type() == "Shape" || n.op_type() == "Size") continue;  // folded: shapes are static
    ++count[n.op_type()];
    for (const auto& out : n.output()) live.insert(out);
  }
  return count;
}

std::map<std::string, int> graph_ops(const Graph& g) {
  std::map<std::string, int> count;
  for (const auto& n : g.nodes) ++count[n.op_type];
  return count;
}

std::vector<std::string> shared_models() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() == ".onnx") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(OnnxLoader, SharedModelsAreAllPresent) {
  // NOTICE.md lists 11 models; a missing one would silently shrink the parameterised tests.
  EXPECT_EQ(shared_models().size(), 11u);
}

class SharedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModel, LoadsFoldsAndEveryTensorIsStatic) {
  const std::string path = kDir + GetParam();
  const Graph g = load_onnx(path);
  const onnx::ModelProto raw = raw_model(path);
  EXPECT_EQ(g.opset, raw.opset_import(0).version());
  ASSERT_FALSE(g.nodes.empty());

  // Inputs: the raw graph inputs that are not initializers (IR 3 files list both), in order.
  std::set<std::string> inits;
  for (const auto& t : raw.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> real_inputs;
  for (const auto& vi : raw.graph().input()) {
    if (!inits.count(vi.name())) real_inputs.push_back(vi.name());
  }
  EXPECT_EQ(g.inputs, real_inputs);
  EXPECT_EQ(g.inputs.size(), 1u);  // every shared model has one data input
  for (const auto& in : g.inputs) EXPECT_FALSE(g.tensor(in).is_constant) << in;
  ASSERT_EQ(g.outputs.size(), static_cast<size_t>(raw.graph().output_size()));

  // Every tensor referenced is in `tensors` with a static, non-negative shape; constants carry
  // either a splat or exactly numel values.
  std::set<std::string> referenced(g.inputs.begin(), g.inputs.end());
  referenced.insert(g.outputs.begin(), g.outputs.end());
  for (const auto& n : g.nodes) {
    for (const auto& t : n.inputs)
      if (!t.empty()) referenced.insert(t);
    for (const auto& t : n.outputs)
      if (!t.empty()) referenced.insert(t);
  }
  for (const auto& name : referenced) {
    ASSERT_TRUE(g.tensors.count(name)) << name;
    const TensorInfo& t = g.tensor(name);
    for (int64_t d : t.shape) EXPECT_GE(d, 0) << name;
    if (t.is_constant) {
      if (t.splat) {
        EXPECT_TRUE(t.data.empty()) << name;
      } else {
        EXPECT_EQ(static_cast<int64_t>(t.data.size()), t.numel()) << name;
      }
    }
  }
  EXPECT_EQ(referenced.size(), g.tensors.size()) << "tensors holds unreferenced entries";

  // No shape-computation op survives with all-constant inputs.
  for (const auto& n : g.nodes) {
    EXPECT_NE(n.op_type, "Constant") << n.name;
    EXPECT_NE(n.op_type, "ConstantOfShape") << n.name;
    EXPECT_NE(n.op_type, "Shape") << n.name;
    bool any_variable = false;
    for (const auto& in : n.inputs) any_variable = any_variable || (!in.empty() && !g.tensor(in).is_constant);
    EXPECT_TRUE(any_variable) << n.name << " (" << n.op_type << ") has only constant inputs";
  }

  // Topological order: every input is a graph input, a constant or produced earlier.
  std::set<std::string> avail(g.inputs.begin(), g.inputs.end());
  for (const auto& n : g.nodes) {
    for (const auto& in : n.inputs) {
      EXPECT_TRUE(in.empty() || avail.count(in) || g.tensor(in).is_constant) << n.name << " reads " << in;
    }
    avail.insert(n.outputs.begin(), n.outputs.end());
  }

  // Surviving nodes by op type == the independent count from the raw model.
  EXPECT_EQ(graph_ops(g), data_dependent_ops(raw)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Shared, SharedModel, ::testing::ValuesIn(shared_models()), [](const auto& info) {
  std::string s = info.param.substr(0, info.param.size() - 5);
  for (auto& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
});

// The compute ops must all survive folding: raw count of each == count in the folded graph.
// Expected numbers come from `collections.Counter(n.op_type for n in onnx.load(f).graph.node)`
// (python3-onnx 1.12) on the shared files.
TEST(OnnxLoader, ComputeOpsSurviveFolding) {
  struct Case {
    const char* file;
    std::map<std::string, int> ops;
  };
  const Case cases[] = {
      {"resnet18.onnx",
       {{"Conv", 20},
        {"Relu", 17},
        {"Add", 8},
        {"Gemm", 1},
        {"MaxPool", 1},
        {"GlobalAveragePool", 1},
        {"Flatten", 1}}},
      {"vit_b_16.onnx",
       {{"Conv", 1},
        {"MatMul", 60},
        {"Gemm", 13},
        {"Softmax", 12},
        {"Erf", 12},
        {"ReduceMean", 50},
        {"Sqrt", 25},
        {"Pow", 25}}},
      {"bert_base_encoder_seq128.onnx",
       {{"MatMul", 60},
        {"Gemm", 12},
        {"Softmax", 12},
        {"Erf", 12},
        {"ReduceMean", 48},
        {"Sqrt", 24},
        {"Pow", 24}}},
      {"llama7b_mlp_seq2048.onnx", {{"MatMul", 3}, {"Mul", 2}, {"Sigmoid", 1}}},
      {"lenet5_weights.onnx",
       {{"Conv", 2},
        {"Gemm", 3},
        {"Relu", 4},
        {"MaxPool", 1},
        {"AveragePool", 1},
        {"Pad", 1},
        {"Flatten", 1}}},
      {"light_resnet50.onnx",
       {{"Conv", 53}, {"BatchNormalization", 53}, {"Relu", 49}, {"Sum", 16}, {"Gemm", 1}, {"Softmax", 1}}},
      {"light_inception_v1.onnx",
       {{"Conv", 57}, {"Relu", 57}, {"MaxPool", 13}, {"Concat", 9}, {"LRN", 2}, {"Gemm", 1}}},
  };
  for (const auto& c : cases) {
    const Graph g = load_onnx(kDir + c.file);
    const auto have = graph_ops(g);
    for (const auto& [op, n] : c.ops) {
      auto it = have.find(op);
      EXPECT_EQ(it == have.end() ? 0 : it->second, n) << c.file << " " << op;
    }
  }
}

std::vector<int64_t> shape_of(const Graph& g, const std::string& t) { return g.tensor(t).shape; }

// Output shapes as stored in the exported files' graph.output (checked with python3-onnx:
// [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]); bert is batch-first
// (1x128x768), llama 1x2048x4096.
TEST(OnnxLoader, KeyShapes) {
  {
    const Graph g = load_onnx(kDir + "resnet18.onnx");
    EXPECT_EQ(shape_of(g, g.inputs.at(0)), (std::vector<int64_t>{1, 3, 224, 224}));
    EXPECT_EQ(shape_of(g, g.outputs.at(0)), (std::vector<int64_t>{1, 1000}));
  }
  {
    const Graph g = load_onnx(kDir + "bert_base_encoder_seq128.onnx");
    EXPECT_EQ(shape_of(g, g.outputs.at(0)), (std::vector<int64_t>{1, 128, 768}));
    // Attention scores of one layer: 12 heads x 128 x 128 (batch folded into heads by torch).
    int softmax = 0;
    for (const auto& n : g.nodes) {
      if (n.op_type != "Softmax") continue;
      EXPECT_EQ(shape_of(g, n.outputs[0]), (std::vector<int64_t>{12, 128, 128})) << n.name;
      ++softmax;
    }
    EXPECT_EQ(softmax, 12);
    // q, k, v: the fused in_proj output 128x1x2304 sliced in three at ends computed from
    // Shape -> Gather(-1) -> (+2) / 3 * {1,2,3} = 768, 1536, 2304.
    int slices = 0;
    for (const auto& n : g.nodes) {
      if (n.op_type != "Slice") continue;
      EXPECT_EQ(shape_of(g, n.outputs[0]), (std::vector<int64_t>{128, 1, 768})) << n.name;
      const int64_t end = g.tensor(n.inputs.at(2)).int_data.at(0);
      EXPECT_TRUE(end == 768 || end == 1536 || end == 2304) << n.name << " end " << end;
      ++slices;
    }
    EXPECT_EQ(slices, 36);
    // Every Reshape's shape input is a known integer constant whose product matches.
    for (const auto& n : g.nodes) {
      if (n.op_type != "Reshape") continue;
      const TensorInfo& s = g.tensor(n.inputs[1]);
      ASSERT_TRUE(s.is_constant) << n.name;
      ASSERT_EQ(static_cast<int64_t>(s.int_data.size()), s.numel()) << n.name;
      EXPECT_EQ(g.tensor(n.outputs[0]).numel(), g.tensor(n.inputs[0]).numel()) << n.name;
    }
  }
  {
    const Graph g = load_onnx(kDir + "llama7b_mlp_seq2048.onnx");
    EXPECT_EQ(shape_of(g, g.outputs.at(0)), (std::vector<int64_t>{1, 2048, 4096}));
    // Weights are splats, never materialised (11008x4096 fp32 would be 180 MB each).
    int weights = 0;
    for (const auto& n : g.nodes) {
      if (n.op_type != "MatMul") continue;
      const TensorInfo& w = g.tensor(n.inputs[1]);
      EXPECT_TRUE(w.is_constant && w.splat) << n.name;
      EXPECT_TRUE(w.data.empty());
      EXPECT_FLOAT_EQ(w.splat_value, 0.01f);
      EXPECT_EQ(w.numel(), 4096 * 11008);
      ++weights;
    }
    EXPECT_EQ(weights, 3);
  }
  {
    const Graph g = load_onnx(kDir + "vit_b_16.onnx");
    EXPECT_EQ(shape_of(g, g.outputs.at(0)), (std::vector<int64_t>{1, 1000}));
    // Class token (Expand of a splat, folded) concatenated with 196 patches: 1x197x768.
    int concat = 0;
    for (const auto& n : g.nodes) {
      if (n.op_type != "Concat") continue;
      EXPECT_EQ(shape_of(g, n.outputs[0]), (std::vector<int64_t>{1, 197, 768}));
      const TensorInfo& cls = g.tensor(n.inputs[0]);
      EXPECT_TRUE(cls.is_constant && cls.splat);
      EXPECT_EQ(cls.shape, (std::vector<int64_t>{1, 1, 768}));
      ++concat;
    }
    EXPECT_EQ(concat, 1);
    for (const auto& n : g.nodes) {
      if (n.op_type == "Slice") {
        EXPECT_EQ(shape_of(g, n.outputs[0]), (std::vector<int64_t>{197, 1, 768})) << n.name;
      }
    }
  }
}

// Real initializer values. Expected numbers from python3-onnx:
//   w = {i.name: onnx.numpy_helper.to_array(i) for i in onnx.load('lenet5_weights.onnx').graph.initializer}
//   w['c1.weight'][0,0,0,1], w['c2.weight'][3,4,2,1], w['f1.weight'][100,399], w['f3.bias'][9]
TEST(OnnxLoader, Lenet5InitializerData) {
  const Graph g = load_onnx(kDir + "lenet5_weights.onnx");
  const TensorInfo& c1 = g.tensor("c1.weight");
  EXPECT_TRUE(c1.is_constant);
  EXPECT_FALSE(c1.splat);
  EXPECT_EQ(c1.shape, (std::vector<int64_t>{6, 1, 5, 5}));
  EXPECT_FLOAT_EQ(c1.data.at(1), 0.10728871822357178f);
  const TensorInfo& c2 = g.tensor("c2.weight");
  EXPECT_FLOAT_EQ(c2.data.at(((3 * 6 + 4) * 5 + 2) * 5 + 1), 0.022136230021715164f);
  const TensorInfo& f1 = g.tensor("f1.weight");
  EXPECT_EQ(f1.shape, (std::vector<int64_t>{120, 400}));
  EXPECT_FLOAT_EQ(f1.data.at(100 * 400 + 399), 0.020961135625839233f);
  EXPECT_FLOAT_EQ(g.tensor("f3.bias").data.at(9), 0.09377246350049973f);
  // The Pad node's pads come from a folded Constant: an int64 tensor with int_data.
  for (const auto& n : g.nodes) {
    if (n.op_type != "Pad") continue;
    const TensorInfo& pads = g.tensor(n.inputs.at(1));
    EXPECT_EQ(pads.dtype, DType::Int64);
    EXPECT_EQ(static_cast<int64_t>(pads.int_data.size()), pads.numel());
  }
  const Node& conv = g.nodes.at(0);
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.name, "/c1/Conv");
  EXPECT_EQ(conv.attr_ints("pads", {}), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(conv.attr_int("group", 0), 1);
}

}  // namespace
}  // namespace photon::onnx_frontend

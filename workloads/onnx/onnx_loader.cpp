#include "workloads/onnx/onnx_loader.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "base/error.h"
#include "workloads/onnx/const_fold.h"
#include "workloads/onnx/const_value.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {
namespace {

using TP = onnx::TensorProto;

constexpr int64_t kMinOpset = 9;   // oldest opset the frontend's folding rules are written for
constexpr int64_t kMaxOpset = 17;  // newest opset the installed ONNX 1.12 library knows

/// Element type and (if fully known) static shape of a tensor, from shape inference.
struct TypeInfo {
  int32_t elem_type = 0;
  bool is_static = false;
  std::vector<int64_t> shape;
};

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

std::string node_ctx(const std::string& label, const std::string& op) {
  return "node '" + label + "' (" + op + ")";
}

// TensorInfo::source_type for an ONNX element type: its name when DType does not name it exactly.
std::string source_type_of(int32_t elem_type) {
  const DType d = dtype_from_onnx(elem_type);
  const bool exact = (d == DType::Float32 && elem_type == TP::FLOAT) || d == DType::Float16 ||
                     d == DType::Int64 || d == DType::Int32 || d == DType::Bool;
  return exact ? std::string() : onnx_type_name(elem_type);
}

// Largest accepted input dimension and element count (--shape or the model): the int32 range
// per axis (the command fields and shape arithmetic use signed 32/64-bit values) and 2^40
// elements (4 TiB of fp32, beyond any HBM stack).
constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxElements = int64_t{1} << 40;

// Throws Error starting with `what` if a dimension is outside min_dim..kMaxDim or the product
// reaches kMaxElements.
void check_input_dims(const std::string& what, const std::vector<int64_t>& dims, int64_t min_dim) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < min_dim || d > kMaxDim)
      throw Error(what + ": dimension " + std::to_string(d) + " is outside " + std::to_string(min_dim) +
                  ".." + std::to_string(kMaxDim));
    n *= d;  // no overflow: n < 2^40 and d < 2^31 before each step
    if (n >= kMaxElements) throw Error(what + ": " + shape_str(dims) + " has 2^40 or more elements");
  }
}

AttrValue convert_attr(const onnx::AttributeProto& a, bool* ok) {
  using A = onnx::AttributeProto;
  *ok = true;
  A::AttributeType t = a.type();
  if (t == A::UNDEFINED) {  // pre-IR-2 files leave the type unset
    t = a.ints_size()     ? A::INTS
        : a.floats_size() ? A::FLOATS
        : a.has_s()       ? A::STRING
        : a.has_f()       ? A::FLOAT
        : a.has_i()       ? A::INT
                          : A::UNDEFINED;
  }
  switch (t) {
    case A::INT: return a.i();
    case A::FLOAT: return a.f();
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    default: *ok = false; return int64_t{0};
  }
}

// Writes the values of an integer constant into `t` (the typed field of its element type).
void encode_ints(const ConstValue& c, TP* t) {
  t->set_data_type(c.elem_type);
  for (int64_t d : c.shape) t->add_dims(d);
  const int64_t n = c.numel();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = c.int_at(k);
    if (c.elem_type == TP::INT64)
      t->add_int64_data(v);
    else if (c.elem_type == TP::UINT32 || c.elem_type == TP::UINT64)
      t->add_uint64_data(static_cast<uint64_t>(v));
    else
      t->add_int32_data(static_cast<int32_t>(v));
  }
}

void set_type(onnx::ValueInfoProto* vi, const std::string& name, int32_t elem_type,
              const std::vector<int64_t>& shape) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* s = tt->mutable_shape();
  for (int64_t d : shape) s->add_dim()->set_dim_value(d);
}

TensorInfo to_tensor_info(const std::string& name, ConstValue&& c) {
  TensorInfo t;
  t.name = name;
  t.dtype = dtype_from_onnx(c.elem_type);
  t.source_type = source_type_of(c.elem_type);
  t.shape = c.shape;
  t.is_constant = true;
  const bool small_int = c.is_int() && c.numel() <= kMaxFoldElements;
  if (c.splat && c.numel() > 1 && !small_int) {
    t.splat = true;
    t.splat_value = c.is_int() ? static_cast<float>(c.splat_i) : c.splat_f;
    return t;
  }
  c.materialize();
  if (c.is_int()) {
    t.int_data = std::move(c.i);
    t.data.assign(t.int_data.begin(), t.int_data.end());
  } else {
    t.data = std::move(c.f);
  }
  return t;
}

class Loader {
 public:
  Loader(const std::string& path, const std::map<std::string, std::vector<int64_t>>& shapes)
      : path_(path), shapes_(shapes) {}

  Graph run() {
    parse();
    check_opset();
    check_ops();
    resolve_inputs();
    sort_nodes();
    load_initializers();
    infer(model_, /*data_propagation=*/true);
    fold_pass();
    for (int iter = 0; iter < 16; ++iter) {  // folding a Shape may expose more: iterate
      onnx::ModelProto folded = rebuild();
      infer(folded, /*data_propagation=*/false);
      if (!fold_pass()) break;
    }
    return build();
  }

 private:
  void parse() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw Error("cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    if (bytes.empty()) throw Error("empty file, not an ONNX model");
    if (!model_.ParseFromString(bytes)) {
      throw Error("not an ONNX model (protobuf parse failed: truncated or another format)");
    }
    if (model_.ir_version() <= 0 || !model_.has_graph()) {
      throw Error("not an ONNX model (no ir_version or no graph)");
    }
    if (model_.graph().node_size() == 0) throw Error("empty graph: the model has no nodes");
  }

  void check_opset() {
    bool found = false;
    for (const auto& o : model_.opset_import()) {
      if (is_default_domain(o.domain())) {
        opset_ = o.version();
        found = true;
      }
    }
    if (!found) throw Error("no opset_import for the default ONNX domain");
    if (opset_ < kMinOpset || opset_ > kMaxOpset) {
      throw Error("opset " + std::to_string(opset_) + " is not supported (supported: " +
                  std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset) + ")");
    }
  }

  // Every node's op type must exist in the ONNX operator registry for its domain and the
  // model's opset of that domain; ops that exist but have no device mapping are kept (the
  // lowering sends them to the host).
  void check_ops() {
    std::map<std::string, int64_t> versions;
    for (const auto& o : model_.opset_import())
      versions[is_default_domain(o.domain()) ? "" : o.domain()] = o.version();
    const auto& g = model_.graph();
    for (int k = 0; k < g.node_size(); ++k) {
      const auto& node = g.node(k);
      const std::string domain = is_default_domain(node.domain()) ? "" : node.domain();
      const std::string shown = domain.empty() ? "ai.onnx" : domain;
      const std::string label = node.name().empty() ? node.op_type() + "_" + std::to_string(k) : node.name();
      auto v = versions.find(domain);
      if (v == versions.end()) {
        throw Error("domain '" + shown + "' has no opset_import")
            .with_context(node_ctx(label, node.op_type()));
      }
      if (!onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(v->second), domain)) {
        throw Error("unknown op type '" + node.op_type() + "' in domain '" + shown + "' (opset " +
                    std::to_string(v->second) + "): not an ONNX operator")
            .with_context(node_ctx(label, node.op_type()));
      }
      if (!domain.empty()) continue;
      // Window attributes before shape inference, which divides by the strides (SIGFPE on 0).
      Node n;
      n.name = label;
      n.op_type = node.op_type();
      for (const auto& a : node.attribute()) {
        bool ok;
        AttrValue val = convert_attr(a, &ok);
        if (ok) n.attrs.emplace(a.name(), std::move(val));
      }
      with_error_context(node_ctx(label, node.op_type()), [&] { check_window_attrs(n); });
    }
  }

  void resolve_inputs() {
    auto* g = model_.mutable_graph();
    for (const auto& t : g->initializer()) initializers_.insert(t.name());
    std::string names;
    for (const auto& vi : g->input()) {
      if (initializers_.count(vi.name())) continue;  // IR < 4 lists initializers as inputs
      real_inputs_.push_back(vi.name());
      names += (names.empty() ? "" : ", ") + vi.name();
    }
    for (const auto& [name, dims] : shapes_) {
      if (std::find(real_inputs_.begin(), real_inputs_.end(), name) == real_inputs_.end()) {
        throw Error("--shape " + name + "=" + shape_str(dims) + ": no graph input named '" + name +
                    "' (inputs: " + names + ")");
      }
      check_input_dims("--shape " + name + "=" + shape_str(dims), dims, 1);
    }
    for (auto& vi : *g->mutable_input()) {
      if (initializers_.count(vi.name())) continue;
      const std::string& name = vi.name();
      if (!vi.type().has_tensor_type()) throw Error("input '" + name + "' is not a tensor");
      auto* tt = vi.mutable_type()->mutable_tensor_type();
      auto given = shapes_.find(name);
      if (given != shapes_.end()) {
        const auto& dims = given->second;
        if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(dims.size())) {
          throw Error("--shape " + name + "=" + shape_str(dims) + " has rank " + std::to_string(dims.size()) +
                      ", the model's input has rank " + std::to_string(tt->shape().dim_size()));
        }
        tt->clear_shape();
        auto* s = tt->mutable_shape();
        for (int64_t d : dims) s->add_dim()->set_dim_value(d);
        continue;
      }
      if (!tt->has_shape()) {
        throw Error("input '" + name + "' has no shape in the model: pass --shape " + name + "=...");
      }
      std::vector<int64_t> dims;
      for (int k = 0; k < tt->shape().dim_size(); ++k) {
        const auto& d = tt->shape().dim(k);
        if (!d.has_dim_value()) {
          const std::string param = d.has_dim_param() ? d.dim_param() : "?";
          throw Error("input '" + name + "' has unknown dimension " + std::to_string(k) + " ('" + param +
                      "'): pass --shape " + name + "=...");
        }
        dims.push_back(d.dim_value());
      }
      check_input_dims("input '" + name + "' " + shape_str(dims), dims, 0);
    }
    if (!shapes_.empty()) {
      // Shapes stored in the file were derived from the old input shapes: drop them so shape
      // inference recomputes them (element types stay).
      g->clear_value_info();
      for (auto& vi : *g->mutable_output()) {
        if (vi.type().has_tensor_type()) vi.mutable_type()->mutable_tensor_type()->clear_shape();
      }
    }
  }

  // Checks every reference and orders the nodes topologically (Kahn, lowest file index first so
  // an already sorted file keeps its order).
  void sort_nodes() {
    const auto& g = model_.graph();
    const int n = g.node_size();
    labels_.resize(n);
    std::unordered_map<std::string, int> producer;
    std::unordered_set<std::string> sources(real_inputs_.begin(), real_inputs_.end());
    sources.insert(initializers_.begin(), initializers_.end());
    for (int k = 0; k < n; ++k) {
      const auto& node = g.node(k);
      labels_[k] = node.name().empty() ? node.op_type() + "_" + std::to_string(k) : node.name();
      for (const auto& o : node.output()) {
        if (o.empty()) continue;
        if (sources.count(o) || !producer.emplace(o, k).second) {
          throw Error("output '" + o + "' is defined more than once")
              .with_context(node_ctx(labels_[k], node.op_type()));
        }
      }
    }
    std::vector<int> indegree(n, 0);
    std::vector<std::vector<int>> consumers(n);
    for (int k = 0; k < n; ++k) {
      const auto& node = g.node(k);
      for (const auto& in : node.input()) {
        if (in.empty() || sources.count(in)) continue;
        auto p = producer.find(in);
        if (p == producer.end()) {
          throw Error("input '" + in + "' is not defined by any node, graph input or initializer")
              .with_context(node_ctx(labels_[k], node.op_type()));
        }
        consumers[p->second].push_back(k);
        ++indegree[k];
      }
    }
    for (const auto& o : g.output()) {
      if (!sources.count(o.name()) && !producer.count(o.name())) {
        throw Error("graph output '" + o.name() + "' is not defined by any node");
      }
    }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int k = 0; k < n; ++k) {
      if (indegree[k] == 0) ready.push(k);
    }
    while (!ready.empty()) {
      const int k = ready.top();
      ready.pop();
      order_.push_back(k);
      for (int c : consumers[k]) {
        if (--indegree[c] == 0) ready.push(c);
      }
    }
    if (static_cast<int>(order_.size()) != n) {
      for (int k = 0; k < n; ++k) {
        if (indegree[k] > 0) {
          throw Error("the graph has a cycle").with_context(node_ctx(labels_[k], g.node(k).op_type()));
        }
      }
    }
    // ONNX shape inference visits nodes in file order: store them sorted.
    google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
    std::vector<std::string> labels;
    for (int k : order_) {
      sorted.Add()->Swap(model_.mutable_graph()->mutable_node(k));
      labels.push_back(std::move(labels_[k]));
    }
    model_.mutable_graph()->mutable_node()->Swap(&sorted);
    labels_ = std::move(labels);
    for (int k = 0; k < n; ++k) order_[k] = k;
  }

  void load_initializers() {
    for (const auto& t : model_.graph().initializer()) {
      ConstValue c;
      c.elem_type = t.data_type();
      c.shape.assign(t.dims().begin(), t.dims().end());
      decode_tensor_values(t, &c.f, &c.i);
      // An initializer whose values are all equal is held as a splat (see onnx_loader.h).
      if (!c.is_int() && c.f.size() > 1 &&
          std::all_of(c.f.begin(), c.f.end(), [&](float v) { return v == c.f[0]; })) {
        c.splat = true;
        c.splat_f = c.f[0];
        std::vector<float>().swap(c.f);
      }
      consts_[t.name()] = std::move(c);
    }
  }

  void infer(onnx::ModelProto& m, bool data_propagation) {
    onnx::ShapeInferenceOptions opts(/*check_type=*/false, /*error_mode=*/1, data_propagation);
    try {
      onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), opts);
    } catch (const std::exception& e) {
      std::string what = e.what();
      while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
      std::replace(what.begin(), what.end(), '\n', ' ');
      throw Error("shape inference failed: " + what);
    }
    const auto& g = m.graph();
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
      for (const auto& vi : *list) {
        if (!vi.type().has_tensor_type()) continue;
        const auto& tt = vi.type().tensor_type();
        TypeInfo info;
        info.elem_type = tt.elem_type();
        if (tt.has_shape()) {
          info.is_static = true;
          for (const auto& d : tt.shape().dim()) {
            if (!d.has_dim_value()) info.is_static = false;
            info.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
          }
        }
        auto it = types_.find(vi.name());
        if (it == types_.end() || info.is_static || it->second.elem_type == 0) {
          types_[vi.name()] = std::move(info);
        }
      }
    }
  }

  // Folds every kept node whose inputs are all constant; returns whether any node was folded.
  bool fold_pass() {
    const auto& g = model_.graph();
    bool any = false;
    std::vector<int> kept;
    std::vector<FoldInput> in;
    std::vector<ConstValue> out;
    for (int k : order_) {
      const auto& node = g.node(k);
      const std::string& op = node.op_type();
      bool can = is_default_domain(node.domain()) && is_foldable_op(op);
      in.clear();
      for (int j = 0; can && j < node.input_size(); ++j) {
        const std::string& name = node.input(j);
        FoldInput fi;
        if (!name.empty()) {
          auto c = consts_.find(name);
          if (c != consts_.end()) {
            fi.value = &c->second;
            fi.shape = &c->second.shape;
          } else if (j == 0 && folds_from_input_shape(op)) {
            auto t = types_.find(name);
            if (t != types_.end() && t->second.is_static)
              fi.shape = &t->second.shape;
            else
              can = false;
          } else {
            can = false;
          }
        }
        in.push_back(fi);
      }
      if (can) {
        can = with_error_context(node_ctx(labels_[k], op), [&] { return fold_node(node, opset_, in, &out); });
        can = can && static_cast<int>(out.size()) == node.output_size();
      }
      if (!can) {
        kept.push_back(k);
        continue;
      }
      for (int j = 0; j < node.output_size(); ++j) {
        if (!node.output(j).empty()) consts_[node.output(j)] = std::move(out[static_cast<size_t>(j)]);
      }
      any = true;
    }
    order_ = std::move(kept);
    return any;
  }

  // The kept nodes as a model for shape inference: small integer and FLOAT constants become
  // initializers (their values drive Reshape/Expand/Slice/Resize shapes), other constants
  // become typed graph inputs so no large tensor is copied.
  onnx::ModelProto rebuild() const {
    const auto& src = model_.graph();
    onnx::ModelProto m;
    m.set_ir_version(std::max<int64_t>(model_.ir_version(), 4));  // IR >= 4: initializers need no input entry
    *m.mutable_opset_import() = model_.opset_import();
    auto* g = m.mutable_graph();
    g->set_name(src.name());
    for (const auto& vi : src.input()) {
      if (!initializers_.count(vi.name())) *g->add_input() = vi;
    }
    std::unordered_set<std::string> done;
    for (int k : order_) {
      const auto& node = src.node(k);
      *g->add_node() = node;
      for (const auto& name : node.input()) {
        auto c = consts_.find(name);
        if (name.empty() || c == consts_.end() || !done.insert(name).second) continue;
        const ConstValue& v = c->second;
        const bool small = v.numel() <= kMaxFoldElements;
        if (small && v.is_int()) {
          TP* t = g->add_initializer();
          t->set_name(name);
          encode_ints(v, t);
        } else if (small && !v.splat && v.elem_type == TP::FLOAT) {
          TP* t = g->add_initializer();
          t->set_name(name);
          t->set_data_type(TP::FLOAT);
          for (int64_t d : v.shape) t->add_dims(d);
          *t->mutable_float_data() = {v.f.begin(), v.f.end()};
        } else {
          set_type(g->add_input(), name, v.elem_type, v.shape);
        }
      }
    }
    for (const auto& vi : src.output()) {
      if (!consts_.count(vi.name())) *g->add_output() = vi;
    }
    // Shapes known so far (inferred, or declared in the file's value_info, e.g. for a custom op
    // that has no inference function) seed the next inference.
    for (int k : order_) {
      for (const auto& name : src.node(k).output()) {
        auto t = types_.find(name);
        if (name.empty() || t == types_.end() || !t->second.is_static) continue;
        set_type(g->add_value_info(), name, t->second.elem_type, t->second.shape);
      }
    }
    return m;
  }

  Graph build() {
    const auto& src = model_.graph();
    Graph graph;
    graph.name = src.name();
    graph.opset = opset_;
    graph.inputs = real_inputs_;
    std::vector<std::string> names = real_inputs_;  // checked in this order: inputs, nodes, outputs
    for (const auto& o : src.output()) graph.outputs.push_back(o.name());
    std::unordered_set<std::string> consumed(graph.outputs.begin(), graph.outputs.end());
    for (int k : order_) consumed.insert(src.node(k).input().begin(), src.node(k).input().end());
    std::unordered_map<std::string, int> producer;
    for (int k : order_) {
      const auto& node = src.node(k);
      Node n;
      n.name = labels_[k];
      n.op_type = node.op_type();
      n.inputs.assign(node.input().begin(), node.input().end());
      n.outputs.assign(node.output().begin(), node.output().end());
      // Secondary outputs nobody reads (Dropout's mask, ...) become "" (omitted), as ONNX
      // writes an omitted optional output; shape inference need not type them.
      for (size_t j = 1; j < n.outputs.size(); ++j) {
        if (!consumed.count(n.outputs[j])) n.outputs[j].clear();
      }
      for (const auto& a : node.attribute()) {
        bool ok;
        AttrValue v = convert_attr(a, &ok);
        if (ok) n.attrs.emplace(a.name(), std::move(v));
      }
      names.insert(names.end(), n.inputs.begin(), n.inputs.end());
      names.insert(names.end(), n.outputs.begin(), n.outputs.end());
      for (const auto& o : n.outputs) producer[o] = k;
      graph.nodes.push_back(std::move(n));
    }
    names.insert(names.end(), graph.outputs.begin(), graph.outputs.end());
    for (const auto& name : names) {
      if (name.empty() || graph.tensors.count(name)) continue;
      auto c = consts_.find(name);
      if (c != consts_.end()) {
        graph.tensors.emplace(name, to_tensor_info(name, std::move(c->second)));
        continue;
      }
      auto t = types_.find(name);
      if (t == types_.end() || !t->second.is_static) {
        std::string dims;
        if (t != types_.end() && !t->second.shape.empty()) {
          for (int64_t d : t->second.shape)
            dims += (dims.empty() ? "" : "x") + (d < 0 ? "?" : std::to_string(d));
          dims = " (" + dims + ")";
        }
        Error e("tensor '" + name + "' has no static shape after shape inference" + dims);
        auto p = producer.find(name);
        if (p != producer.end()) e.with_context(node_ctx(labels_[p->second], src.node(p->second).op_type()));
        throw e;
      }
      TensorInfo info;
      info.name = name;
      info.dtype = dtype_from_onnx(t->second.elem_type);
      info.source_type = source_type_of(t->second.elem_type);
      info.shape = t->second.shape;
      graph.tensors.emplace(name, std::move(info));
    }
    // Tensors of types the platform cannot hold (STRING, COMPLEX64, ...) are not computable.
    for (const Node& n : graph.nodes) {
      for (const auto* list : {&n.inputs, &n.outputs}) {
        for (const auto& name : *list) {
          if (name.empty() || graph.tensors.at(name).dtype != DType::Other) continue;
          throw Error("tensor '" + name + "' has data type " + graph.tensors.at(name).source_type +
                      ", which the platform cannot represent")
              .with_context(node_ctx(n.name, n.op_type));
        }
      }
    }
    return graph;
  }

  std::string path_;
  const std::map<std::string, std::vector<int64_t>>& shapes_;
  onnx::ModelProto model_;
  int64_t opset_ = 0;
  std::set<std::string> initializers_;
  std::vector<std::string> real_inputs_;
  std::vector<std::string> labels_;  ///< per node of model_ (stored topologically sorted)
  std::vector<int> order_;           ///< kept (not folded) nodes, topologically sorted
  std::unordered_map<std::string, ConstValue> consts_;
  std::unordered_map<std::string, TypeInfo> types_;
};

}  // namespace

Graph load_onnx(const std::string& path, const std::map<std::string, std::vector<int64_t>>& shapes) {
  return with_error_context(path, [&] { return Loader(path, shapes).run(); });
}

}  // namespace photon::onnx_frontend

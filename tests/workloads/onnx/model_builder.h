// Test helper: builds small ONNX models with the onnx protobuf API and writes them to a temp dir.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

namespace photon::test {

/// A ModelProto with one default-domain opset import.
inline onnx::ModelProto new_model(int64_t opset, int64_t ir_version = 8) {
  onnx::ModelProto m;
  m.set_ir_version(ir_version);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("test");
  return m;
}

/// Adds a tensor value info; a dim < 0 becomes the symbolic dim `param`.
inline void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                      std::vector<int64_t> dims, int32_t elem_type = onnx::TensorProto::FLOAT,
                      const std::string& param = "batch") {
  auto* vi = list->Add();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* s = tt->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0)
      s->add_dim()->set_dim_param(param);
    else
      s->add_dim()->set_dim_value(d);
  }
}

inline void add_input(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims,
                      int32_t elem_type = onnx::TensorProto::FLOAT) {
  add_value(m.mutable_graph()->mutable_input(), name, std::move(dims), elem_type);
}

inline void add_output(onnx::ModelProto& m, const std::string& name,
                       int32_t elem_type = onnx::TensorProto::FLOAT) {
  auto* vi = m.mutable_graph()->add_output();
  vi->set_name(name);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
}

inline onnx::NodeProto* add_node(onnx::ModelProto& m, const std::string& op, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  if (!name.empty()) n->set_name(name);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return n;
}

inline void set_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

inline void set_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void set_floats(onnx::NodeProto* n, const std::string& name, std::vector<float> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}

inline void set_string(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

/// Int64 initializer.
inline void add_int_init(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims,
                         std::vector<int64_t> values) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
}

/// Float initializer (float_data).
inline void add_float_init(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims,
                           std::vector<float> values) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
}

/// Constant node with an int64 1-D value.
inline void add_const_ints(onnx::ModelProto& m, const std::string& out, std::vector<int64_t> values,
                           bool scalar = false) {
  auto* n = add_node(m, "Constant", {}, {out});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

/// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("photon_onnx_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::filesystem::path path_;
};

inline std::string write_bytes(const TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string p = dir.file(name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

inline std::string write_model(const TempDir& dir, const std::string& name, const onnx::ModelProto& m) {
  return write_bytes(dir, name, m.SerializeAsString());
}

}  // namespace photon::test

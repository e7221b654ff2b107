#include "workloads/onnx/model_checks.h"

#include <onnx/defs/schema.h>

#include "base/error.h"
#include "workloads/onnx/tensor_io.h"

namespace photon::onnx_frontend {
namespace {

using TP = onnx::TensorProto;
using AP = onnx::AttributeProto;

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

std::string node_label(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

std::string node_where(const onnx::NodeProto& n, int index) {
  return "node '" + node_label(n, index) + "' (" + n.op_type() + ")";
}

std::string attr_type_name(AP::AttributeType t) {
  return AP::AttributeType_IsValid(t) ? AP::AttributeType_Name(t) : "type " + std::to_string(int(t));
}

std::string plural(int n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

void check_node(const onnx::NodeProto& n, const onnx::OpSchema& s) {
  const std::string op = s.Name() + "-" + std::to_string(s.SinceVersion());
  const int ni = n.input_size(), no = n.output_size();
  if (ni < s.min_input())
    throw Error(plural(ni, "input") + ", " + op + " requires at least " + std::to_string(s.min_input()));
  if (ni > s.max_input())
    throw Error(plural(ni, "input") + ", " + op + " takes at most " + std::to_string(s.max_input()));
  const auto& formal = s.inputs();
  for (int k = 0; k < ni && k < int(formal.size()); ++k) {
    if (formal[size_t(k)].GetOption() == onnx::OpSchema::Single && n.input(k).empty())
      throw Error("input " + std::to_string(k) + " ('" + formal[size_t(k)].GetName() + "') of " + op +
                  " is required but empty");
  }
  if (no < s.min_output())
    throw Error(plural(no, "output") + ", " + op + " requires at least " + std::to_string(s.min_output()));
  if (no > s.max_output())
    throw Error(plural(no, "output") + ", " + op + " has at most " + std::to_string(s.max_output()));
  for (const auto& a : n.attribute()) {
    if (a.type() == AP::SPARSE_TENSOR || a.type() == AP::SPARSE_TENSORS)
      throw Error("attribute '" + a.name() + "' is a sparse tensor, which the frontend does not read");
    auto it = s.attributes().find(a.name());
    if (it == s.attributes().end() || a.type() == AP::UNDEFINED) continue;  // pre-IR-2 files leave it unset
    if (a.type() != it->second.type)
      throw Error("attribute '" + a.name() + "' is " + attr_type_name(a.type()) + ", " + op + " declares " +
                  attr_type_name(it->second.type));
  }
  for (const auto& [name, attr] : s.attributes()) {
    if (!attr.required) continue;
    const AP* found = nullptr;
    for (const auto& a : n.attribute())
      if (a.name() == name) found = &a;
    if (!found) throw Error("required attribute '" + name + "' of " + op + " is missing");
    if (attr.type == AP::GRAPH && !found->has_g())
      throw Error("required attribute '" + name + "' of " + op + " holds no graph");
  }
}

void check_nodes(const onnx::GraphProto& g, const std::map<std::string, int64_t>& versions) {
  if (g.sparse_initializer_size())
    throw Error("sparse initializer '" + g.sparse_initializer(0).values().name() +
                "': sparse tensors are not supported");
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    const std::string domain = is_default_domain(n.domain()) ? "" : n.domain();
    auto v = versions.find(domain);
    const onnx::OpSchema* s =
        v == versions.end() ? nullptr : onnx::OpSchemaRegistry::Schema(n.op_type(), int(v->second), domain);
    with_error_context(node_where(n, k), [&] {
      if (s) check_node(n, *s);
      for (const auto& a : n.attribute()) {
        if (a.has_g()) with_error_context("attribute '" + a.name() + "'", [&] { check_nodes(a.g(), versions); });
        for (const auto& sub : a.graphs())
          with_error_context("attribute '" + a.name() + "'", [&] { check_nodes(sub, versions); });
      }
    });
  }
}

}  // namespace

void for_each_tensor(onnx::GraphProto& g, const std::function<void(TP&, const std::string&)>& f) {
  for (auto& t : *g.mutable_initializer()) f(t, "tensor '" + t.name() + "'");
  for (int k = 0; k < g.node_size(); ++k) {
    auto* n = g.mutable_node(k);
    for (auto& a : *n->mutable_attribute()) {
      const std::string where = node_where(*n, k) + " attribute '" + a.name() + "'";
      if (a.has_t()) f(*a.mutable_t(), where);
      for (auto& t : *a.mutable_tensors()) f(t, where);
      if (a.has_g()) for_each_tensor(*a.mutable_g(), f);
      for (auto& sub : *a.mutable_graphs()) for_each_tensor(sub, f);
    }
  }
}

Size tensor_element_count(const TP& t) {
  Size n = Size::of(1);
  for (int k = 0; k < t.dims_size(); ++k) {
    if (t.dims(k) < 0) throw Error("dimension " + std::to_string(k) + " is negative (" + std::to_string(t.dims(k)) + ")");
    n *= Size::of(t.dims(k));
  }
  return n;
}

void check_tensor_payload(const TP& t) {
  const int32_t type = t.data_type();
  if (type == TP::UNDEFINED || !onnx::TensorProto_DataType_IsValid(type))
    throw Error("data type " + onnx_type_name(type) + " is not an ONNX element type");
  if (t.data_location() == TP::EXTERNAL) throw Error("external data was not loaded");
  const Size n = tensor_element_count(t);
  const bool complex = type == TP::COMPLEX64 || type == TP::COMPLEX128;
  if (t.has_raw_data()) {
    if (type == TP::STRING) throw Error("a STRING tensor cannot use raw_data");
    const uint64_t esize = complex ? (type == TP::COMPLEX64 ? 8 : 16) : onnx_element_bytes(type);
    if (esize == 0) throw Error("data type " + onnx_type_name(type) + " cannot use raw_data");
    const Size want = n * Size::of_unsigned(esize);
    if (t.raw_data().size() != want.value())
      throw Error("raw_data holds " + std::to_string(t.raw_data().size()) + " bytes, dims " +
                  std::to_string(n.value()) + " x " + onnx_type_name(type) + " need " + std::to_string(want.value()));
    return;
  }
  int64_t have = 0;
  const char* field = "";
  switch (type) {
    case TP::FLOAT: have = t.float_data_size(), field = "float_data"; break;
    case TP::COMPLEX64: have = t.float_data_size() / 2, field = "float_data (pairs)"; break;
    case TP::DOUBLE: have = t.double_data_size(), field = "double_data"; break;
    case TP::COMPLEX128: have = t.double_data_size() / 2, field = "double_data (pairs)"; break;
    case TP::INT64: have = t.int64_data_size(), field = "int64_data"; break;
    case TP::UINT32:
    case TP::UINT64: have = t.uint64_data_size(), field = "uint64_data"; break;
    case TP::STRING: have = t.string_data_size(), field = "string_data"; break;
    default: have = t.int32_data_size(), field = "int32_data"; break;  // INT8..UINT16, INT32, BOOL, FLOAT16, BFLOAT16
  }
  if (uint64_t(have) != n.value())
    throw Error(std::string(field) + " holds " + std::to_string(have) + " values, dims say " + std::to_string(n.value()));
}

void check_model_structure(onnx::ModelProto& m, const std::map<std::string, int64_t>& versions) {
  for_each_tensor(*m.mutable_graph(), [](TP& t, const std::string& where) {
    with_error_context(where, [&] { check_tensor_payload(t); });
  });
  check_nodes(m.graph(), versions);
}

}  // namespace photon::onnx_frontend

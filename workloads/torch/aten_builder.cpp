#include "workloads/torch/aten_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "base/error.h"

namespace photon::torch_frontend {

using json = nlohmann::json;

std::string dims_str(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> y(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    y[i] = da == 1 ? db : da;
  }
  return y;
}

std::string AtenBuilder::short_name() const {
  const size_t c = op_.name.find("::");
  return c == std::string::npos ? op_.name : op_.name.substr(c + 2);
}

const json* AtenBuilder::arg(const char* name) const {
  auto it = op_.args.find(name);
  return it == op_.args.end() ? nullptr : &*it;
}

bool AtenBuilder::has(const char* a) const {
  const json* v = arg(a);
  return v && !v->is_null();
}

bool AtenBuilder::is_tensor(const char* a) const {
  const json* v = arg(a);
  return v && v->is_object() && v->contains("tensor");
}

std::string AtenBuilder::in(const char* a) {
  const json* v = arg(a);
  if (!v) fail(fmt::format("missing argument '{}'", a));
  if (!v->is_object() || !v->contains("tensor")) fail(fmt::format("argument '{}' is not a tensor", a));
  return s_.trace.tensors.at((*v)["tensor"].get<size_t>()).name;
}

std::optional<std::string> AtenBuilder::opt_in(const char* a) {
  if (!has(a)) return std::nullopt;
  return in(a);
}

std::vector<std::string> AtenBuilder::in_list(const char* a) {
  const json* v = arg(a);
  if (!v || !v->is_object() || !v->contains("tensors")) fail(fmt::format("argument '{}' is not a list of tensors", a));
  std::vector<std::string> r;
  for (const auto& e : (*v)["tensors"])
    if (!e.is_null()) r.push_back(s_.trace.tensors.at(e.get<size_t>()).name);
  return r;
}

int64_t AtenBuilder::integer(const char* a, std::optional<int64_t> dflt) const {
  const json* v = arg(a);
  if (!v || v->is_null()) {
    if (dflt) return *dflt;
    fail(fmt::format("missing argument '{}'", a));
  }
  if (v->is_boolean()) return v->get<bool>() ? 1 : 0;
  if (!v->is_number_integer()) fail(fmt::format("argument '{}' is not an integer", a));
  return v->get<int64_t>();
}

double AtenBuilder::number(const char* a, std::optional<double> dflt) const {
  const json* v = arg(a);
  if (!v || v->is_null()) {
    if (dflt) return *dflt;
    fail(fmt::format("missing argument '{}'", a));
  }
  if (v->is_boolean()) return v->get<bool>() ? 1.0 : 0.0;
  if (v->is_number()) return v->get<double>();
  if (v->is_object() && v->contains("float") && (*v)["float"].is_string()) {
    const std::string f = (*v)["float"].get<std::string>();
    if (f == "inf") return std::numeric_limits<double>::infinity();
    if (f == "-inf") return -std::numeric_limits<double>::infinity();
    if (f == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  fail(fmt::format("argument '{}' is not a number", a));
}

bool AtenBuilder::boolean(const char* a, std::optional<bool> dflt) const {
  const json* v = arg(a);
  if (!v || v->is_null()) {
    if (dflt) return *dflt;
    fail(fmt::format("missing argument '{}'", a));
  }
  if (!v->is_boolean()) fail(fmt::format("argument '{}' is not a bool", a));
  return v->get<bool>();
}

std::string AtenBuilder::str(const char* a, std::optional<std::string> dflt) const {
  const json* v = arg(a);
  if (!v || v->is_null()) {
    if (dflt) return *dflt;
    fail(fmt::format("missing argument '{}'", a));
  }
  if (!v->is_string()) fail(fmt::format("argument '{}' is not a string", a));
  return v->get<std::string>();
}

std::vector<int64_t> AtenBuilder::ints(const char* a, std::optional<std::vector<int64_t>> dflt) const {
  const json* v = arg(a);
  if (!v || v->is_null()) {
    if (dflt) return *dflt;
    fail(fmt::format("missing argument '{}'", a));
  }
  if (v->is_number_integer()) return {v->get<int64_t>()};  // int[1] given as one int
  if (!v->is_array()) fail(fmt::format("argument '{}' is not a list of integers", a));
  std::vector<int64_t> r;
  for (const auto& e : *v) {
    if (!e.is_number_integer()) fail(fmt::format("argument '{}' is not a list of integers", a));
    r.push_back(e.get<int64_t>());
  }
  return r;
}

std::vector<bool> AtenBuilder::bools(const char* a) const {
  const json* v = arg(a);
  if (!v || !v->is_array()) fail(fmt::format("argument '{}' is not a list of bools", a));
  std::vector<bool> r;
  for (const auto& e : *v) {
    if (!e.is_boolean()) fail(fmt::format("argument '{}' is not a list of bools", a));
    r.push_back(e.get<bool>());
  }
  return r;
}

std::string AtenBuilder::tensor_or_scalar(const char* a) {
  if (is_tensor(a)) return in(a);
  return scalar_const(number(a));
}

bool AtenBuilder::out_used(size_t i) const {
  if (i >= op_.outputs.size() || op_.outputs[i] < 0) return false;
  return s_.uses.at(static_cast<size_t>(op_.outputs[i])) > 0;
}

std::string AtenBuilder::out(size_t i, bool keep_unused) {
  if (i >= op_.outputs.size()) fail(fmt::format("the trace lists {} outputs, the op has more", op_.outputs.size()));
  if (op_.outputs[i] < 0) {
    if (i == 0) fail("output 0 is None");
    return "";
  }
  if (i > 0 && !keep_unused && !out_used(i)) return "";
  return s_.trace.tensors.at(static_cast<size_t>(op_.outputs[i])).name;
}

const TensorInfo& AtenBuilder::out_info(size_t i) {
  if (i >= op_.outputs.size() || op_.outputs[i] < 0) fail(fmt::format("output {} is missing", i));
  return info(s_.trace.tensors.at(static_cast<size_t>(op_.outputs[i])).name);
}

const TensorInfo& AtenBuilder::info(const std::string& name) const {
  auto it = s_.graph.tensors.find(name);
  if (it == s_.graph.tensors.end()) fail(fmt::format("unknown tensor '{}'", name));
  return it->second;
}

std::string AtenBuilder::tmp(const std::vector<int64_t>& shape, DType dt) {
  TensorInfo t;
  t.name = fmt::format("{}:t{}", node_name(), tmp_count_++);
  t.dtype = dt;
  t.shape = shape;
  const std::string n = t.name;
  s_.graph.tensors[n] = std::move(t);
  return n;
}

std::string AtenBuilder::ints_const(const std::vector<int64_t>& v) {
  std::string n = tmp({static_cast<int64_t>(v.size())}, DType::Int64);
  TensorInfo& t = s_.graph.tensors[n];
  t.is_constant = true;
  t.int_data = v;
  t.data.assign(v.begin(), v.end());
  return n;
}

std::string AtenBuilder::scalar_const(double v) {
  std::string n = tmp({}, DType::Float32);
  TensorInfo& t = s_.graph.tensors[n];
  t.is_constant = true;
  t.data = {static_cast<float>(v)};
  return n;
}

std::string AtenBuilder::derived_const(const std::vector<int64_t>& shape, const std::string& what) {
  TensorInfo t;
  t.name = fmt::format("{}:{}", node_name(), what);
  t.shape = shape;
  t.is_constant = true;
  const std::string n = t.name;
  s_.graph.tensors[n] = std::move(t);
  return n;
}

void AtenBuilder::make_constant(const std::string& name, std::optional<double> splat) {
  auto it = s_.graph.tensors.find(name);
  if (it == s_.graph.tensors.end()) fail(fmt::format("unknown tensor '{}'", name));
  TensorInfo& t = it->second;
  t.is_constant = true;
  if (!splat || t.dtype != DType::Float32) return;
  if (t.numel() > 1) {
    t.splat = true;
    t.splat_value = static_cast<float>(*splat);
  } else if (t.numel() == 1) {
    t.data = {static_cast<float>(*splat)};
  }
}

std::string AtenBuilder::node_name() const {
  std::string n = op_.module.empty() ? "" : op_.module + "/";
  n += fmt::format("{}#{}", short_name(), op_.index);
  if (emitted_ > 0) n += fmt::format(":{}", emitted_);
  return n;
}

void AtenBuilder::node(const std::string& op_type, std::vector<std::string> inputs, std::vector<std::string> outputs,
                       std::map<std::string, AttrValue> attrs) {
  Node n;
  n.name = node_name();
  n.op_type = op_type;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  for (const auto& o : n.outputs)
    if (!o.empty()) s_.producer[o] = s_.graph.nodes.size();
  s_.graph.nodes.push_back(std::move(n));
  ++emitted_;
}

void AtenBuilder::host_part(std::vector<std::string> inputs, std::vector<std::string> outputs,
                            const std::string& reason) {
  s_.host_reasons[node_name()] = reason;
  node(op_.name, std::move(inputs), std::move(outputs));
}

void AtenBuilder::host_node(const std::string& reason) {
  std::vector<std::string> ins, outs;
  for (const auto& [name, v] : op_.args.items()) {
    if (!v.is_object()) continue;
    if (v.contains("tensor")) ins.push_back(s_.trace.tensors.at(v["tensor"].get<size_t>()).name);
    if (v.contains("tensors"))
      for (const auto& e : v["tensors"])
        if (!e.is_null()) ins.push_back(s_.trace.tensors.at(e.get<size_t>()).name);
  }
  for (size_t i = 0; i < op_.outputs.size(); ++i)
    if (op_.outputs[i] >= 0) outs.push_back(out(i, /*keep_unused=*/i == 0));
  while (!outs.empty() && outs.back().empty()) outs.pop_back();
  host_part(std::move(ins), std::move(outs), reason);
}

void AtenBuilder::fail(const std::string& msg) const { throw Error(msg); }

void AtenBuilder::expect_out_shape(size_t i, const std::vector<int64_t>& expected, const std::string& what) {
  const TensorInfo& t = out_info(i);
  if (t.shape != expected)
    fail(fmt::format("inconsistent shapes: {} gives {}, output {} is {}", what, dims_str(expected), i,
                     dims_str(t.shape)));
}

}  // namespace photon::torch_frontend

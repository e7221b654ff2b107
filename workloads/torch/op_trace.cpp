#include "workloads/torch/op_trace.h"

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"
#include "base/input_file.h"

namespace photon {
namespace {

using json = nlohmann::json;

// Limits as in the ONNX frontend: fewer than 2^40 elements per tensor (4 TiB of fp32), and
// constants small enough to be literal values of the trace.
constexpr int64_t kMaxElements = int64_t{1} << 40;
constexpr int64_t kMaxConstantElements = 65536;

// torch dtype names (str(torch.float32) without "torch.") a trace may use.
const std::set<std::string>& known_dtypes() {
  static const std::set<std::string> s = {"float32", "float64", "float16", "bfloat16", "int64",
                                          "int32",   "int16",   "int8",    "uint8",    "bool",
                                          "complex64", "complex128", "complex32"};
  return s;
}

const json& field(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw Error(fmt::format("{}: missing \"{}\"", where, key));
  return *it;
}

int64_t as_int(const json& v, const std::string& what) {
  if (!v.is_number_integer()) throw Error(fmt::format("{} is not an integer", what));
  return v.get<int64_t>();
}

std::string as_string(const json& v, const std::string& what) {
  if (!v.is_string()) throw Error(fmt::format("{} is not a string", what));
  return v.get<std::string>();
}

// An optional string field of an object: `dflt` when absent, an Error naming it when it is
// present but not a string (never the JSON library's type error).
std::string opt_string(const json& obj, const char* key, const std::string& dflt, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) return dflt;
  if (!it->is_string()) throw Error(fmt::format("{}\"{}\" is not a string (it is {})", where, key, it->type_name()));
  return it->get<std::string>();
}

std::vector<int64_t> as_ids(const json& v, const std::string& what, size_t count) {
  if (!v.is_array()) throw Error(fmt::format("{} is not a list of tensor ids", what));
  std::vector<int64_t> ids;
  for (const auto& e : v) {
    const int64_t id = as_int(e, what + " entry");
    if (id < 0 || static_cast<size_t>(id) >= count)
      throw Error(fmt::format("{} names tensor {}, the trace has tensors 0..{}", what, id, count - 1));
    ids.push_back(id);
  }
  return ids;
}

// {"float": "inf" | "-inf" | "nan"}: the trace's spelling of a non-finite number (JSON has none).
bool non_finite(const json& v, double* out) {
  if (!v.is_object() || v.size() != 1 || !v.contains("float") || !v["float"].is_string()) return false;
  const std::string f = v["float"].get<std::string>();
  if (f == "inf") *out = std::numeric_limits<double>::infinity();
  else if (f == "-inf") *out = -std::numeric_limits<double>::infinity();
  else if (f == "nan") *out = std::numeric_limits<double>::quiet_NaN();
  else return false;
  return true;
}

TraceTensor read_tensor(const json& t, size_t id) {
  const std::string where = fmt::format("tensor {}", id);
  if (!t.is_object()) throw Error(where + " is not an object");
  TraceTensor r;
  const std::string kind = as_string(field(t, "kind", where), where + " kind");
  if (kind == "input") r.kind = TraceTensor::Kind::Input;
  else if (kind == "param") r.kind = TraceTensor::Kind::Param;
  else if (kind == "constant") r.kind = TraceTensor::Kind::Constant;
  else if (kind == "value") r.kind = TraceTensor::Kind::Value;
  else throw Error(fmt::format("{}: kind '{}' is not input, param, constant or value", where, kind));
  r.name = t.contains("name") ? as_string(t["name"], where + " name") : fmt::format("%{}", id);
  if (r.name.empty()) throw Error(where + ": empty name");
  r.dtype = as_string(field(t, "dtype", where), where + " dtype");
  if (!known_dtypes().count(r.dtype)) throw Error(fmt::format("{}: unknown dtype '{}'", where, r.dtype));
  const json& shape = field(t, "shape", where);
  if (!shape.is_array()) throw Error(where + ": shape is not a list");
  for (const auto& d : shape) {
    const int64_t v = as_int(d, where + " shape entry");
    if (v < 0 || v >= kMaxElements) throw Error(fmt::format("{}: size {} is out of range 0..2^40-1", where, v));
    r.shape.push_back(v);
  }
  int64_t n = 1;
  for (int64_t v : r.shape) {
    if (v == 0) {
      n = 0;
      break;
    }
    if (n >= (kMaxElements + v - 1) / v) throw Error(fmt::format("{}: 2^40 or more elements", where));
    n *= v;
  }
  if (r.kind == TraceTensor::Kind::Constant) {
    const json& data = field(t, "data", where);
    if (!data.is_array()) throw Error(where + ": data is not a list");
    if (n > kMaxConstantElements)
      throw Error(fmt::format("{}: a constant of {} elements (at most {} are written as values)", where, n,
                              kMaxConstantElements));
    if (static_cast<int64_t>(data.size()) != n)
      throw Error(fmt::format("{}: {} data values for {} elements", where, data.size(), n));
    for (const auto& v : data) {
      if (v.is_boolean()) r.data.push_back(v.get<bool>() ? 1.0 : 0.0);
      else if (v.is_number()) r.data.push_back(v.get<double>());
      else if (double f = 0; non_finite(v, &f)) r.data.push_back(f);
      else throw Error(where + ": a data value is not a number (nor {\"float\": \"inf\" | \"-inf\" | \"nan\"})");
    }
  }
  return r;
}

// Tensor ids referenced by an argument value: {"tensor": id} or {"tensors": [id or null, ...]}.
void collect_refs(const json& v, std::vector<int64_t>* ids) {
  if (!v.is_object()) return;
  if (v.contains("tensor")) ids->push_back(v["tensor"].is_number_integer() ? v["tensor"].get<int64_t>() : -2);
  if (v.contains("tensors")) {
    if (!v["tensors"].is_array()) {
      ids->push_back(-2);
      return;
    }
    for (const auto& e : v["tensors"])
      if (!e.is_null()) ids->push_back(e.is_number_integer() ? e.get<int64_t>() : -2);
  }
}

TraceOp read_op(const json& o, size_t index, size_t tensor_count) {
  TraceOp r;
  r.index = index;
  if (!o.is_object()) throw Error(fmt::format("op {} is not an object", index));
  r.op = as_string(field(o, "op", fmt::format("op {}", index)), fmt::format("op {} name", index));
  r.module = opt_string(o, "module", "", fmt::format("op {}: ", index));
  const std::string ctx = op_context(r);
  return with_error_context(ctx, [&] {
    const size_t colons = r.op.find("::");
    if (colons == std::string::npos || colons == 0 || colons + 2 >= r.op.size())
      throw Error("op name is not of the form namespace::name.overload");
    const size_t dot = r.op.find('.', colons + 2);
    r.name = r.op.substr(0, dot);
    r.overload = dot == std::string::npos ? "default" : r.op.substr(dot + 1);
    if (r.overload.empty()) throw Error("empty overload name");
    r.args = o.contains("args") ? o["args"] : json::object();
    if (!r.args.is_object()) throw Error("args is not an object");
    const json& outs = field(o, "outputs", "op");
    if (!outs.is_array()) throw Error("outputs is not a list");
    for (const auto& e : outs) {
      if (e.is_null()) {
        r.outputs.push_back(-1);
        continue;
      }
      const int64_t id = as_int(e, "output");
      if (id < 0 || static_cast<size_t>(id) >= tensor_count)
        throw Error(fmt::format("output names tensor {}, the trace has tensors 0..{}", id, tensor_count - 1));
      r.outputs.push_back(id);
    }
    r.alias_of.assign(r.outputs.size(), "");
    r.writes.assign(r.outputs.size(), false);
    if (o.contains("aliases")) {
      const json& al = o["aliases"];
      if (!al.is_array() || al.size() != r.outputs.size())
        throw Error(fmt::format("aliases must list one entry per output ({})", r.outputs.size()));
      for (size_t i = 0; i < al.size(); ++i) {
        if (al[i].is_null()) continue;
        if (!al[i].is_object() || !al[i].contains("arg") || !al[i]["arg"].is_string())
          throw Error(fmt::format("aliases entry {} is not {{\"arg\": NAME, \"write\": BOOL}}", i));
        r.alias_of[i] = al[i]["arg"].get<std::string>();
        if (!r.args.contains(r.alias_of[i]))
          throw Error(fmt::format("output {} aliases argument '{}', which the op does not have", i, r.alias_of[i]));
        if (al[i].contains("write") && !al[i]["write"].is_boolean())
          throw Error(fmt::format("aliases entry {}: \"write\" is not a bool", i));
        r.writes[i] = al[i].value("write", false);
      }
    }
    return r;
  });
}

}  // namespace

std::string op_context(const TraceOp& op) {
  std::string s = fmt::format("op {} '{}'", op.index, op.op);
  if (!op.module.empty()) s += fmt::format(" (module '{}')", op.module);
  return s;
}

OpTrace read_op_trace(const std::string& path) {
  check_regular_file(path);  // a FIFO or a device would block or never end
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.empty()) throw Error("empty file, not an op trace");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    const bool at_end = e.byte >= text.size();
    throw Error(fmt::format("not a {} JSON document: parse error at byte {}{}", at_end ? "complete" : "valid", e.byte,
                            at_end ? " (the file ends early: truncated?)" : ""));
  }
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
      j["format"].get<std::string>() != "photon-op-trace")
    throw Error("not an op trace (no \"format\": \"photon-op-trace\")");
  OpTrace t;
  const json& version = field(j, "version", "trace");
  if (!version.is_number_integer()) throw Error(fmt::format("\"version\" is not an integer (it is {})", version.type_name()));
  const int64_t v = version.get<int64_t>();
  if (v < 1 || v > kOpTraceVersion)
    throw Error(fmt::format("op trace version {} is not supported (this reader: 1..{})", v, kOpTraceVersion));
  t.version = static_cast<int>(v);
  t.producer = opt_string(j, "producer", "", "");
  t.model = opt_string(j, "model", "", "");
  t.mode = opt_string(j, "mode", "inference", "");
  if (t.mode != "inference" && t.mode != "training")
    throw Error(fmt::format("mode '{}' is not inference or training", t.mode));
  const json& tensors = field(j, "tensors", "trace");
  if (!tensors.is_array()) throw Error("\"tensors\" is not a list");
  std::set<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    t.tensors.push_back(read_tensor(tensors[i], i));
    if (!names.insert(t.tensors.back().name).second)
      throw Error(fmt::format("tensor {}: name '{}' is used by two tensors", i, t.tensors.back().name));
  }
  const size_t count = t.tensors.size();
  t.inputs = as_ids(field(j, "inputs", "trace"), "inputs", count);
  for (int64_t id : t.inputs)
    if (t.tensors[id].kind != TraceTensor::Kind::Input)
      throw Error(fmt::format("inputs: tensor {} ('{}') is not of kind input", id, t.tensors[id].name));
  const json& ops = field(j, "ops", "trace");
  if (!ops.is_array()) throw Error("\"ops\" is not a list");
  if (ops.empty()) throw Error("the trace has no ops");
  // SSA: a value is produced by exactly one op before any op reads it.
  std::vector<bool> defined(count, false);
  for (size_t i = 0; i < count; ++i) defined[i] = t.tensors[i].kind != TraceTensor::Kind::Value;
  for (size_t k = 0; k < ops.size(); ++k) {
    TraceOp op = read_op(ops[k], k, count);
    with_error_context(op_context(op), [&] {
      std::vector<int64_t> refs;
      for (const auto& [name, v] : op.args.items()) {
        refs.clear();
        collect_refs(v, &refs);
        for (int64_t id : refs) {
          if (id < 0 || static_cast<size_t>(id) >= count)
            throw Error(fmt::format("argument '{}' names tensor {}, not one of the trace's tensors", name, id));
          if (!defined[id])
            throw Error(fmt::format("argument '{}' reads tensor {} ('{}') before any op produces it", name, id,
                                    t.tensors[id].name));
        }
      }
      for (int64_t id : op.outputs) {
        if (id < 0) continue;
        if (t.tensors[id].kind != TraceTensor::Kind::Value)
          throw Error(fmt::format("output tensor {} ('{}') is not of kind value", id, t.tensors[id].name));
        if (defined[id]) throw Error(fmt::format("output tensor {} ('{}') is produced twice", id, t.tensors[id].name));
        defined[id] = true;
      }
    });
    t.ops.push_back(std::move(op));
  }
  t.outputs = as_ids(field(j, "outputs", "trace"), "outputs", count);
  if (t.outputs.empty()) throw Error("the trace has no outputs");
  for (int64_t id : t.outputs)
    if (!defined[id]) throw Error(fmt::format("output tensor {} ('{}') is produced by no op", id, t.tensors[id].name));
  return t;
}

}  // namespace photon

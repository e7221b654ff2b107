// Op trace files (.ptrace): the ATen ops a PyTorch program ran, as written by photon_torch.trace
// and photon_torch.compile. docs/torch.md specifies the format (JSON, "format":
// "photon-op-trace", "version": 1). This file reads and checks one into plain data; the torch
// frontend (torch_frontend.h) turns it into the operator graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace photon {

/// Newest op-trace format version this reader understands (docs/torch.md).
constexpr int kOpTraceVersion = 1;

/// One tensor value of a trace. Values are in SSA form: an in-place op's result is a new value.
struct TraceTensor {
  enum class Kind { Input, Param, Constant, Value };
  Kind kind = Kind::Value;
  std::string name;              ///< graph tensor name: the trace's "name", else "%<id>"
  std::vector<int64_t> shape;    ///< sizes, outermost first (elements)
  std::string dtype;             ///< torch dtype name without "torch.": "float32", "int64", ...
  std::vector<double> data;      ///< Kind::Constant: numel values, row-major
};

/// One ATen op call of a trace.
struct TraceOp {
  size_t index = 0;              ///< position in the trace's "ops"
  std::string op;                ///< full name, "aten::convolution.default"
  std::string name;              ///< without the overload, "aten::convolution"
  std::string overload;          ///< "default", "Tensor", ...
  std::string module;            ///< nn.Module path ("layer1.0.conv1"), "" if none
  nlohmann::json args;           ///< schema argument name -> value (docs/torch.md "Arguments")
  std::vector<int64_t> outputs;  ///< tensor ids, -1 for a None result
  std::vector<std::string> alias_of;  ///< per output: argument it aliases (view or in-place), or ""
  std::vector<bool> writes;      ///< per output: the aliased argument is written in place
};

/// A whole trace, checked: header, every tensor, every op's structure and the SSA order.
struct OpTrace {
  int version = 0;
  std::string producer;          ///< "photon_torch 0.1.0, torch 1.13.0"
  std::string model;             ///< model class name
  std::string mode;              ///< "inference" or "training"
  std::vector<TraceTensor> tensors;  ///< by id
  std::vector<int64_t> inputs, outputs;  ///< tensor ids
  std::vector<TraceOp> ops;      ///< in execution order
};

/// Reads and checks `path`. Throws photon::Error (the file is added as context by the caller)
/// naming the problem: unreadable or empty file, not JSON or truncated JSON ("at byte N"), wrong
/// "format", a version newer than kOpTraceVersion, a malformed tensor (unknown dtype, negative
/// size, 2^40 or more elements, constant data of the wrong length), and per op (context
/// op_context()): a malformed name, a reference to an unknown tensor id, a value read before
/// an earlier op produced it or produced twice, an output that is not a value. Shapes and
/// argument types are checked by the frontend, which knows each op's semantics.
OpTrace read_op_trace(const std::string& path);

/// Error context of an op: "op 12 'aten::convolution.default' (module 'layer1.0.conv1')".
std::string op_context(const TraceOp& op);

}  // namespace photon

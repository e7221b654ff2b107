// Internal to the torch frontend: the context in which one ATen op of a trace emits its graph
// nodes (aten_table.cpp holds one handler per ATen op; torch_frontend.cpp drives them).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/graph/graph.h"
#include "workloads/torch/op_trace.h"

namespace photon::torch_frontend {

/// Graph state shared by all ops of one trace.
struct GraphState {
  const OpTrace& trace;
  Graph& graph;
  std::vector<int> uses;                    ///< per trace tensor id: ops that read it (+1 if graph output)
  std::map<std::string, size_t> producer;   ///< graph tensor name -> index of the node producing it
  std::map<std::string, std::string> conv_of;  ///< conv output name -> node name (BatchNorm folding)
  std::map<std::string, std::string> host_reasons;  ///< host node name -> why it has no device mapping
  /// Folded 2-D transposes of constants (t(weight) before addmm): result name -> the constant
  /// transposed, so that a GEMM can read the weight as stored (transB) instead.
  std::map<std::string, std::string> transpose_of;
};

/// Emission context of one trace op. Argument accessors throw Error naming the argument (the
/// caller adds the op as context); node() appends graph nodes named
/// "<module>/<op name>#<trace index>" (":k" for the k-th extra node of a decomposition).
class AtenBuilder {
 public:
  AtenBuilder(GraphState& s, const TraceOp& op) : s_(s), op_(op) {}

  const TraceOp& op() const { return op_; }
  /// Short op name without namespace and overload, e.g. "convolution".
  std::string short_name() const;

  // ---- arguments -------------------------------------------------------------------------
  bool has(const char* arg) const;                      ///< present and not null
  bool is_tensor(const char* arg) const;                ///< {"tensor": id}
  std::string in(const char* arg);                      ///< graph name of a tensor argument
  std::optional<std::string> opt_in(const char* arg);   ///< null -> nullopt
  std::vector<std::string> in_list(const char* arg);    ///< {"tensors": [...]} (nulls skipped)
  int64_t integer(const char* arg, std::optional<int64_t> dflt = std::nullopt) const;
  double number(const char* arg, std::optional<double> dflt = std::nullopt) const;  ///< int, float, inf
  bool boolean(const char* arg, std::optional<bool> dflt = std::nullopt) const;
  std::string str(const char* arg, std::optional<std::string> dflt = std::nullopt) const;
  std::vector<int64_t> ints(const char* arg, std::optional<std::vector<int64_t>> dflt = std::nullopt) const;
  std::vector<bool> bools(const char* arg) const;
  /// A Tensor-typed argument that may hold a Python number (torch passes wrapped scalars as
  /// numbers): the tensor's name, or a new one-element fp32 constant with the value.
  std::string tensor_or_scalar(const char* arg);

  // ---- outputs ---------------------------------------------------------------------------
  size_t num_outputs() const { return op_.outputs.size(); }
  /// Graph name of output i; "" if the trace gives None or nothing reads it (and `keep_unused`
  /// is false; output 0 is always kept).
  std::string out(size_t i, bool keep_unused = false);
  const TensorInfo& out_info(size_t i);
  bool out_used(size_t i) const;

  // ---- tensors ---------------------------------------------------------------------------
  const TensorInfo& info(const std::string& name) const;
  const std::vector<int64_t>& shape(const std::string& name) const { return info(name).shape; }
  /// A new intermediate tensor of the decomposition.
  std::string tmp(const std::vector<int64_t>& shape, DType dt = DType::Float32);
  /// A new 1-D int64 constant (shapes, axes, pads, split sizes).
  std::string ints_const(const std::vector<int64_t>& v);
  /// A new fp32 constant of one element (rank 0) holding v.
  std::string scalar_const(double v);
  /// A new constant tensor derived from constants (no data: values unknown to the trace).
  std::string derived_const(const std::vector<int64_t>& shape, const std::string& what);
  /// Marks `name` as a constant without data (a factory op's result).
  void make_constant(const std::string& name, std::optional<double> splat = std::nullopt);

  // ---- nodes -----------------------------------------------------------------------------
  void node(const std::string& op_type, std::vector<std::string> inputs, std::vector<std::string> outputs,
            std::map<std::string, AttrValue> attrs = {});
  /// Host node: op_type = the ATen op name (the lowering has no mapping; it becomes a host
  /// fallback) over every tensor argument and used output; `reason` is reported with it.
  void host_node(const std::string& reason);
  /// A host node over the given tensors (part of a decomposition), with its reason.
  void host_part(std::vector<std::string> inputs, std::vector<std::string> outputs, const std::string& reason);
  size_t nodes_emitted() const { return emitted_; }
  void set_note(std::string note) { note_ = std::move(note); }
  const std::string& note() const { return note_; }

  // ---- checks ----------------------------------------------------------------------------
  [[noreturn]] void fail(const std::string& msg) const;
  /// Error "inconsistent shapes: <what> gives [..], output i is [..]" unless equal.
  void expect_out_shape(size_t i, const std::vector<int64_t>& expected, const std::string& what);

  GraphState& state() { return s_; }

 private:
  const nlohmann::json* arg(const char* name) const;
  std::string node_name() const;
  GraphState& s_;
  const TraceOp& op_;
  size_t emitted_ = 0;
  int tmp_count_ = 0;
  std::string note_;
};

/// Handler of one ATen op: emits the op's graph nodes through the builder (or none, with a note,
/// when the op folds away).
using AtenHandler = void (*)(AtenBuilder&);

/// One row of the ATen op table.
struct AtenRow {
  const char* name;        ///< op name with namespace, "aten::convolution" (every overload)
  AtenHandler build;
  /// Pure data movement (views, transposes, slices, copies): when every tensor argument is a
  /// constant, the results are constants too and the op is folded (no device work), as the
  /// ONNX frontend folds a Transpose of a weight.
  bool movement;
};

/// The table (aten_table.cpp), sorted by name.
const std::vector<AtenRow>& aten_table();
/// Row of `name` ("aten::mm"), nullptr if the frontend has none.
const AtenRow* find_aten_row(const std::string& name);
/// True if `name` ("aten::cumsum") is an operator of the supported torch version
/// (aten_ops.txt, generated by scripts/gen_aten_registry.py).
bool is_aten_operator(const std::string& name);

/// Checks `op` against its ATen schema (aten_schemas.txt, torch 1.13): the overload exists, every
/// argument is one of the schema's and of its kind (tensor, list of tensors, integer(s),
/// number, bool(s), string; null only where the schema allows None), every argument without a
/// default is present, and the outputs are as many as the schema's results. Throws Error
/// naming the overload or the argument.
void check_schema(const TraceOp& op);

/// If the builder's op is a transpose of a 2-D tensor (t, transpose of axes 0 and 1, permute
/// [1, 0]) whose result has the transposed shape: the tensor transposed. Else nullopt.
std::optional<std::string> transposed_2d(AtenBuilder& b);

/// numpy broadcasting of two shapes; nullopt if they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
/// "[1,3,224,224]".
std::string dims_str(const std::vector<int64_t>& v);

}  // namespace photon::torch_frontend

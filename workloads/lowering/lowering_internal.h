// Internal pieces of the AI lowering shared by the per-op-family files (not a public API).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "isa/program.h"
#include "soc/platform_config.h"
#include "workloads/graph/graph.h"
#include "workloads/lowering/ai_lowering.h"
#include "workloads/lowering/memory_plan.h"
#include "workloads/lowering/onnx_ops.h"

namespace photon::lowering {

/// Thrown by an op lowering that cannot map a node: the node goes to `unsupported`.
struct Unsupported {
  std::string reason;
};

// Attribute access (independent of Graph's helpers).
int64_t attr_i(const Node& n, const std::string& k, int64_t dflt);
float attr_f(const Node& n, const std::string& k, float dflt);
std::string attr_s(const Node& n, const std::string& k, const std::string& dflt);
std::vector<int64_t> attr_is(const Node& n, const std::string& k, const std::vector<int64_t>& dflt);

/// Splat value of a ConstantOfShape tensor whose data is not materialised (TensorInfo::splat),
/// if the frontend provides the field and sets it.
std::optional<float> splat_of(const TensorInfo& t);
/// Constant fp32 value i of `t` (data or splat); nullopt if unknown.
std::optional<float> const_value(const TensorInfo& t, int64_t i);

/// Semaphore ids by role (kind, buffer slot, signalling queue, waiting queue, ordinal), shared by
/// the whole program so that every semaphore has exactly one signalling and one waiting queue.
using SemTable = std::map<std::tuple<int, int, int, int, int>, uint32_t>;

/// Per-op lowering context: emits commands with the op's tag into the program.
struct Ctx {
  const Graph& g;
  const PlatformConfig& cfg;
  LoweringResult& res;
  HbmPlan& plan;
  const Node* node = nullptr;
  const OnnxOpRow* row = nullptr;  ///< the node's row of the ONNX op table
  uint32_t tag = pcs::kNoTag;
  uint64_t spm_base = 0;   ///< data-NoC address of scratchpad offset 0
  uint64_t spm_bytes = 0;  ///< scratchpad capacity, bytes
  SemTable* sems = nullptr;

  const TensorInfo& t(const std::string& name) const;
  uint64_t addr(const std::string& name) const;
  /// Data-NoC address of scratchpad offset `off`.
  uint64_t spm(uint32_t off) const { return spm_base + off; }
  void emit(pcs::Command c) { res.program.commands.push_back(std::move(c)); }
  [[noreturn]] void fail(const std::string& msg) const;  ///< Error naming the node
};

/// 1-D copy of `bytes`.
pcs::DmaCopy dma1(uint64_t src, uint64_t dst, uint64_t bytes);
/// 2-D copy: rows x row_bytes with the given strides (bytes).
pcs::DmaCopy dma2(uint64_t src, uint64_t dst, uint64_t row_bytes, uint32_t rows, uint64_t src_stride,
                  uint64_t dst_stride);

/// One tile of a double-buffered pipeline: DMA loads into the tile's scratchpad buffers, compute
/// commands (GEMM and/or vector queue, in order), DMA stores out of the buffers.
struct Step {
  std::vector<pcs::DmaCopy> loads;
  std::vector<std::pair<pcs::Queue, pcs::Command>> compute;
  std::vector<pcs::DmaCopy> stores;
};

/// Emits steps with the ping/pong protocol of docs/lowering.md: step i uses buffer set i % 2;
/// loads(i+1) are issued before compute(i) so they overlap; compute(i) waits on `full`, signals
/// `done`; the DMA queue waits on `done` before storing step i and before loading step i+2 into
/// the same buffers. Every Signal precedes its Wait in program order and every semaphore is back
/// at zero when finish() returns. Semaphore ids come from Ctx::sems: one id per role for the whole
/// program, so each semaphore has one signalling and one waiting queue (single producer, single
/// consumer): the k-th Wait can only be satisfied by the k-th Signal.
class Pipeline {
 public:
  explicit Pipeline(Ctx& c);
  void push(Step s);
  void finish();
  uint64_t steps() const { return steps_; }

 private:
  uint32_t sem(int kind, int slot, int from, int to, int ordinal);
  void flush_pending();
  Ctx& c_;
  std::optional<Step> pending_;
  int pending_slot_ = 0;
  uint64_t steps_ = 0;
};

/// Checks node `n` before lowering; throws Error naming the problem (the caller adds the node):
/// any input/output of DType::Other (string, complex, ...); for the sliding-window ops
/// (is_window_op(): Conv, ConvTranspose, MaxPool, AveragePool, LpPool) the attribute ranges of the
/// ONNX operator definitions (strides, dilations, kernel_shape >= 1, pads >= 0, one entry per
/// spatial axis, group >= 1 dividing C and, for Conv, M, with W's channels = C / group) and that
/// the dilated kernel (k - 1) * d + 1 fits the padded input (explicit pads or VALID; SAME_* pads
/// always fit); then the op's own OnnxOpRow::validate, if any.
void validate_node(const Node& n, const Graph& g);
/// Reshape: the element counts of input and output agree (ONNX specification, "Reshape"), or the
/// view would reach past the input tensor.
void validate_reshape(const Node& n, const Graph& g);

// View predicates of the ONNX op table (memory_plan.cpp): true when the node's output can share its
// input's HBM address. The node has an input 0 and an output 0 (is_view_node() checks first).
bool view_always(const Node& n, const Graph& g);
/// Dropout: a view unless the graph reads its optional mask output.
bool view_dropout(const Node& n, const Graph& g);
/// Cast: a view from fp32 to fp32 only.
bool view_cast(const Node& n, const Graph& g);

// Op-family entry points, named by the ONNX op table. Each emits the node's commands and returns
// the tiling detail string, or throws Unsupported / Error.
std::string lower_conv(Ctx& c);
std::string lower_gemm(Ctx& c);
std::string lower_matmul(Ctx& c);
std::string lower_unary(Ctx& c);       // y = row kernel (x)
std::string lower_gelu(Ctx& c);        // Gelu approximate=none, then as lower_unary
std::string lower_leaky_relu(Ctx& c);  // kLeakyRelu with alpha
std::string lower_clip(Ctx& c);        // kClip with attribute or constant-input bounds
std::string lower_binary(Ctx& c);      // binary and n-ary with broadcasting, row kernel
std::string lower_mean(Ctx& c);        // as lower_binary, then scaled by 1 / inputs
std::string lower_batchnorm(Ctx& c);
std::string lower_softmax(Ctx& c);
std::string lower_layernorm(Ctx& c);
std::string lower_reduce(Ctx& c);       // ReduceSum/Mean/Max over trailing axes, row kernel
std::string lower_global_pool(Ctx& c);  // GlobalAveragePool, GlobalMaxPool as row reductions
std::string lower_pool(Ctx& c);         // MaxPool, AveragePool, row kernel
std::string lower_lrn(Ctx& c);
std::string lower_transpose(Ctx& c);
std::string lower_concat(Ctx& c);
std::string lower_split(Ctx& c);
std::string lower_slice(Ctx& c);
std::string lower_gather(Ctx& c);
std::string lower_pad(Ctx& c);
std::string lower_expand(Ctx& c);

/// Row-major strides (elements) of `shape`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape);
/// Copies the box `count` (per axis) of a strided fp32 source to a strided destination in HBM,
/// staged through the scratchpad (DMA only). Axes are merged where possible.
void copy_box(Ctx& c, Pipeline& p, uint64_t src, const std::vector<int64_t>& src_strides, uint64_t dst,
              const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& count);

std::string fmt_bytes(uint64_t b);

}  // namespace photon::lowering

// AI lowering: a pure function from an operator graph (workloads/graph/graph.h) to a command
// stream (isa/program.h). docs/lowering.md describes every op's mapping, the tiling,
// the scratchpad double buffering and its semaphore protocol, and the fallback policy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/program.h"
#include "soc/platform_config.h"
#include "workloads/graph/graph.h"

namespace photon::lowering {

/// Host-fallback cost per element touched (inputs + outputs), ns. Order of magnitude of one
/// scalar host core streaming fp32 data through an unvectorised loop (~1 G element-ops/s), plus
/// the PCIe-class round trip being amortised over large tensors; an estimate, not a measurement.
constexpr double kHostNsPerElement = 1.0;
/// Fixed host-fallback cost per node (synchronisation with the device, launch), ns.
constexpr double kHostFixedNs = 10000.0;

/// A node the lowering does not map to the device.
struct Fallback {
  std::string op;           ///< ONNX op type
  std::string node;         ///< node name
  std::string reason;       ///< why it is not lowered
  double host_cost_ns = 0;  ///< kHostFixedNs + kHostNsPerElement * (input + output elements)
};

/// HBM range to fill with one fp32 value before the run (ConstantOfShape weights whose data is not
/// materialised; a segment would be as big as the tensor).
struct SplatFill {
  std::string tensor;
  uint64_t address = 0;  ///< data-NoC address
  uint64_t bytes = 0;
  float value = 0;
};

struct LoweringResult {
  pcs::Program program;
  std::map<std::string, uint64_t> tensor_address;  ///< data-NoC address of every placed tensor
  std::vector<Fallback> unsupported;
  std::vector<SplatFill> splat_fills;
  /// Coverage: nodes by outcome. lowered = device commands; free = views/no-ops (no commands);
  /// folded = every output constant (frontend folded it); fallback = in `unsupported`.
  int nodes_total = 0, nodes_lowered = 0, nodes_free = 0, nodes_folded = 0, nodes_fallback = 0;
  std::map<std::string, int> lowered_by_op;   ///< op type -> nodes lowered (device or free)
  std::map<std::string, int> fallback_by_op;  ///< op type -> nodes in `unsupported`
  /// False when a fallback node or a constant without data makes functional-mode outputs invalid
  /// (the device does not execute fallback nodes; their outputs stay unwritten in HBM).
  bool functional_valid = true;
  /// Why functional_valid is false; also precision notes that leave it true: a DOUBLE or BFLOAT16
  /// tensor of the model (TensorInfo::source_type) is held and computed in fp32.
  std::vector<std::string> functional_notes;
  double host_fallback_ns = 0;  ///< sum of unsupported[].host_cost_ns
  uint64_t hbm_bytes = 0;       ///< HBM footprint from cfg.noc.hbm_base
  /// Functional mode (cfg.sim.mode): the fallback nodes the host computes (fallback::has_host_op,
  /// inputs and outputs in HBM or constant), as indices into g.nodes in program order. For each,
  /// the program has Signal(DMA, host_request_sem) after every earlier DMA command (all of the
  /// device's HBM writes) and Wait(DMA, host_done_sem) before every later one; the host computes
  /// the node in between (Platform::serve_host_calls, workloads/fallback/host_calls.h).
  std::vector<size_t> host_call_nodes;
  uint32_t host_request_sem = 0, host_done_sem = 0;
};

/// Lowers `g` for the platform `cfg` (optical array size, scratchpad capacity, semaphores).
/// Throws Error naming the node (name and op type) when validate_node() rejects it (bad
/// Conv/pooling attributes, string/complex tensors), a tensor cannot be tiled into the scratchpad
/// or HBM is full.
/// Prints nothing.
LoweringResult lower_graph(const Graph& g, const PlatformConfig& cfg);

}  // namespace photon::lowering

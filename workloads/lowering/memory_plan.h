// Memory planning for the AI lowering: HBM placement of every tensor and scratchpad carving.
//
// HBM layout (data-NoC addresses, every block aligned to kHbmAlign bytes):
//   [hbm_base, ...)  constants (initializers, Constant/ConstantOfShape outputs) used on the device
//   then             graph inputs (live for the whole run)
//   then             activations, first-fit over a free list: a tensor's block is freed after
//                    the last node that reads it (or a view of it); graph outputs are never freed.
// Free views (the ONNX op table's rows with a view predicate, onnx_ops.cpp: Reshape, Flatten,
// Squeeze, Unsqueeze, Identity, Dropout, float->float Cast) share the address of their input. Outputs of a
// node are placed before its inputs are freed, so a node never writes over data it still reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "soc/platform_config.h"
#include "workloads/graph/graph.h"

namespace photon::lowering {

constexpr uint64_t kHbmAlign = 64;  ///< HBM block alignment, bytes (one HBM burst / cache line)
constexpr uint64_t kSpmAlign = 64;  ///< scratchpad buffer alignment, bytes (one bank width)

/// Bytes of one element of `dt` (Float32/Int32: 4, Int64: 8, Float16: 2, Bool: 1).
uint64_t dtype_bytes(DType dt);

/// True for nodes that the lowering implements as a view: output shares the input's address
/// (OnnxOpRow::view of the node's row).
bool is_view_node(const Node& n, const Graph& g);

/// True when every output of `n` is a constant (folded by the frontend): nothing to execute.
bool is_folded_node(const Node& n, const Graph& g);

/// Result of plan_hbm.
struct HbmPlan {
  std::map<std::string, uint64_t> address;  ///< data-NoC byte address of every placed tensor
  uint64_t base = 0;                        ///< cfg.noc.hbm_base
  uint64_t constants_bytes = 0;             ///< bytes of the constant region
  uint64_t end = 0;                         ///< first address above everything placed (bump pointer)
  uint64_t limit = 0;                       ///< highest usable address + 1 (HBM capacity or command ring)
  uint64_t peak_activation_bytes = 0;       ///< peak live activation bytes (with reuse)

  /// Places `bytes` more above `end` (for constants the lowering derives, e.g. folded BatchNorm).
  /// Throws Error naming `what` if HBM is full.
  uint64_t alloc_extra(uint64_t bytes, const std::string& what);
};

/// Places every tensor that the device touches. Throws Error naming the node whose output does
/// not fit below the limit (min of HBM capacity and cfg.cpu.ring_base when the ring lies above
/// hbm_base).
HbmPlan plan_hbm(const Graph& g, const PlatformConfig& cfg);

/// Scratchpad carving for one op: a bump allocator over [0, capacity) with kSpmAlign alignment.
/// Double-buffered regions are allocated as two blocks (ping = index 0, pong = index 1).
class SpmArena {
 public:
  explicit SpmArena(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}
  /// Returns the offset of a new block or throws Error("scratchpad full: ...") naming `what`.
  uint32_t alloc(uint64_t bytes, const std::string& what);
  /// True if blocks of these sizes (each rounded up to kSpmAlign) fit in the remaining space.
  bool fits(const std::vector<uint64_t>& sizes) const;
  uint64_t used() const { return used_; }
  uint64_t capacity() const { return capacity_; }

 private:
  uint64_t capacity_;
  uint64_t used_ = 0;
};

inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace photon::lowering

#include "workloads/lowering/memory_plan.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

uint64_t dtype_bytes(DType dt) {
  switch (dt) {
    case DType::Int64: return 8;
    case DType::Float16: return 2;
    case DType::Bool: return 1;
    default: return 4;
  }
}

static const TensorInfo* find_tensor(const Graph& g, const std::string& name) {
  auto it = g.tensors.find(name);
  return it == g.tensors.end() ? nullptr : &it->second;
}

bool is_folded_node(const Node& n, const Graph& g) {
  if (n.outputs.empty()) return true;
  for (const auto& o : n.outputs) {
    if (o.empty()) continue;
    const TensorInfo* t = find_tensor(g, o);
    if (!t || !t->is_constant) return false;
  }
  return true;
}

bool view_always(const Node&, const Graph&) { return true; }

bool view_dropout(const Node& n, const Graph& g) {
  if (n.outputs.size() < 2 || n.outputs[1].empty()) return true;
  for (const auto& m : g.nodes)
    for (const auto& i : m.inputs)
      if (i == n.outputs[1]) return false;
  return true;
}

bool view_cast(const Node& n, const Graph& g) {
  const TensorInfo* a = find_tensor(g, n.inputs[0]);
  const TensorInfo* b = find_tensor(g, n.outputs[0]);
  return a && b && a->dtype == DType::Float32 && b->dtype == DType::Float32;
}

bool is_view_node(const Node& n, const Graph& g) {
  if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty()) return false;
  const OnnxOpRow* row = onnx_op(n.op_type);
  return row && row->view && row->view(n, g);
}

uint64_t HbmPlan::alloc_extra(uint64_t bytes, const std::string& what) {
  uint64_t a = align_up(end, kHbmAlign);
  if (a + bytes > limit)
    throw Error(fmt::format("HBM full: {} needs {} bytes at 0x{:x}, limit 0x{:x}", what, bytes, a, limit));
  end = a + align_up(bytes, kHbmAlign);
  return a;
}

namespace {

/// First-fit allocator over a free list; addresses above `top` are unused.
class FreeList {
 public:
  explicit FreeList(uint64_t start) : top_(start) {}
  uint64_t alloc(uint64_t bytes) {
    bytes = align_up(std::max<uint64_t>(bytes, 1), kHbmAlign);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second >= bytes) {
        uint64_t a = it->first, sz = it->second;
        free_.erase(it);
        if (sz > bytes) free_[a + bytes] = sz - bytes;
        live_ += bytes;
        return a;
      }
    }
    // Grow the top block if the highest free block touches top_.
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == top_) {
        uint64_t a = last->first;
        free_.erase(last);
        top_ = a + bytes;
        live_ += bytes;
        return a;
      }
    }
    uint64_t a = top_;
    top_ += bytes;
    live_ += bytes;
    return a;
  }
  void release(uint64_t a, uint64_t bytes) {
    bytes = align_up(std::max<uint64_t>(bytes, 1), kHbmAlign);
    live_ -= bytes;
    auto it = free_.emplace(a, bytes).first;
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  uint64_t top() const { return top_; }
  uint64_t live() const { return live_; }

 private:
  std::map<uint64_t, uint64_t> free_;
  uint64_t top_;
  uint64_t live_ = 0;
};

}  // namespace

HbmPlan plan_hbm(const Graph& g, const PlatformConfig& cfg) {
  HbmPlan p;
  p.base = cfg.noc.hbm_base;
  p.limit = cfg.noc.hbm_base + cfg.hbm.capacity_bytes();
  if (cfg.cpu.ring_base > p.base && cfg.cpu.ring_base < p.limit) p.limit = cfg.cpu.ring_base;

  auto bytes_of = [&](const TensorInfo& t) { return uint64_t(t.numel()) * dtype_bytes(t.dtype); };
  auto is_device_const = [&](const TensorInfo& t) {
    return t.is_constant && t.dtype != DType::Int64 && t.dtype != DType::Int32 && t.dtype != DType::Bool;
  };

  // Root of each view chain and the last node index that reads each root.
  std::map<std::string, std::string> root;
  auto root_of = [&](const std::string& n) {
    auto it = root.find(n);
    return it == root.end() ? n : it->second;
  };
  std::map<std::string, size_t> last_use;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (is_folded_node(n, g)) continue;
    if (is_view_node(n, g)) root[n.outputs[0]] = root_of(n.inputs[0]);
    for (const auto& in : n.inputs)
      if (!in.empty()) last_use[root_of(in)] = i;
  }
  std::set<std::string> keep;
  for (const auto& o : g.outputs) keep.insert(root_of(o));

  // Constants used by executed nodes, then graph inputs.
  uint64_t cur = p.base;
  auto place_fixed = [&](const std::string& name) {
    if (p.address.count(name)) return;
    const TensorInfo* t = find_tensor(g, name);
    if (!t) return;
    cur = align_up(cur, kHbmAlign);
    p.address[name] = cur;
    cur += align_up(std::max<uint64_t>(bytes_of(*t), 1), kHbmAlign);
  };
  for (const auto& n : g.nodes) {
    if (is_folded_node(n, g)) continue;
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      const TensorInfo* t = find_tensor(g, in);
      if (t && is_device_const(*t)) place_fixed(in);
    }
  }
  for (const auto& o : g.outputs) {  // a constant graph output
    const TensorInfo* t = find_tensor(g, o);
    if (t && t->is_constant) place_fixed(o);
  }
  p.constants_bytes = cur - p.base;
  for (const auto& in : g.inputs) place_fixed(in);

  FreeList fl(align_up(cur, kHbmAlign));
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (is_folded_node(n, g)) continue;
    if (is_view_node(n, g)) {
      auto it = p.address.find(root_of(n.inputs[0]));
      if (it != p.address.end()) p.address[n.outputs[0]] = it->second;
      continue;
    }
    for (const auto& o : n.outputs) {
      if (o.empty() || p.address.count(o)) continue;
      const TensorInfo* t = find_tensor(g, o);
      if (!t) continue;
      uint64_t a = fl.alloc(bytes_of(*t));
      if (a + bytes_of(*t) > p.limit)
        throw Error(fmt::format("node '{}' ({}): HBM full: output '{}' ({} bytes) does not fit below 0x{:x}",
                                n.name, n.op_type, o, bytes_of(*t), p.limit));
      p.address[o] = a;
      p.peak_activation_bytes = std::max(p.peak_activation_bytes, fl.live());
    }
    // Outputs nobody reads and inputs read for the last time are released.
    std::set<std::string> released;
    auto release = [&](const std::string& nm) {
      if (keep.count(nm) || released.count(nm) || !p.address.count(nm)) return;
      const TensorInfo* t = find_tensor(g, nm);
      if (!t || t->is_constant) return;
      if (std::find(g.inputs.begin(), g.inputs.end(), nm) != g.inputs.end()) return;
      released.insert(nm);
      fl.release(p.address[nm], bytes_of(*t));
    };
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      std::string r = root_of(in);
      auto lu = last_use.find(r);
      if (lu != last_use.end() && lu->second == i) release(r);
    }
    for (const auto& o : n.outputs)
      if (!o.empty() && !last_use.count(o) && !keep.count(o)) release(o);
  }
  // Views whose root was placed after the view pass (roots are always earlier: topological order).
  for (const auto& [v, r] : root)
    if (!p.address.count(v) && p.address.count(r)) p.address[v] = p.address[r];
  p.end = std::max(fl.top(), align_up(cur, kHbmAlign));
  if (p.end > p.limit)
    throw Error(fmt::format("HBM full: plan needs up to 0x{:x}, limit 0x{:x}", p.end, p.limit));
  return p;
}

uint32_t SpmArena::alloc(uint64_t bytes, const std::string& what) {
  uint64_t a = align_up(used_, kSpmAlign);
  uint64_t sz = align_up(std::max<uint64_t>(bytes, 1), kSpmAlign);
  if (a + sz > capacity_)
    throw Error(
        fmt::format("scratchpad full: {} needs {} bytes, {} of {} in use", what, bytes, a, capacity_));
  used_ = a + sz;
  return static_cast<uint32_t>(a);
}

bool SpmArena::fits(const std::vector<uint64_t>& sizes) const {
  uint64_t a = align_up(used_, kSpmAlign);
  for (auto s : sizes) a += align_up(std::max<uint64_t>(s, 1), kSpmAlign);
  return a <= capacity_;
}

}  // namespace photon::lowering

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {

int64_t attr_i(const Node& n, const std::string& k, int64_t dflt) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return dflt;
  if (auto p = std::get_if<int64_t>(&it->second)) return *p;
  if (auto p = std::get_if<float>(&it->second)) return static_cast<int64_t>(*p);
  return dflt;
}
float attr_f(const Node& n, const std::string& k, float dflt) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return dflt;
  if (auto p = std::get_if<float>(&it->second)) return *p;
  if (auto p = std::get_if<int64_t>(&it->second)) return static_cast<float>(*p);
  return dflt;
}
std::string attr_s(const Node& n, const std::string& k, const std::string& dflt) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return dflt;
  if (auto p = std::get_if<std::string>(&it->second)) return *p;
  return dflt;
}
std::vector<int64_t> attr_is(const Node& n, const std::string& k, const std::vector<int64_t>& dflt) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return dflt;
  if (auto p = std::get_if<std::vector<int64_t>>(&it->second)) return *p;
  if (auto p = std::get_if<int64_t>(&it->second)) return {*p};
  return dflt;
}

namespace {
// TensorInfo gains `bool splat; float splat_value;` in the frontend; detect them at compile time so
// this file builds with and without the fields.
template <typename T, typename = void>
struct HasSplat : std::false_type {};
template <typename T>
struct HasSplat<T, std::void_t<decltype(std::declval<T>().splat), decltype(std::declval<T>().splat_value)>>
    : std::true_type {};
template <typename T>
std::optional<float> splat_impl(const T& t) {
  if constexpr (HasSplat<T>::value) {
    if (t.splat) return static_cast<float>(t.splat_value);
  }
  (void)t;
  return std::nullopt;
}
}  // namespace

std::optional<float> splat_of(const TensorInfo& t) { return splat_impl(t); }

std::optional<float> const_value(const TensorInfo& t, int64_t i) {
  if (!t.is_constant) return std::nullopt;
  if (i < static_cast<int64_t>(t.data.size())) return t.data[i];
  if (t.data.empty() && !t.int_data.empty() && i < static_cast<int64_t>(t.int_data.size()))
    return static_cast<float>(t.int_data[i]);
  if (t.data.empty()) return splat_of(t);
  return std::nullopt;
}

const TensorInfo& Ctx::t(const std::string& name) const {
  auto it = g.tensors.find(name);
  if (it == g.tensors.end()) fail(fmt::format("unknown tensor '{}'", name));
  return it->second;
}

uint64_t Ctx::addr(const std::string& name) const {
  auto it = plan.address.find(name);
  if (it == plan.address.end()) fail(fmt::format("tensor '{}' has no HBM address", name));
  return it->second;
}

void Ctx::fail(const std::string& msg) const {
  throw Error(fmt::format("node '{}' ({}): {}", node ? node->name : "?", node ? node->op_type : "?", msg));
}

pcs::DmaCopy dma1(uint64_t src, uint64_t dst, uint64_t bytes) {
  pcs::DmaCopy d;
  d.src = src;
  d.dst = dst;
  d.inner_bytes = static_cast<uint32_t>(bytes);
  return d;
}

pcs::DmaCopy dma2(uint64_t src, uint64_t dst, uint64_t row_bytes, uint32_t rows, uint64_t src_stride,
                  uint64_t dst_stride) {
  pcs::DmaCopy d;
  d.src = src;
  d.dst = dst;
  d.inner_bytes = static_cast<uint32_t>(row_bytes);
  d.n1 = rows;
  d.src_stride1 = src_stride;
  d.dst_stride1 = dst_stride;
  return d;
}

// ---- Pipeline ----------------------------------------------------------------------------------

namespace {
enum SemKind { kFull = 0, kHandoff = 1, kDone = 2 };
constexpr int kDmaQ = static_cast<int>(pcs::Queue::Dma);
}  // namespace

Pipeline::Pipeline(Ctx& c) : c_(c) {}

uint32_t Pipeline::sem(int kind, int slot, int from, int to, int ordinal) {
  auto key = std::make_tuple(kind, slot, from, to, ordinal);
  SemTable& t = *c_.sems;
  auto it = t.find(key);
  if (it != t.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(t.size());
  if (id >= c_.cfg.cpu.semaphores)
    c_.fail(fmt::format("needs more than cpu.semaphores = {} semaphores", c_.cfg.cpu.semaphores));
  t[key] = id;
  return id;
}

void Pipeline::push(Step s) {
  int slot = static_cast<int>(steps_ % 2);
  for (const auto& d : s.loads) c_.emit(pcs::make_dma(d, c_.tag));
  if (!s.compute.empty()) {
    int q0 = static_cast<int>(s.compute.front().first);
    c_.emit(pcs::make_signal(pcs::Queue::Dma, sem(kFull, slot, kDmaQ, q0, 0), c_.tag));
  }
  flush_pending();
  pending_ = std::move(s);
  pending_slot_ = slot;
  ++steps_;
}

void Pipeline::flush_pending() {
  if (!pending_) return;
  Step& s = *pending_;
  int slot = pending_slot_;
  if (!s.compute.empty()) {
    int prev = static_cast<int>(s.compute.front().first);
    c_.emit(pcs::make_wait(static_cast<pcs::Queue>(prev), sem(kFull, slot, kDmaQ, prev, 0), c_.tag));
    std::map<std::pair<int, int>, int> ordinal;
    for (auto& [q, cmd] : s.compute) {
      int qi = static_cast<int>(q);
      if (qi != prev) {
        int ord = ordinal[{prev, qi}]++;
        uint32_t h = sem(kHandoff, slot, prev, qi, ord);
        c_.emit(pcs::make_signal(static_cast<pcs::Queue>(prev), h, c_.tag));
        c_.emit(pcs::make_wait(q, h, c_.tag));
        prev = qi;
      }
      cmd.tag = c_.tag;
      c_.emit(std::move(cmd));
    }
    uint32_t d = sem(kDone, slot, prev, kDmaQ, 0);
    c_.emit(pcs::make_signal(static_cast<pcs::Queue>(prev), d, c_.tag));
    c_.emit(pcs::make_wait(pcs::Queue::Dma, d, c_.tag));
  }
  for (const auto& d : s.stores) c_.emit(pcs::make_dma(d, c_.tag));
  pending_.reset();
}

void Pipeline::finish() { flush_pending(); }

// ---- helpers -----------------------------------------------------------------------------------

std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

std::string fmt_bytes(uint64_t b) {
  if (b >= (1u << 20)) return fmt::format("{:.1f} MiB", b / 1048576.0);
  if (b >= 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

void copy_box(Ctx& c, Pipeline& p, uint64_t src, const std::vector<int64_t>& src_strides, uint64_t dst,
              const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& count) {
  struct Ax {
    int64_t n, ss, ds;
  };
  std::vector<Ax> ax;
  for (size_t i = 0; i < count.size(); ++i) {
    if (count[i] == 0) return;
    if (count[i] == 1) continue;
    Ax a{count[i], src_strides[i], dst_strides[i]};
    if (!ax.empty() && ax.back().ss == a.ss * a.n && ax.back().ds == a.ds * a.n) {
      ax.back() = Ax{ax.back().n * a.n, a.ss, a.ds};
    } else {
      ax.push_back(a);
    }
  }
  int64_t inner = 1;
  if (!ax.empty() && ax.back().ss == 1 && ax.back().ds == 1) {
    inner = ax.back().n;
    ax.pop_back();
  }
  Ax a1{1, 0, 0}, a2{1, 0, 0};
  if (!ax.empty()) {
    a1 = ax.back();
    ax.pop_back();
  }
  if (!ax.empty()) {
    a2 = ax.back();
    ax.pop_back();
  }
  const uint64_t cap = c.spm_bytes / 2 / kSpmAlign * kSpmAlign;  // one ping/pong half
  const uint64_t inner_b = uint64_t(inner) * 4;
  std::vector<int64_t> idx(ax.size(), 0);
  for (;;) {
    int64_t so = 0, dof = 0;
    for (size_t i = 0; i < ax.size(); ++i) {
      so += idx[i] * ax[i].ss;
      dof += idx[i] * ax[i].ds;
    }
    for (int64_t i2 = 0; i2 < a2.n;) {
      if (inner_b > cap) {  // split one contiguous run (only when a1 and a2 are trivial loops)
        for (int64_t i1 = 0; i1 < a1.n; ++i1)
          for (uint64_t off = 0; off < inner_b; off += cap) {
            uint64_t b = std::min(cap, inner_b - off);
            uint64_t s = src + uint64_t(so + i2 * a2.ss + i1 * a1.ss) * 4 + off;
            uint64_t d = dst + uint64_t(dof + i2 * a2.ds + i1 * a1.ds) * 4 + off;
            uint32_t slot = static_cast<uint32_t>((p.steps() % 2) * cap);
            Step st;
            st.loads.push_back(dma1(s, c.spm(slot), b));
            st.stores.push_back(dma1(c.spm(slot), d, b));
            p.push(std::move(st));
          }
        ++i2;
        continue;
      }
      int64_t n1p = std::min<int64_t>(a1.n, static_cast<int64_t>(cap / inner_b));
      int64_t n2p =
          n1p == a1.n ? std::min<int64_t>(a2.n - i2, static_cast<int64_t>(cap / (inner_b * n1p))) : 1;
      for (int64_t i1 = 0; i1 < a1.n; i1 += n1p) {
        int64_t n1 = std::min(n1p, a1.n - i1);
        uint32_t slot = static_cast<uint32_t>((p.steps() % 2) * cap);
        pcs::DmaCopy ld, stc;
        ld.src = src + uint64_t(so + i2 * a2.ss + i1 * a1.ss) * 4;
        ld.dst = c.spm(slot);
        ld.inner_bytes = static_cast<uint32_t>(inner_b);
        ld.n1 = static_cast<uint32_t>(n1);
        ld.n2 = static_cast<uint32_t>(n2p);
        ld.src_stride1 = uint64_t(a1.ss) * 4;
        ld.src_stride2 = static_cast<uint32_t>(uint64_t(a2.ss) * 4);
        ld.dst_stride1 = inner_b;
        ld.dst_stride2 = static_cast<uint32_t>(inner_b * n1);
        stc = ld;
        stc.src = ld.dst;
        stc.dst = dst + uint64_t(dof + i2 * a2.ds + i1 * a1.ds) * 4;
        stc.src_stride1 = inner_b;
        stc.src_stride2 = static_cast<uint32_t>(inner_b * n1);
        stc.dst_stride1 = uint64_t(a1.ds) * 4;
        stc.dst_stride2 = static_cast<uint32_t>(uint64_t(a2.ds) * 4);
        Step st;
        st.loads.push_back(ld);
        st.stores.push_back(stc);
        p.push(std::move(st));
      }
      i2 += n2p;
    }
    size_t d = ax.size();
    while (d > 0) {
      if (++idx[d - 1] < ax[d - 1].n) break;
      idx[d - 1] = 0;
      --d;
    }
    if (d == 0) break;
  }
}

}  // namespace photon::lowering

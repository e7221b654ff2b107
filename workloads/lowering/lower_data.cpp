// Data movement ops: Transpose, Concat, Split, Slice, Gather, Expand (docs/lowering.md, "Data
// movement"). DMA copies are staged through the scratchpad (HBM -> scratchpad -> HBM).
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {
namespace {

int64_t norm_axis(int64_t a, size_t r) { return a < 0 ? a + static_cast<int64_t>(r) : a; }

std::vector<int64_t> const_ints(const Ctx& c, const Node& n, size_t input, const std::string& attr) {
  if (n.inputs.size() > input && !n.inputs[input].empty()) {
    const TensorInfo& t = c.t(n.inputs[input]);
    if (!t.is_constant) throw Unsupported{fmt::format("input '{}' is not a constant", n.inputs[input])};
    if (!t.int_data.empty()) return t.int_data;
    std::vector<int64_t> v;
    for (float f : t.data) v.push_back(static_cast<int64_t>(f));
    return v;
  }
  return attr_is(n, attr, {});
}

}  // namespace

std::string lower_transpose(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const size_t r = x.shape.size();
  std::vector<int64_t> perm = attr_is(n, "perm", {});
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  // Drop size-1 axes, then group output positions whose input axes are consecutive and in order.
  std::vector<int64_t> orig;  // compact index -> input axis
  std::vector<int64_t> compact(r, -1);
  for (size_t a = 0; a < r; ++a)
    if (x.shape[a] != 1) {
      compact[a] = static_cast<int64_t>(orig.size());
      orig.push_back(static_cast<int64_t>(a));
    }
  std::vector<std::vector<int64_t>> groups;  // in output order; each a run of compact input axes
  for (auto a : perm) {
    if (compact[a] < 0) continue;
    int64_t ca = compact[a];
    if (!groups.empty() && groups.back().back() + 1 == ca)
      groups.back().push_back(ca);
    else
      groups.push_back({ca});
  }
  const int64_t last = static_cast<int64_t>(orig.size()) - 1;
  auto gsize = [&](const std::vector<int64_t>& g) {
    int64_t s = 1;
    for (auto a : g) s *= x.shape[orig[a]];
    return s;
  };
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  Pipeline pl(c);
  const auto xs = strides_of(x.shape);
  // Innermost input axis stays innermost: strided DMA copies.
  if (groups.empty() || groups.back().back() == last) {
    std::vector<int64_t> cnt, ss;
    for (const auto& g : groups) {
      cnt.push_back(gsize(g));
      ss.push_back(xs[orig[g.back()]]);
    }
    copy_box(c, pl, xa, ss, ya, strides_of(cnt), cnt);
    pl.finish();
    return fmt::format("DMA strided copy; {} axis groups; steps {}", groups.size(), pl.steps());
  }
  // Batched 2-D transpose: input [batch, X, Y] -> output [batch, Y, X] (batch groups in order).
  const size_t G = groups.size();
  bool batched2d =
      G >= 2 && groups[G - 2].back() == last && groups[G - 1].back() + 1 == groups[G - 2].front();
  for (size_t i = 0; batched2d && i + 2 < G; ++i)
    batched2d =
        groups[i].back() < groups[G - 1].front() && (i == 0 || groups[i - 1].back() < groups[i].front());
  if (!batched2d)
    throw Unsupported{"permutation moves the innermost axis and is not a batched 2-D transpose"};
  const int64_t X = gsize(groups[G - 1]), Y = gsize(groups[G - 2]);
  const int64_t B = x.numel() / (X * Y);
  const uint64_t half = c.spm_bytes / 2 / kSpmAlign * kSpmAlign;
  const int64_t xr = std::min<int64_t>(X, static_cast<int64_t>((half - kSpmAlign) / (2 * 4 * uint64_t(Y))));
  if (xr < 1) c.fail(fmt::format("a row of {} elements does not fit one scratchpad tile", Y));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t x0 = 0; x0 < X; x0 += xr) {
      const int64_t nr = std::min(xr, X - x0);
      const uint32_t slot = static_cast<uint32_t>((pl.steps() % 2) * half);
      const uint32_t out = slot + static_cast<uint32_t>(align_up(nr * Y * 4, kSpmAlign));
      Step st;
      st.loads.push_back(dma1(xa + uint64_t((b * X + x0) * Y) * 4, c.spm(slot), uint64_t(nr * Y) * 4));
      pcs::Vector v;
      v.op = pcs::Vector::kTranspose;
      v.src0 = slot;
      v.dst = out;
      v.n = static_cast<uint32_t>(nr * Y);
      v.inner = static_cast<uint32_t>(Y);
      st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
      st.stores.push_back(dma2(c.spm(out), ya + uint64_t(b * X * Y + x0) * 4, nr * 4, Y, nr * 4, X * 4));
      pl.push(std::move(st));
    }
  pl.finish();
  return fmt::format("vector transpose; batch {} of {}x{}; {} rows per tile; steps {}", B, X, Y, xr,
                     pl.steps());
}

namespace {

/// Copies the `parts` of `whole` (at whole_addr), laid end to end along `axis`, out of the whole
/// (Split) or into it (Concat). Returns the outer (before-axis) element count.
int64_t copy_parts(Ctx& c, Pipeline& pl, const TensorInfo& whole, uint64_t whole_addr,
                   const std::vector<std::string>& parts, int64_t axis, bool into_whole) {
  const size_t r = whole.shape.size();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= whole.shape[d];
  for (size_t d = axis + 1; d < r; ++d) inner *= whole.shape[d];
  const std::vector<int64_t> whole_strides = {whole.shape[axis] * inner, 1};
  int64_t off = 0;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    const TensorInfo& t = c.t(part);
    const int64_t len = (t.shape.empty() ? 1 : t.shape[axis]) * inner;
    const uint64_t at = whole_addr + uint64_t(off) * 4;
    if (len > 0 && into_whole) copy_box(c, pl, c.addr(part), {len, 1}, at, whole_strides, {outer, len});
    if (len > 0 && !into_whole) copy_box(c, pl, at, whole_strides, c.addr(part), {len, 1}, {outer, len});
    off += len;
  }
  return outer;
}

}  // namespace

std::string lower_concat(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& y = c.t(n.outputs.at(0));
  const int64_t axis = norm_axis(attr_i(n, "axis", 1), y.shape.size());
  const uint64_t ya = c.addr(n.outputs[0]);
  Pipeline pl(c);
  const int64_t outer = copy_parts(c, pl, y, ya, n.inputs, axis, true);
  pl.finish();
  return fmt::format("DMA copies; {} inputs; outer {}; steps {}", n.inputs.size(), outer, pl.steps());
}

std::string lower_split(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const int64_t axis = norm_axis(attr_i(n, "axis", 0), x.shape.size());
  const uint64_t xa = c.addr(n.inputs[0]);
  Pipeline pl(c);
  copy_parts(c, pl, x, xa, n.outputs, axis, false);
  pl.finish();
  return fmt::format("DMA copies; {} outputs; steps {}", n.outputs.size(), pl.steps());
}

std::string lower_slice(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const TensorInfo& y = c.t(n.outputs.at(0));
  const size_t r = x.shape.size();
  std::vector<int64_t> starts = const_ints(c, n, 1, "starts");
  std::vector<int64_t> axes = const_ints(c, n, 3, "axes");
  std::vector<int64_t> steps = const_ints(c, n, 4, "steps");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int64_t> st(r, 0), sp(r, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = norm_axis(axes[i], r), dim = x.shape[a], s = starts[i];
    if (s < 0) s += dim;
    s = steps[i] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
    st[a] = s;
    sp[a] = steps[i];
  }
  const auto xs = strides_of(x.shape);
  int64_t src_off = 0;
  std::vector<int64_t> ss(r);
  for (size_t d = 0; d < r; ++d) {
    src_off += st[d] * xs[d];
    ss[d] = xs[d] * sp[d];
  }
  for (size_t d = 0; d < r; ++d)
    if (ss[d] < 0) throw Unsupported{"Slice with a negative step"};
  Pipeline pl(c);
  copy_box(c, pl, c.addr(n.inputs[0]) + uint64_t(src_off) * 4, ss, c.addr(n.outputs.at(0)),
           strides_of(y.shape), y.shape);
  pl.finish();
  return fmt::format("DMA strided copy; steps {}", pl.steps());
}

std::string lower_gather(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const TensorInfo& it = c.t(n.inputs.at(1));
  if (!it.is_constant) throw Unsupported{"Gather with non-constant indices"};
  std::vector<int64_t> idx = it.int_data;
  if (idx.empty() && it.numel() > 0) throw Unsupported{"Gather indices without data"};
  const size_t r = x.shape.size();
  const int64_t axis = norm_axis(attr_i(n, "axis", 0), r);
  const int64_t dim = x.shape[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < r; ++d) inner *= x.shape[d];
  const int64_t ni = static_cast<int64_t>(idx.size());
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  Pipeline pl(c);
  int64_t runs = 0;
  for (int64_t j = 0; j < ni;) {
    int64_t i0 = idx[j] < 0 ? idx[j] + dim : idx[j];
    if (i0 < 0 || i0 >= dim) c.fail(fmt::format("Gather index {} out of range [0, {})", idx[j], dim));
    int64_t len = 1;
    while (j + len < ni) {
      int64_t nx = idx[j + len] < 0 ? idx[j + len] + dim : idx[j + len];
      if (nx != i0 + len) break;
      ++len;
    }
    if (++runs > 4096) throw Unsupported{"Gather with more than 4096 index runs"};
    copy_box(c, pl, xa + uint64_t(i0 * inner) * 4, {dim * inner, 1}, ya + uint64_t(j * inner) * 4,
             {ni * inner, 1}, {outer, len * inner});
    j += len;
  }
  pl.finish();
  return fmt::format("DMA copies; {} indices in {} runs; steps {}", ni, runs, pl.steps());
}

std::string lower_expand(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const TensorInfo& y = c.t(n.outputs.at(0));
  std::vector<int64_t> xs = x.shape;
  while (xs.size() < y.shape.size()) xs.insert(xs.begin(), 1);
  auto st = strides_of(xs);
  for (size_t d = 0; d < xs.size(); ++d)
    if (xs[d] == 1) st[d] = 0;
  Pipeline pl(c);
  copy_box(c, pl, c.addr(n.inputs[0]), st, c.addr(n.outputs.at(0)), strides_of(y.shape), y.shape);
  pl.finish();
  return fmt::format("DMA broadcast copy; steps {}", pl.steps());
}

}  // namespace photon::lowering

// Row ops (Softmax, LayerNormalization, Reduce*), pooling, LRN and Pad on the vector unit
// (docs/lowering.md, "Row ops" and "Pooling").
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "workloads/lowering/lowering_internal.h"

namespace photon::lowering {
namespace {
using V = pcs::Vector;

int64_t norm_axis(int64_t a, size_t r) { return a < 0 ? a + static_cast<int64_t>(r) : a; }

/// Zero-filled HBM constant of `elems` floats (LayerNormalization without bias).
uint64_t zeros_const(Ctx& c, int64_t elems) {
  uint64_t a = c.plan.alloc_extra(uint64_t(elems) * 4, c.node->name + " zero bias");
  pcs::Segment s;
  s.address = a;
  s.bytes.assign(uint64_t(elems) * 4, 0);
  c.res.program.segments.push_back(std::move(s));
  return a;
}

/// Streams rows x inner through one row op. Side operands (gamma, beta) of `inner` elements are
/// loaded with every tile. Output rows have out_inner elements (inner, or 1 for reductions).
std::string emit_rows(Ctx& c, uint8_t op, uint64_t x, uint64_t y, int64_t rows, int64_t inner,
                      int64_t out_inner, float imm0, const std::vector<uint64_t>& side) {
  Pipeline pl(c);
  const uint64_t half = c.spm_bytes / 2 / kSpmAlign * kSpmAlign;
  const uint64_t side_b = side.size() * align_up(inner * 4, kSpmAlign);
  const uint64_t per_row = uint64_t(inner) * 4 + (out_inner == inner ? 0 : uint64_t(out_inner) * 4);
  if (side_b + per_row + kSpmAlign > half)
    c.fail(fmt::format("a row of {} elements does not fit one scratchpad tile ({} bytes)", inner, half));
  const int64_t R = static_cast<int64_t>((half - side_b - kSpmAlign) / per_row);
  for (int64_t r0 = 0; r0 < rows; r0 += R) {
    const int64_t nr = std::min(R, rows - r0);
    const uint32_t slot = static_cast<uint32_t>((pl.steps() % 2) * half);
    const uint32_t in = slot;
    uint32_t cur = slot + static_cast<uint32_t>(align_up(nr * inner * 4, kSpmAlign));
    std::vector<uint32_t> so;
    Step st;
    st.loads.push_back(dma1(x + uint64_t(r0 * inner) * 4, c.spm(in), uint64_t(nr * inner) * 4));
    for (auto s : side) {
      so.push_back(cur);
      st.loads.push_back(dma1(s, c.spm(cur), uint64_t(inner) * 4));
      cur += static_cast<uint32_t>(align_up(inner * 4, kSpmAlign));
    }
    const uint32_t out = out_inner == inner ? in : cur;
    V v;
    v.op = op;
    v.src0 = in;
    v.dst = out;
    v.n = static_cast<uint32_t>(nr * inner);
    v.inner = static_cast<uint32_t>(inner);
    v.imm0 = imm0;
    if (so.size() > 0) v.src1 = so[0];
    if (so.size() > 1) v.src2 = so[1];
    st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
    st.stores.push_back(dma1(c.spm(out), y + uint64_t(r0 * out_inner) * 4, uint64_t(nr * out_inner) * 4));
    pl.push(std::move(st));
  }
  pl.finish();
  return fmt::format("rows {} x {}; {} rows per tile; steps {}", rows, inner, R, pl.steps());
}

/// One ping/pong half of the scratchpad, bytes.
uint64_t half_bytes(const Ctx& c) { return c.spm_bytes / 2 / kSpmAlign * kSpmAlign; }

/// Planes of `in_elems` input and `out_elems` output elements that fit one scratchpad half (input
/// and output buffers, each aligned), 0 if not even one.
int64_t planes_per_tile(const Ctx& c, int64_t in_elems, int64_t out_elems) {
  const uint64_t half = half_bytes(c);
  const uint64_t per = uint64_t(in_elems + out_elems) * 4;
  if (per + 2 * kSpmAlign > half) return 0;
  return static_cast<int64_t>((half - 2 * kSpmAlign) / per);
}

/// Streams `planes` planes of `in` elements (at xa) through one windowed vector command per tile
/// of `cc` planes into planes of `out_elems` elements (at ya). `window` holds the op and its
/// geometry; src0, dst and n are set per tile.
void emit_planes(Ctx& c, Pipeline& p, uint64_t xa, uint64_t ya, int64_t planes, int64_t cc, int64_t in,
                 int64_t out_elems, V window) {
  const uint64_t half = half_bytes(c);
  for (int64_t c0 = 0; c0 < planes; c0 += cc) {
    const int64_t nc = std::min(cc, planes - c0);
    const uint32_t slot = static_cast<uint32_t>((p.steps() % 2) * half);
    const uint32_t out = slot + static_cast<uint32_t>(align_up(nc * in * 4, kSpmAlign));
    Step st;
    st.loads.push_back(dma1(xa + uint64_t(c0 * in) * 4, c.spm(slot), uint64_t(nc * in) * 4));
    window.src0 = slot;
    window.dst = out;
    window.n = static_cast<uint32_t>(nc * in);
    st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(window, c.tag));
    st.stores.push_back(dma1(c.spm(out), ya + uint64_t(c0 * out_elems) * 4, uint64_t(nc * out_elems) * 4));
    p.push(std::move(st));
  }
}

}  // namespace

std::string lower_softmax(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const size_t r = x.shape.size();
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  int64_t axis = norm_axis(attr_i(n, "axis", c.g.opset >= 13 ? -1 : 1), r);
  int64_t inner = 1;
  for (size_t d = axis; d < r; ++d) inner *= x.shape[d];
  if (c.g.opset >= 13) {  // softmax along one axis: contiguous only if every later axis is 1
    for (size_t d = axis + 1; d < r; ++d)
      if (x.shape[d] != 1) throw Unsupported{"Softmax over a non-last axis"};
  }
  return "softmax; " + emit_rows(c, c.row->kernel, xa, ya, x.numel() / inner, inner, inner, 0, {});
}

std::string lower_layernorm(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const size_t r = x.shape.size();
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  int64_t axis = norm_axis(attr_i(n, "axis", -1), r);
  int64_t inner = 1;
  for (size_t d = axis; d < r; ++d) inner *= x.shape[d];
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty()) throw Unsupported{"LayerNormalization mean/inv_std_dev outputs"};
  const auto& gs = c.t(n.inputs.at(1));
  if (gs.numel() != inner) throw Unsupported{"LayerNormalization scale not of the normalized size"};
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  uint64_t beta = has_bias ? c.addr(n.inputs[2]) : zeros_const(c, inner);
  if (has_bias && c.t(n.inputs[2]).numel() != inner)
    throw Unsupported{"LayerNormalization bias not of the normalized size"};
  return "layernorm; " + emit_rows(c, c.row->kernel, xa, ya, x.numel() / inner, inner, inner,
                                   attr_f(n, "epsilon", 1e-5f), {c.addr(n.inputs[1]), beta});
}

std::string lower_global_pool(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const size_t r = x.shape.size();
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  if (r < 3) throw Unsupported{"global pooling of rank < 3"};
  int64_t inner = 1;
  for (size_t d = 2; d < r; ++d) inner *= x.shape[d];
  return "global pool as row reduction; " +
         emit_rows(c, c.row->kernel, xa, ya, x.numel() / inner, inner, 1, 0, {});
}

std::string lower_reduce(Ctx& c) {  // over trailing axes
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const size_t r = x.shape.size();
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  std::vector<int64_t> axes = attr_is(n, "axes", {});
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const auto& at = c.t(n.inputs[1]);
    if (!at.is_constant) throw Unsupported{"Reduce axes not constant"};
    axes = at.int_data;
  }
  if (axes.empty()) {
    if (attr_i(n, "noop_with_empty_axes", 0)) throw Unsupported{"noop_with_empty_axes"};
    for (size_t d = 0; d < r; ++d) axes.push_back(d);
  }
  for (auto& a : axes) a = norm_axis(a, r);
  std::sort(axes.begin(), axes.end());
  int64_t inner = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != static_cast<int64_t>(r - axes.size() + i))
      throw Unsupported{"reduction over non-trailing axes"};
    inner *= x.shape[axes[i]];
  }
  return "row reduction; " + emit_rows(c, c.row->kernel, xa, ya, x.numel() / inner, inner, 1, 0, {});
}

std::string lower_pool(Ctx& c) {
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const TensorInfo& y = c.t(n.outputs.at(0));
  if (x.shape.size() != 4) throw Unsupported{"only 2-D pooling"};
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty()) throw Unsupported{"MaxPool indices output"};
  for (auto d : attr_is(n, "dilations", {1, 1}))
    if (d != 1) throw Unsupported{"pooling dilation > 1"};
  const bool maxp = c.row->kernel == V::kMaxPool;
  auto k = attr_is(n, "kernel_shape", {});
  if (k.size() != 2) c.fail("kernel_shape must have 2 entries");
  auto s = attr_is(n, "strides", {1, 1});
  const int64_t H = x.shape[2], W = x.shape[3], OH = y.shape[2], OW = y.shape[3];
  int64_t pt = 0, pl = 0;
  std::string ap = attr_s(n, "auto_pad", "NOTSET");
  if (ap == "NOTSET") {
    auto pads = attr_is(n, "pads", {0, 0, 0, 0});
    pt = pads.at(0);
    pl = pads.at(1);
  } else if (ap != "VALID") {
    int64_t th = std::max<int64_t>(0, (OH - 1) * s[0] + k[0] - H),
            tw = std::max<int64_t>(0, (OW - 1) * s[1] + k[1] - W);
    pt = ap == "SAME_LOWER" ? (th + 1) / 2 : th / 2;
    pl = ap == "SAME_LOWER" ? (tw + 1) / 2 : tw / 2;
  }
  if (k[0] > 255 || k[1] > 255 || s[0] > 255 || s[1] > 255 || pt > 255 || pl > 255 || H > 65535 || W > 65535)
    throw Unsupported{"pooling geometry beyond the vector unit's fields"};
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t cc = planes_per_tile(c, H * W, OH * OW);
  if (cc == 0)
    c.fail(fmt::format("one {}x{} plane does not fit one scratchpad tile ({} bytes)", H, W, half_bytes(c)));
  V v;
  v.op = c.row->kernel;
  v.h = static_cast<uint16_t>(H);
  v.w = static_cast<uint16_t>(W);
  v.oh = static_cast<uint16_t>(OH);
  v.ow = static_cast<uint16_t>(OW);
  v.kh = static_cast<uint8_t>(k[0]);
  v.kw = static_cast<uint8_t>(k[1]);
  v.sh = static_cast<uint8_t>(s[0]);
  v.sw = static_cast<uint8_t>(s[1]);
  v.pad_top = static_cast<uint8_t>(pt);
  v.pad_left = static_cast<uint8_t>(pl);
  v.count_include_pad = static_cast<uint8_t>(attr_i(n, "count_include_pad", 0));
  Pipeline p(c);
  emit_planes(c, p, c.addr(n.inputs[0]), c.addr(n.outputs[0]), planes, cc, H * W, OH * OW, v);
  p.finish();
  return fmt::format("{} {}x{} s{}x{} pad {},{}; planes {} of {}x{}; {} planes per tile; steps {}",
                     maxp ? "maxpool" : "avgpool", k[0], k[1], s[0], s[1], pt, pl, planes, H, W, cc,
                     p.steps());
}

std::string lower_lrn(Ctx& c) {
  // y = x / (bias + alpha/size * sum_{window of `size` channels} x^2)^beta. The channel-window sum is
  // an average pool of x^2 over a (size x 1) window on the C x (H*W) plane with count_include_pad
  // (sum = size * avg), so: t = x*x; t = avgpool(t); t = t*alpha + bias; t = t^-beta; y = x*t.
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  if (x.shape.size() != 4) throw Unsupported{"LRN of rank != 4"};
  const int64_t C = x.shape[1], HW = x.shape[2] * x.shape[3], size = attr_i(n, "size", 5);
  const float alpha = attr_f(n, "alpha", 1e-4f), beta = attr_f(n, "beta", 0.75f),
              bias = attr_f(n, "bias", 1.0f);
  const int64_t pt = (size - 1) / 2;
  if (size > 255 || C > 65535 || pt > 255) throw Unsupported{"LRN window beyond the vector unit's fields"};
  const uint64_t half = c.spm_bytes / 2 / kSpmAlign * kSpmAlign;
  // Tile: all C channels of `cols` spatial positions (a C x cols strided block): 3 buffers.
  int64_t cols = std::min<int64_t>(HW, static_cast<int64_t>((half - 3 * kSpmAlign) / (3 * 4 * uint64_t(C))));
  cols = std::min<int64_t>(cols, 65535);  // pooling width field is 16-bit
  if (cols < 1) c.fail(fmt::format("{} channels do not fit one scratchpad tile", C));
  Pipeline p(c);
  const uint64_t xa = c.addr(n.inputs[0]), ya = c.addr(n.outputs.at(0));
  for (int64_t b = 0; b < x.shape[0]; ++b)
    for (int64_t j0 = 0; j0 < HW; j0 += cols) {
      const int64_t nc = std::min(cols, HW - j0);
      const uint32_t slot = static_cast<uint32_t>((p.steps() % 2) * half);
      const uint32_t bx = slot, bt = slot + static_cast<uint32_t>(align_up(C * nc * 4, kSpmAlign));
      const uint32_t bp = bt + static_cast<uint32_t>(align_up(C * nc * 4, kSpmAlign));
      const uint32_t n32 = static_cast<uint32_t>(C * nc);
      const uint64_t base = uint64_t(b * C * HW + j0) * 4;
      Step st;
      st.loads.push_back(dma2(xa + base, c.spm(bx), nc * 4, C, HW * 4, nc * 4));
      auto vec = [&](uint8_t op, uint32_t s0, uint32_t s1, uint32_t d, float i0) {
        V v;
        v.op = op;
        v.src0 = s0;
        v.src1 = s1;
        v.dst = d;
        v.n = n32;
        v.bcast_len = n32;
        v.imm0 = i0;
        st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(v, c.tag));
      };
      vec(V::kMul, bx, bx, bt, 0);
      V pool;
      pool.op = V::kAvgPool;
      pool.src0 = bt;
      pool.dst = bp;
      pool.n = n32;
      pool.h = static_cast<uint16_t>(C);
      pool.w = static_cast<uint16_t>(nc);
      pool.oh = static_cast<uint16_t>(C);
      pool.ow = static_cast<uint16_t>(nc);
      pool.kh = static_cast<uint8_t>(size);
      pool.kw = 1;
      pool.pad_top = static_cast<uint8_t>(pt);
      pool.count_include_pad = 1;
      st.compute.emplace_back(pcs::Queue::Vector, pcs::make_vector(pool, c.tag));
      vec(V::kMulScalar, bp, 0, bp, alpha);
      vec(V::kAddScalar, bp, 0, bp, bias);
      vec(V::kPowScalar, bp, 0, bp, -beta);
      vec(V::kMul, bx, bp, bx, 0);
      st.stores.push_back(dma2(c.spm(bx), ya + base, nc * 4, C, nc * 4, HW * 4));
      p.push(std::move(st));
    }
  p.finish();
  return fmt::format(
      "lrn size {} as square, channel avgpool, scale, pow, mul; {} positions per tile; steps {}", size, cols,
      p.steps());
}

std::string lower_pad(Ctx& c) {
  // Constant zero padding of the two innermost axes: a 1x1 im2col with zero padding produces the
  // padded plane (C x (H+pt+pb) x (W+pl+pr)).
  const Node& n = *c.node;
  const TensorInfo& x = c.t(n.inputs.at(0));
  const TensorInfo& y = c.t(n.outputs.at(0));
  if (attr_s(n, "mode", "constant") != "constant") throw Unsupported{"Pad mode other than constant"};
  std::vector<int64_t> pads = attr_is(n, "pads", {});
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const auto& pt = c.t(n.inputs[1]);
    if (!pt.is_constant) throw Unsupported{"Pad pads not constant"};
    pads = pt.int_data;
  }
  float value = attr_f(n, "value", 0.0f);
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    auto v = const_value(c.t(n.inputs[2]), 0);
    if (!v) throw Unsupported{"Pad value not constant"};
    value = *v;
  }
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) throw Unsupported{"Pad with axes input"};
  const size_t r = x.shape.size();
  if (value != 0.0f) throw Unsupported{"Pad with a non-zero constant"};
  if (r < 2 || pads.size() != 2 * r) throw Unsupported{"Pad pads malformed"};
  for (size_t d = 0; d < r; ++d)
    if (pads[d] < 0 || pads[d + r] < 0 || (d + 2 < r && (pads[d] || pads[d + r])))
      throw Unsupported{"Pad of outer axes or negative pads"};
  const int64_t H = x.shape[r - 2], W = x.shape[r - 1], OH = y.shape[r - 2], OW = y.shape[r - 1];
  const int64_t pt = pads[r - 2], pl = pads[r - 1];
  if (pt > 255 || pl > 255 || H > 65535 || W > 65535 || OH > 65535 || OW > 65535)
    throw Unsupported{"Pad geometry beyond the vector unit's fields"};
  const int64_t planes = x.numel() / (H * W);
  const int64_t cc = planes_per_tile(c, H * W, OH * OW);
  if (cc == 0) c.fail("one padded plane does not fit one scratchpad tile");
  V v;
  v.op = V::kIm2col;
  v.h = static_cast<uint16_t>(H);
  v.w = static_cast<uint16_t>(W);
  v.oh = static_cast<uint16_t>(OH);
  v.ow = static_cast<uint16_t>(OW);
  v.kh = 1;
  v.kw = 1;
  v.pad_top = static_cast<uint8_t>(pt);
  v.pad_left = static_cast<uint8_t>(pl);
  Pipeline p(c);
  emit_planes(c, p, c.addr(n.inputs[0]), c.addr(n.outputs[0]), planes, cc, H * W, OH * OW, v);
  p.finish();
  return fmt::format("zero pad as 1x1 im2col; planes {}; {} per tile; steps {}", planes, cc, p.steps());
}

}  // namespace photon::lowering

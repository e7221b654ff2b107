#include "workloads/fallback/host_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include "base/error.h"

namespace photon::fallback {
namespace {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s) { return element_count(s).signed_value(); }

Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

int64_t norm_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

HostTensor output_like(const Node& n, const Graph& g, size_t k = 0) {
  HostTensor t;
  t.shape = g.tensor(n.outputs.at(k)).shape;
  t.data.assign(size_t(numel(t.shape)), 0.0f);
  return t;
}

const HostTensor& in(const std::vector<const HostTensor*>& inputs, size_t k, const char* what) {
  if (k >= inputs.size() || !inputs[k]) throw Error(std::string("input ") + what + " is missing");
  return *inputs[k];
}

// ---- Gather: out[i_pre, j_idx, i_post] = data[i_pre, index[j_idx], i_post] ----
std::vector<HostTensor> gather(const Node& n, const Graph& g, const std::vector<const HostTensor*>& inputs) {
  const HostTensor& data = in(inputs, 0, "data");
  const HostTensor& idx = in(inputs, 1, "indices");
  const int64_t r = int64_t(data.shape.size());
  if (r == 0) throw Error("data must have rank >= 1");
  const int64_t axis = norm_axis(n.attr_int("axis", 0), r);
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= data.shape[size_t(k)];
  for (int64_t k = axis + 1; k < r; ++k) inner *= data.shape[size_t(k)];
  const int64_t dim = data.shape[size_t(axis)];
  HostTensor out = output_like(n, g);
  const int64_t m = int64_t(idx.data.size());
  if (int64_t(out.data.size()) != outer * m * inner)
    throw Error("output shape does not match data and indices");
  for (int64_t j = 0; j < m; ++j) {
    const float fv = idx.data[size_t(j)];
    int64_t v = int64_t(std::llround(fv));
    if (!std::isfinite(fv) || double(v) != double(fv) || v < -dim || v >= dim)
      throw Error("index " + std::to_string(fv) + " (element " + std::to_string(j) +
                  ") is out of range for axis " + std::to_string(axis) + " of size " + std::to_string(dim));
    if (v < 0) v += dim;
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(&data.data[size_t((o * dim + v) * inner)], inner, &out.data[size_t((o * m + j) * inner)]);
  }
  return {std::move(out)};
}

// ---- Transpose: out[i_0..i_r-1] = x[i permuted back] ----
std::vector<HostTensor> transpose(const Node& n, const Graph& g,
                                  const std::vector<const HostTensor*>& inputs) {
  const HostTensor& x = in(inputs, 0, "data");
  const size_t r = x.shape.size();
  Shape perm = n.attr_ints("perm", {});
  if (perm.empty())
    for (size_t k = 0; k < r; ++k) perm.push_back(int64_t(r - 1 - k));
  if (perm.size() != r)
    throw Error("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  HostTensor out = output_like(n, g);
  const Shape xs = strides_of(x.shape);
  Shape idx(r, 0);
  for (size_t flat = 0; flat < out.data.size(); ++flat) {
    int64_t src = 0;
    for (size_t k = 0; k < r; ++k) src += idx[k] * xs[size_t(perm[k])];
    out.data[flat] = x.data[size_t(src)];
    for (size_t k = r; k-- > 0;) {
      if (++idx[k] < out.shape[k]) break;
      idx[k] = 0;
    }
  }
  return {std::move(out)};
}

// ---- Softmax / LogSoftmax over one axis (opset 13 semantics: the axis alone) ----
std::vector<HostTensor> softmax(const Node& n, const Graph& g, const std::vector<const HostTensor*>& inputs,
                                bool log) {
  const HostTensor& x = in(inputs, 0, "input");
  const int64_t r = int64_t(x.shape.size());
  // Before opset 13 the input is coerced to 2-D at `axis` (default 1): the softmax runs over all
  // the axes from `axis` on.
  const bool coerced = g.opset > 0 && g.opset < 13;
  const int64_t axis = norm_axis(n.attr_int("axis", coerced ? 1 : -1), std::max<int64_t>(r, 1));
  int64_t outer = 1, inner = 1, len = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= x.shape[size_t(k)];
  for (int64_t k = axis + 1; k < r; ++k) inner *= x.shape[size_t(k)];
  if (r) len = x.shape[size_t(axis)];
  if (coerced) len *= inner, inner = 1;
  HostTensor out = output_like(n, g);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return size_t((o * len + k) * inner + i); };
      double mx = -INFINITY;
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, double(x.data[at(k)]));
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) sum += std::exp(double(x.data[at(k)]) - mx);
      for (int64_t k = 0; k < len; ++k) {
        const double z = double(x.data[at(k)]) - mx;
        out.data[at(k)] = float(log ? z - std::log(sum) : std::exp(z) / sum);
      }
    }
  return {std::move(out)};
}

// ---- ConvTranspose: every input element scatters its kernel-weighted copy into the output ----
// y[n, g*Mg + m, o] += x[n, g*Cg + c, i] * w[g*Cg + c, m, k] with o = i*stride + k*dilation - pad_begin.
std::vector<HostTensor> conv_transpose(const Node& n, const Graph& g,
                                       const std::vector<const HostTensor*>& inputs) {
  const HostTensor& x = in(inputs, 0, "X");
  const HostTensor& w = in(inputs, 1, "W");
  const HostTensor* b = inputs.size() > 2 ? inputs[2] : nullptr;
  HostTensor y = output_like(n, g);
  const size_t r = x.shape.size() - 2;
  const int64_t N = x.shape[0], C = x.shape[1], group = n.attr_int("group", 1);
  const int64_t Mg = w.shape[1], M = Mg * group, Cg = C / group;
  if (y.shape[1] != M)
    throw Error("output has " + std::to_string(y.shape[1]) + " channels, W says " + std::to_string(M));
  const Shape in_sp(x.shape.begin() + 2, x.shape.end()), out_sp(y.shape.begin() + 2, y.shape.end());
  const Shape k_sp(w.shape.begin() + 2, w.shape.end());
  const Shape strides = n.attr_ints("strides", Shape(r, 1)), dil = n.attr_ints("dilations", Shape(r, 1));
  const Shape out_pad = n.attr_ints("output_padding", Shape(r, 0));
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  Shape pad_begin(r, 0);
  const Shape pads = n.attr_ints("pads", Shape(2 * r, 0));
  for (size_t d = 0; d < r; ++d) {
    // total padding from the output size the graph holds (ONNX ConvTranspose, "output_shape").
    const int64_t total = strides[d] * (in_sp[d] - 1) + out_pad[d] + (k_sp[d] - 1) * dil[d] + 1 - out_sp[d];
    if (auto_pad == "SAME_UPPER")
      pad_begin[d] = total / 2;
    else if (auto_pad == "SAME_LOWER" || n.has_attr("output_shape"))
      pad_begin[d] = total - total / 2;
    else if (auto_pad == "VALID")
      pad_begin[d] = 0;
    else
      pad_begin[d] = pads[d];
  }
  const int64_t in_n = numel(in_sp), out_n = numel(out_sp), k_n = numel(k_sp);
  const Shape in_st = strides_of(in_sp), out_st = strides_of(out_sp), k_st = strides_of(k_sp);
  for (int64_t bn = 0; bn < N; ++bn)
    for (int64_t gi = 0; gi < group; ++gi)
      for (int64_t c = 0; c < Cg; ++c) {
        const float* xp = &x.data[size_t((bn * C + gi * Cg + c) * in_n)];
        for (int64_t m = 0; m < Mg; ++m) {
          const float* wp = &w.data[size_t(((gi * Cg + c) * Mg + m) * k_n)];
          float* yp = &y.data[size_t((bn * M + gi * Mg + m) * out_n)];
          for (int64_t i = 0; i < in_n; ++i)
            for (int64_t k = 0; k < k_n; ++k) {
              int64_t o = 0;
              bool inside = true;
              for (size_t d = 0; d < r && inside; ++d) {
                const int64_t id = (i / in_st[d]) % in_sp[d], kd = (k / k_st[d]) % k_sp[d];
                const int64_t od = id * strides[d] + kd * dil[d] - pad_begin[d];
                inside = od >= 0 && od < out_sp[d];
                o += od * out_st[d];
              }
              if (inside) yp[o] += xp[i] * wp[k];
            }
        }
      }
  if (b)
    for (int64_t bn = 0; bn < N; ++bn)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t o = 0; o < out_n; ++o) y.data[size_t((bn * M + m) * out_n + o)] += b->data[size_t(m)];
  return {std::move(y)};
}

// ---- Resize (opset 11+): per output coordinate, the input coordinate of its transformation mode,
// then nearest or (multi-)linear interpolation; coordinates are clamped to the input (edge). ----
double source_coordinate(const std::string& mode, int64_t x, double scale, int64_t in_len, int64_t out_len) {
  if (mode == "half_pixel") return (double(x) + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return out_len > 1 ? (double(x) + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners")
    return out_len == 1 ? 0.0 : double(x) * double(in_len - 1) / double(out_len - 1);
  if (mode == "asymmetric") return double(x) / scale;
  return (double(x) + 0.5) / scale;  // tf_half_pixel_for_nn
}

int64_t nearest_index(const std::string& mode, double v, int64_t in_len) {
  double r;
  if (mode == "floor")
    r = std::floor(v);
  else if (mode == "ceil")
    r = std::ceil(v);
  else if (mode == "round_prefer_ceil")
    r = std::floor(v + 0.5);
  else  // round_prefer_floor
    r = v - std::floor(v) == 0.5 ? std::floor(v) : std::round(v);
  return std::clamp<int64_t>(int64_t(r), 0, in_len - 1);
}

/// Keys' cubic convolution weights of the four taps floor(s)-1 .. floor(s)+2 at fraction t of the
/// way from floor(s) (ONNX Resize "cubic", coefficient A = cubic_coeff_a, -0.75 by default as in
/// PyTorch's bicubic; R. Keys, IEEE Trans. ASSP 29(6), 1981, eq. 15).
std::array<double, 4> cubic_weights(double t, double A) {
  auto near = [A](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [A](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };  // 1 < |x| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

/// One source index of an output coordinate along one axis, and its weight.
struct Tap {
  int64_t index;
  double weight;
};

/// The taps of output coordinate `o` along an axis of input length `in_len`: one (nearest), two
/// (linear, source coordinate clamped to the input) or four (cubic: indices clamped to the edge;
/// with exclude_outside, taps outside the input get weight 0 and the rest are renormalised).
/// Zero-weight taps are dropped.
std::vector<Tap> resize_taps(const Node& n, const std::string& mode, const std::string& ctm,
                             const std::string& nm, int64_t o, double scale, int64_t in_len,
                             int64_t out_len) {
  const double s = source_coordinate(ctm, o, scale, in_len, out_len);
  std::vector<Tap> taps;
  if (mode == "nearest") return {{nearest_index(nm, s, in_len), 1.0}};
  if (mode == "linear") {
    const double c = std::clamp(s, 0.0, double(in_len - 1));
    const int64_t i0 = int64_t(std::floor(c));
    taps = {{i0, 1 - (c - double(i0))}, {std::min(i0 + 1, in_len - 1), c - double(i0)}};
  } else {  // cubic
    const int64_t i0 = int64_t(std::floor(s));
    const auto w = cubic_weights(s - double(i0), double(n.attr_float("cubic_coeff_a", -0.75f)));
    const bool exclude = n.attr_int("exclude_outside", 0) != 0;
    double kept = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = i0 - 1 + k;
      if (exclude && (i < 0 || i >= in_len)) continue;
      taps.push_back({std::clamp<int64_t>(i, 0, in_len - 1), w[size_t(k)]});
      kept += w[size_t(k)];
    }
    if (exclude && kept != 0)
      for (Tap& t : taps) t.weight /= kept;
  }
  taps.erase(std::remove_if(taps.begin(), taps.end(), [](const Tap& t) { return t.weight == 0; }),
             taps.end());
  return taps;
}

std::vector<HostTensor> resize(const Node& n, const Graph& g, const std::vector<const HostTensor*>& inputs) {
  const HostTensor& x = in(inputs, 0, "X");
  HostTensor y = output_like(n, g);
  const size_t r = x.shape.size();
  const std::string mode = n.attr_string("mode", "nearest");
  // Opset 10: inputs (X, scales), coordinates x / scale, nearest rounds down.
  const bool v10 = g.opset > 0 && g.opset < 11;
  const std::string ctm = v10 ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nm = v10 ? "floor" : n.attr_string("nearest_mode", "round_prefer_floor");
  const size_t scales_at = v10 ? 1 : 2;
  const HostTensor* scales = inputs.size() > scales_at ? inputs[scales_at] : nullptr;
  // Per axis and output coordinate: its taps.
  std::vector<std::vector<std::vector<Tap>>> taps(r);
  for (size_t d = 0; d < r; ++d) {
    const double scale = scales && scales->data.size() == r ? double(scales->data[d])
                                                            : double(y.shape[d]) / double(x.shape[d]);
    for (int64_t o = 0; o < y.shape[d]; ++o)
      taps[d].push_back(resize_taps(n, mode, ctm, nm, o, scale, x.shape[d], y.shape[d]));
  }
  const Shape xs = strides_of(x.shape);
  Shape idx(r, 0), pick(r, 0);
  for (size_t flat = 0; flat < y.data.size(); ++flat) {
    // Every combination of one tap per axis; the weights multiply.
    double acc = 0;
    std::fill(pick.begin(), pick.end(), 0);
    for (bool more = true; more;) {
      double wgt = 1;
      int64_t src = 0;
      for (size_t d = 0; d < r; ++d) {
        const Tap& t = taps[d][size_t(idx[d])][size_t(pick[d])];
        wgt *= t.weight;
        src += t.index * xs[d];
      }
      acc += wgt * double(x.data[size_t(src)]);
      more = false;
      for (size_t d = r; d-- > 0;) {
        if (++pick[d] < int64_t(taps[d][size_t(idx[d])].size())) {
          more = true;
          break;
        }
        pick[d] = 0;
      }
    }
    y.data[flat] = float(acc);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < y.shape[d]) break;
      idx[d] = 0;
    }
  }
  return {std::move(y)};
}

// ---- MaxPool / AveragePool over the trailing axes of X (N, C, D1..Dr), any dilation ----
// Output position o reads input positions o*stride - pad_begin + k*dilation for k < kernel; the
// output shape (ceil_mode included) is the graph's. AveragePool divides by the number of positions
// inside the input, or with count_include_pad by those inside the padded input.
std::vector<HostTensor> pool(const Node& n, const Graph& g, const std::vector<const HostTensor*>& inputs,
                             bool max_pool) {
  const HostTensor& x = in(inputs, 0, "X");
  HostTensor y = output_like(n, g);
  const size_t r = x.shape.size() - 2;
  const Shape k_sp = n.attr_ints("kernel_shape", {});
  if (k_sp.size() != r)
    throw Error("kernel_shape has " + std::to_string(k_sp.size()) + " entries for " + std::to_string(r) +
                " spatial axes");
  const Shape strides = n.attr_ints("strides", Shape(r, 1)), dil = n.attr_ints("dilations", Shape(r, 1));
  const Shape pads = n.attr_ints("pads", Shape(2 * r, 0));
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  const Shape in_sp(x.shape.begin() + 2, x.shape.end()), out_sp(y.shape.begin() + 2, y.shape.end());
  Shape pad_begin(r, 0), pad_end(r, 0);
  for (size_t d = 0; d < r; ++d) {
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total =
          std::max<int64_t>(0, (out_sp[d] - 1) * strides[d] + (k_sp[d] - 1) * dil[d] + 1 - in_sp[d]);
      pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pad_end[d] = total - pad_begin[d];
    } else if (auto_pad != "VALID") {
      pad_begin[d] = pads[d], pad_end[d] = pads[d + r];
    }
  }
  const int64_t planes = x.shape[0] * x.shape[1], in_n = numel(in_sp), out_n = numel(out_sp),
                k_n = numel(k_sp);
  const Shape in_st = strides_of(in_sp), out_st = strides_of(out_sp), k_st = strides_of(k_sp);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o = 0; o < out_n; ++o) {
      double acc = max_pool ? -INFINITY : 0.0;
      int64_t count = 0;
      for (int64_t k = 0; k < k_n; ++k) {
        int64_t src = 0;
        bool inside = true, in_padded = true;
        for (size_t d = 0; d < r; ++d) {
          const int64_t od = (o / out_st[d]) % out_sp[d], kd = (k / k_st[d]) % k_sp[d];
          const int64_t id = od * strides[d] - pad_begin[d] + kd * dil[d];
          inside = inside && id >= 0 && id < in_sp[d];
          in_padded = in_padded && id >= -pad_begin[d] && id < in_sp[d] + pad_end[d];
          src += id * in_st[d];
        }
        if (inside) {
          const double v = double(x.data[size_t(p * in_n + src)]);
          acc = max_pool ? std::max(acc, v) : acc + v;
        }
        count += include_pad ? in_padded : inside;
      }
      y.data[size_t(p * out_n + o)] = float(max_pool ? acc : (count ? acc / double(count) : 0.0));
    }
  return {std::move(y)};
}

}  // namespace

bool has_host_op(const Node& n, const Graph& g, std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  const std::string& op = n.op_type;
  if (op == "Gather" || op == "Transpose" || op == "Softmax" || op == "LogSoftmax") return true;
  if (op == "ConvTranspose") {
    if (n.inputs.size() < 2 || g.tensor(n.inputs[0]).shape.size() < 3)
      return no("ConvTranspose needs X of rank >= 3");
    return true;
  }
  if (op == "Resize") {
    const std::string mode = n.attr_string("mode", "nearest");
    const std::string ctm = n.attr_string("coordinate_transformation_mode", "half_pixel");
    if (mode != "nearest" && mode != "linear" && mode != "cubic")
      return no("Resize mode '" + mode + "' has no host reference");
    if (ctm == "tf_crop_and_resize") return no("Resize tf_crop_and_resize has no host reference");
    if (g.tensor(n.inputs.at(0)).shape.size() > 8) return no("Resize of rank > 8 has no host reference");
    return true;
  }
  if (op == "MaxPool" || op == "AveragePool") {
    if (n.inputs.empty() || g.tensor(n.inputs[0]).shape.size() < 3) return no(op + " needs X of rank >= 3");
    if (n.outputs.size() > 1 && !n.outputs[1].empty())
      return no("MaxPool's Indices output has no host reference");
    return true;
  }
  return no("op type " + op + " has no host reference");
}

std::vector<HostTensor> run_host_op(const Node& n, const Graph& g,
                                    const std::vector<const HostTensor*>& inputs) {
  const std::string& op = n.op_type;
  if (op == "Gather") return gather(n, g, inputs);
  if (op == "Transpose") return transpose(n, g, inputs);
  if (op == "Softmax" || op == "LogSoftmax") return softmax(n, g, inputs, op == "LogSoftmax");
  if (op == "ConvTranspose") return conv_transpose(n, g, inputs);
  if (op == "Resize") return resize(n, g, inputs);
  if (op == "MaxPool" || op == "AveragePool") return pool(n, g, inputs, op == "MaxPool");
  throw Error("op type " + op + " has no host reference");
}

}  // namespace photon::fallback

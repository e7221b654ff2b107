// The ATen op table: one row per ATen op, mapping it onto the operator graph's op types (ONNX
// operator semantics, docs/onnx.md) so that traces and ONNX models share one lowering.
// docs/torch.md lists the rows and the decompositions. Argument names are those of the ATen
// schemas (torch 1.13, native_functions.yaml).
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "workloads/torch/aten_builder.h"

namespace photon::torch_frontend {
namespace {

using B = AtenBuilder;
using Ints = std::vector<int64_t>;

int64_t norm_dim(const B& b, int64_t d, size_t rank) {
  const int64_t r = static_cast<int64_t>(std::max<size_t>(rank, 1));
  const int64_t n = d < 0 ? d + r : d;
  if (n < 0 || n >= r) b.fail(fmt::format("dim {} is out of range for a tensor of rank {}", d, rank));
  return n;
}

int64_t numel(const Ints& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// ---- element-wise ---------------------------------------------------------------------------

void unary_op(B& b, const char* op, std::map<std::string, AttrValue> attrs = {}) {
  const std::string x = b.in("self");
  b.expect_out_shape(0, b.shape(x), "an element-wise op of " + dims_str(b.shape(x)));
  b.node(op, {x}, {b.out(0)}, std::move(attrs));
}

// y = a <op> b with numpy broadcasting; `scale_other` multiplies b first (ATen's alpha).
void binary_op(B& b, const char* op, const std::string& x, std::string y, double scale_other = 1.0) {
  const auto bs = broadcast_shapes(b.shape(x), b.shape(y));
  if (!bs) b.fail(fmt::format("inconsistent shapes: {} and {} do not broadcast", dims_str(b.shape(x)), dims_str(b.shape(y))));
  b.expect_out_shape(0, *bs, fmt::format("broadcasting {} and {}", dims_str(b.shape(x)), dims_str(b.shape(y))));
  if (scale_other != 1.0) {
    const std::string t = b.tmp(b.shape(y), b.info(y).dtype);
    b.node("Mul", {y, b.scalar_const(scale_other)}, {t});
    y = t;
  }
  b.node(op, {x, y}, {b.out(0)});
}

void binary(B& b, const char* op) {
  const std::string x = b.tensor_or_scalar("self");
  binary_op(b, op, x, b.tensor_or_scalar("other"), b.number("alpha", 1.0));
}

void div_op(B& b) {
  if (b.has("rounding_mode")) {
    b.host_node("division with rounding (" + b.str("rounding_mode") + ") has no device mapping");
    return;
  }
  binary_op(b, "Div", b.tensor_or_scalar("self"), b.tensor_or_scalar("other"));
}

// rsub: other - alpha * self.
void rsub_op(B& b) {
  const std::string x = b.tensor_or_scalar("self");
  const double alpha = b.number("alpha", 1.0);
  std::string xs = x;
  if (alpha != 1.0) {
    xs = b.tmp(b.shape(x), b.info(x).dtype);
    b.node("Mul", {x, b.scalar_const(alpha)}, {xs});
  }
  binary_op(b, "Sub", b.tensor_or_scalar("other"), xs);
}

void pow_op(B& b) {
  if (!b.is_tensor("self")) {  // pow.Scalar: scalar base, tensor exponent
    binary_op(b, "Pow", b.scalar_const(b.number("self")), b.in("exponent"));
    return;
  }
  binary_op(b, "Pow", b.in("self"), b.tensor_or_scalar("exponent"));
}

// silu(x) = x * sigmoid(x) (the form torch.onnx exports).
void silu_op(B& b) {
  const std::string x = b.in("self");
  b.expect_out_shape(0, b.shape(x), "silu");
  const std::string s = b.tmp(b.shape(x));
  b.node("Sigmoid", {x}, {s});
  b.node("Mul", {x, s}, {b.out(0)});
}

// rsqrt(x) = 1 / sqrt(x).
void rsqrt_op(B& b) {
  const std::string x = b.in("self");
  b.expect_out_shape(0, b.shape(x), "rsqrt");
  const std::string s = b.tmp(b.shape(x));
  b.node("Sqrt", {x}, {s});
  b.node("Reciprocal", {s}, {b.out(0)});
}

void clip_op(B& b, const char* lo, const char* hi, std::optional<double> dlo, std::optional<double> dhi) {
  const std::string x = b.in("self");
  b.expect_out_shape(0, b.shape(x), "clamp");
  std::vector<std::string> ins = {x, "", ""};
  if (b.is_tensor(lo) || b.is_tensor(hi)) {
    b.host_node("clamp with tensor bounds has no device mapping");
    return;
  }
  if (b.has(lo) || dlo) ins[1] = b.scalar_const(b.number(lo, dlo));
  if (b.has(hi) || dhi) ins[2] = b.scalar_const(b.number(hi, dhi));
  while (!ins.empty() && ins.back().empty()) ins.pop_back();
  b.node("Clip", ins, {b.out(0)});
}

void gelu_op(B& b) {
  const std::string a = b.str("approximate", std::string("none"));
  unary_op(b, "Gelu", {{"approximate", a}});
}

// where(condition, self, other); self/other may be scalars.
void where_op(B& b) {
  const std::string c = b.in("condition");
  const std::string x = b.tensor_or_scalar("self"), y = b.tensor_or_scalar("other");
  auto s = broadcast_shapes(b.shape(c), b.shape(x));
  if (s) s = broadcast_shapes(*s, b.shape(y));
  if (!s) b.fail("inconsistent shapes: condition, self and other do not broadcast");
  b.expect_out_shape(0, *s, "where");
  b.node("Where", {c, x, y}, {b.out(0)});
}

void masked_fill_op(B& b) {
  const std::string x = b.in("self"), m = b.in("mask");
  const std::string v = b.tensor_or_scalar("value");
  b.expect_out_shape(0, b.shape(x), "masked_fill");
  b.node("Where", {m, v, x}, {b.out(0)});
}

// ---- matrix products ------------------------------------------------------------------------

void mm_op(B& b) {
  const std::string a = b.in("self"), m = b.in("mat2");
  const Ints &sa = b.shape(a), &sm = b.shape(m);
  if (sa.size() != 2 || sm.size() != 2 || sa[1] != sm[0])
    b.fail(fmt::format("inconsistent shapes: mm of {} and {}", dims_str(sa), dims_str(sm)));
  b.expect_out_shape(0, {sa[0], sm[1]}, "mm");
  b.node("MatMul", {a, m}, {b.out(0)});
}

void bmm_op(B& b) {
  const std::string a = b.in("self"), m = b.in("mat2");
  const Ints &sa = b.shape(a), &sm = b.shape(m);
  if (sa.size() != 3 || sm.size() != 3 || sa[0] != sm[0] || sa[2] != sm[1])
    b.fail(fmt::format("inconsistent shapes: bmm of {} and {}", dims_str(sa), dims_str(sm)));
  b.expect_out_shape(0, {sa[0], sa[1], sm[2]}, "bmm");
  b.node("MatMul", {a, m}, {b.out(0)});
}

// numpy matmul shape of a @ b (torch.matmul / ONNX MatMul).
std::optional<Ints> matmul_shape(Ints a, Ints b) {
  if (a.empty() || b.empty()) return std::nullopt;
  const bool va = a.size() == 1, vb = b.size() == 1;
  if (va) a.insert(a.begin(), 1);
  if (vb) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return std::nullopt;
  auto batch = broadcast_shapes(Ints(a.begin(), a.end() - 2), Ints(b.begin(), b.end() - 2));
  if (!batch) return std::nullopt;
  Ints y = *batch;
  if (!va) y.push_back(a[a.size() - 2]);
  if (!vb) y.push_back(b.back());
  return y;
}

void matmul_op(B& b) {
  const std::string a = b.in("self"), o = b.in("other");
  auto y = matmul_shape(b.shape(a), b.shape(o));
  if (!y) b.fail(fmt::format("inconsistent shapes: matmul of {} and {}", dims_str(b.shape(a)), dims_str(b.shape(o))));
  b.expect_out_shape(0, *y, "matmul");
  b.node("MatMul", {a, o}, {b.out(0)});
}

// addmm(self, mat1, mat2, beta, alpha) = beta * self + alpha * mat1 @ mat2: ONNX Gemm. When mat2
// is a folded t(weight) (nn.Linear: addmm(bias, x, t(weight))), the Gemm reads the weight as
// stored with transB = 1, as torch.onnx.export writes a Linear (the weight-stationary layout).
void addmm_op(B& b) {
  const std::string c = b.in("self"), a = b.in("mat1"), m = b.in("mat2");
  const Ints &sa = b.shape(a), &sm = b.shape(m);
  if (sa.size() != 2 || sm.size() != 2 || sa[1] != sm[0])
    b.fail(fmt::format("inconsistent shapes: addmm of {} and {}", dims_str(sa), dims_str(sm)));
  const Ints y = {sa[0], sm[1]};
  auto bs = broadcast_shapes(b.shape(c), y);
  if (!bs || *bs != y) b.fail(fmt::format("inconsistent shapes: addmm bias {} does not broadcast to {}", dims_str(b.shape(c)), dims_str(y)));
  b.expect_out_shape(0, y, "addmm");
  std::map<std::string, AttrValue> attrs = {{"alpha", static_cast<float>(b.number("alpha", 1.0))},
                                            {"beta", static_cast<float>(b.number("beta", 1.0))}};
  auto w = b.state().transpose_of.find(m);
  if (w != b.state().transpose_of.end()) {
    attrs["transB"] = int64_t{1};
    b.node("Gemm", {a, w->second, c}, {b.out(0)}, attrs);
    return;
  }
  b.node("Gemm", {a, m, c}, {b.out(0)}, attrs);
}

// baddbmm(self, batch1, batch2, beta, alpha) = beta * self + alpha * batch1 @ batch2.
void baddbmm_op(B& b) {
  const std::string c = b.in("self"), a = b.in("batch1"), m = b.in("batch2");
  const Ints &sa = b.shape(a), &sm = b.shape(m);
  if (sa.size() != 3 || sm.size() != 3 || sa[0] != sm[0] || sa[2] != sm[1])
    b.fail(fmt::format("inconsistent shapes: baddbmm of {} and {}", dims_str(sa), dims_str(sm)));
  const Ints y = {sa[0], sa[1], sm[2]};
  b.expect_out_shape(0, y, "baddbmm");
  std::string p = b.tmp(y);
  b.node("MatMul", {a, m}, {p});
  const double alpha = b.number("alpha", 1.0), beta = b.number("beta", 1.0);
  if (alpha != 1.0) {
    const std::string q = b.tmp(y);
    b.node("Mul", {p, b.scalar_const(alpha)}, {q});
    p = q;
  }
  if (beta == 0.0) {
    b.node("Identity", {p}, {b.out(0)});
    return;
  }
  binary_op(b, "Add", p, c, beta);
}

// linear(input, weight, bias) = input @ weight^T + bias.
void linear_op(B& b) {
  const std::string x = b.in("input"), w = b.in("weight");
  const auto bias = b.opt_in("bias");
  const Ints &sx = b.shape(x), &sw = b.shape(w);
  if (sw.size() != 2 || sx.empty() || sx.back() != sw[1])
    b.fail(fmt::format("inconsistent shapes: linear of {} with weight {}", dims_str(sx), dims_str(sw)));
  Ints y = sx;
  y.back() = sw[0];
  b.expect_out_shape(0, y, "linear");
  if (sx.size() == 2) {
    std::vector<std::string> ins = {x, w};
    if (bias) ins.push_back(*bias);
    b.node("Gemm", ins, {b.out(0)}, {{"transB", int64_t{1}}});
    return;
  }
  const std::string wt = b.info(w).is_constant ? b.derived_const({sw[1], sw[0]}, "weight_t") : b.tmp({sw[1], sw[0]});
  if (!b.info(w).is_constant) b.node("Transpose", {w}, {wt}, {{"perm", Ints{1, 0}}});
  if (!bias) {
    b.node("MatMul", {x, wt}, {b.out(0)});
    return;
  }
  const std::string p = b.tmp(y);
  b.node("MatMul", {x, wt}, {p});
  b.node("Add", {p, *bias}, {b.out(0)});
}

// ---- convolution ----------------------------------------------------------------------------

struct ConvArgs {
  Ints stride, padding, dilation;
  int64_t groups = 1;
};

ConvArgs conv_args(B& b, size_t spatial) {
  ConvArgs a;
  a.stride = b.ints("stride");
  a.padding = b.ints("padding");
  a.dilation = b.ints("dilation");
  a.groups = b.integer("groups", 1);
  auto widen = [&](Ints& v, const char* what) {
    if (v.size() == 1) v.assign(spatial, v[0]);
    if (v.size() != spatial)
      b.fail(fmt::format("{} {} has {} entries for {} spatial axes", what, dims_str(v), v.size(), spatial));
  };
  widen(a.stride, "stride");
  widen(a.padding, "padding");
  widen(a.dilation, "dilation");
  for (int64_t s : a.stride)
    if (s < 1) b.fail(fmt::format("stride {} has an entry < 1", dims_str(a.stride)));
  for (int64_t d : a.dilation)
    if (d < 1) b.fail(fmt::format("dilation {} has an entry < 1", dims_str(a.dilation)));
  for (int64_t p : a.padding)
    if (p < 0) b.fail(fmt::format("padding {} has an entry < 0", dims_str(a.padding)));
  if (a.groups < 1) b.fail(fmt::format("groups {} must be >= 1", a.groups));
  return a;
}

std::map<std::string, AttrValue> conv_attrs(const ConvArgs& a) {
  Ints pads = a.padding;
  pads.insert(pads.end(), a.padding.begin(), a.padding.end());
  return {{"strides", a.stride}, {"pads", pads}, {"dilations", a.dilation}, {"group", a.groups}};
}

void convolution_op(B& b) {
  const std::string x = b.in("input"), w = b.in("weight");
  const auto bias = b.opt_in("bias");
  const Ints &sx = b.shape(x), &sw = b.shape(w);
  if (sx.size() < 3 || sw.size() != sx.size())
    b.fail(fmt::format("inconsistent shapes: convolution of {} with weight {}", dims_str(sx), dims_str(sw)));
  const size_t r = sx.size() - 2;
  const ConvArgs a = conv_args(b, r);
  const bool transposed = b.boolean("transposed", false);
  std::vector<std::string> ins = {x, w};
  if (bias) ins.push_back(*bias);
  if (transposed) {
    Ints op = b.ints("output_padding", Ints(r, 0));
    if (op.size() == 1) op.assign(r, op[0]);
    auto attrs = conv_attrs(a);
    attrs["output_padding"] = op;
    b.node("ConvTranspose", ins, {b.out(0)}, attrs);
    return;
  }
  if (sx[1] % a.groups != 0 || sw[0] % a.groups != 0 || sw[1] * a.groups != sx[1])
    b.fail(fmt::format("inconsistent shapes: input {} and weight {} with groups {}", dims_str(sx), dims_str(sw), a.groups));
  Ints y = {sx[0], sw[0]};
  for (size_t i = 0; i < r; ++i) {
    const int64_t ext = a.dilation[i] * (sw[i + 2] - 1) + 1;
    const int64_t in = sx[i + 2] + 2 * a.padding[i];
    if (ext > in) b.fail(fmt::format("inconsistent shapes: kernel {} does not fit input {} with padding {}", dims_str(sw), dims_str(sx), dims_str(a.padding)));
    y.push_back((in - ext) / a.stride[i] + 1);
  }
  if (bias && b.shape(*bias) != Ints{sw[0]})
    b.fail(fmt::format("inconsistent shapes: bias {} for {} output channels", dims_str(b.shape(*bias)), sw[0]));
  b.expect_out_shape(0, y, "convolution");
  const std::string out = b.out(0);
  b.node("Conv", ins, {out}, conv_attrs(a));
  b.state().conv_of[out] = b.state().graph.nodes.back().name;
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias),
// as convolutions (docs/torch.md "Backward convolution"):
//   grad_input  = Conv(grad_output, W flipped and transposed, pads d*(k-1)-p, dilation d)  (stride 1)
//   grad_weight = Conv(input^T, grad_output^T, strides d, dilations s, pads p)^T, cropped to k
//                 (1x1 without padding: Gemm(grad_output, strided input, transB) over batch and pixels)
//   grad_bias   = ReduceSum(grad_output^T, axes [1, 2, 3])
// (^T swaps the batch and channel axes). Stride > 1 grad_input and grouped grad_weight run on
// the host.
void convolution_backward_op(B& b) {
  const std::string g = b.in("grad_output"), x = b.in("input"), w = b.in("weight");
  const Ints &sg = b.shape(g), &sx = b.shape(x), &sw = b.shape(w);
  if (sx.size() != 4 || sw.size() != 4 || sg.size() != 4 || b.boolean("transposed", false)) {
    b.host_node("only the backward of 2-D, non-transposed convolutions is mapped");
    return;
  }
  const ConvArgs a = conv_args(b, 2);
  const std::vector<bool> mask = b.bools("output_mask");
  if (mask.size() != 3) b.fail("output_mask must have 3 entries");
  if (sg[0] != sx[0] || sg[1] != sw[0] || sx[1] != sw[1] * a.groups)
    b.fail(fmt::format("inconsistent shapes: grad_output {}, input {}, weight {}", dims_str(sg), dims_str(sx), dims_str(sw)));
  for (int i = 0; i < 2; ++i) {  // grad_output has the forward convolution's output size
    const int64_t ext = a.dilation[i] * (sw[i + 2] - 1) + 1, in = sx[i + 2] + 2 * a.padding[i];
    if (ext > in || (in - ext) / a.stride[i] + 1 != sg[i + 2])
      b.fail(fmt::format("inconsistent shapes: grad_output {} is not the output of the convolution of input {} with "
                         "weight {} (stride {}, padding {}, dilation {})", dims_str(sg), dims_str(sx), dims_str(sw),
                         dims_str(a.stride), dims_str(a.padding), dims_str(a.dilation)));
  }
  const int64_t N = sx[0], C = sx[1], M = sw[0], G = a.groups;
  if (mask[0] && b.out_used(0)) {
    b.expect_out_shape(0, sx, "grad_input of the input");
    bool direct = a.stride == Ints{1, 1} && b.info(w).is_constant;
    Ints pads(4);
    for (int i = 0; i < 2; ++i) {
      const int64_t p = a.dilation[i] * (sw[i + 2] - 1) - a.padding[i];
      direct = direct && p >= 0;
      pads[i] = pads[i + 2] = p;
    }
    if (direct) {
      const std::string wf = b.derived_const({C, M / G, sw[2], sw[3]}, "weight_flipped");
      b.node("Conv", {g, wf}, {b.out(0)},
             {{"strides", Ints{1, 1}}, {"pads", pads}, {"dilations", a.dilation}, {"group", G}});
    } else {
      b.host_part({g, w}, {b.out(0)},
                  a.stride != Ints{1, 1} ? fmt::format("grad_input of a stride-{} convolution (a transposed convolution) "
                                                       "has no device mapping", dims_str(a.stride))
                                         : "grad_input with padding beyond the dilated kernel or a computed weight");
    }
  }
  std::string gt;
  auto grad_t = [&] {
    if (gt.empty()) {
      gt = b.tmp({sg[1], sg[0], sg[2], sg[3]});
      b.node("Transpose", {g}, {gt}, {{"perm", Ints{1, 0, 2, 3}}});
    }
    return gt;
  };
  if (mask[1] && b.out_used(1)) {
    b.expect_out_shape(1, sw, "grad_weight of the weight");
    if (G != 1) {
      b.host_part({g, x}, {b.out(1)}, "grad_weight of a grouped convolution has no device mapping");
    } else if (sw[2] == 1 && sw[3] == 1 && a.padding == Ints{0, 0}) {
      // 1x1: grad_weight[M, C] = sum_n G_n[M, P] X_n[C, P]^T over the input pixels the stride
      // samples: one Gemm (transB) over the batch's pixels side by side (batch moved inside the
      // channel axis by transposes that keep the innermost axis: strided copies).
      const int64_t P = sg[2] * sg[3];
      std::string xs = x;
      if (a.stride != Ints{1, 1}) {
        xs = b.tmp({N, C, sg[2], sg[3]});
        b.node("Slice", {x, b.ints_const({0, 0}), b.ints_const({sg[2] * a.stride[0], sg[3] * a.stride[1]}),
                         b.ints_const({2, 3}), b.ints_const({a.stride[0], a.stride[1]})},
               {xs});
      }
      auto side_by_side = [&](const std::string& t, int64_t ch) {
        const std::string t3 = b.tmp({N, ch, P}), t2 = b.tmp({ch, N * P});
        b.node("Reshape", {t, b.ints_const({N, ch, P})}, {t3});
        std::string tt = t3;
        if (N > 1) {
          tt = b.tmp({ch, N, P});
          b.node("Transpose", {t3}, {tt}, {{"perm", Ints{1, 0, 2}}});
        }
        b.node("Reshape", {tt, b.ints_const({ch, N * P})}, {t2});
        return t2;
      };
      const std::string g2 = side_by_side(g, M), x2 = side_by_side(xs, C), prod = b.tmp({M, C});
      b.node("Gemm", {g2, x2}, {prod}, {{"transB", int64_t{1}}});
      b.node("Reshape", {prod, b.ints_const(sw)}, {b.out(1)});
    } else {
      // One convolution with the roles of batch and channels swapped: Conv(input^T,
      // grad_output^T, strides d, dilations s, pads p) = grad_weight^T, cropped to the kernel
      // (the vector unit's im2col samples the stride as a dilation).
      const std::string xt = b.tmp({C, N, sx[2], sx[3]});
      b.node("Transpose", {x}, {xt}, {{"perm", Ints{1, 0, 2, 3}}});
      Ints k(2);
      for (int i = 0; i < 2; ++i)
        k[i] = (sx[i + 2] + 2 * a.padding[i] - a.stride[i] * (sg[i + 2] - 1) - 1) / a.dilation[i] + 1;
      const std::string yw = b.tmp({C, M, k[0], k[1]});
      const Ints pads = {a.padding[0], a.padding[1], a.padding[0], a.padding[1]};
      b.node("Conv", {xt, grad_t()}, {yw},
             {{"strides", a.dilation}, {"pads", pads}, {"dilations", a.stride}, {"group", int64_t{1}}});
      std::string yc = yw;
      if (k[0] != sw[2] || k[1] != sw[3]) {
        yc = b.tmp({C, M, sw[2], sw[3]});
        b.node("Slice", {yw, b.ints_const({0, 0}), b.ints_const({sw[2], sw[3]}), b.ints_const({2, 3})}, {yc});
      }
      b.node("Transpose", {yc}, {b.out(1)}, {{"perm", Ints{1, 0, 2, 3}}});
    }
  }
  if (mask[2] && b.out_used(2)) {
    b.expect_out_shape(2, {M}, "grad_bias of the output channels");
    b.node("ReduceSum", {grad_t(), b.ints_const({1, 2, 3})}, {b.out(2)}, {{"keepdims", int64_t{0}}});
  }
  if (b.nodes_emitted() == 0) b.set_note("no gradient requested");
}

// silu_backward(grad_output, self) = g * s * (1 + x * (1 - s)), s = sigmoid(x).
void silu_backward_op(B& b) {
  const std::string g = b.in("grad_output"), x = b.in("self");
  const Ints& sx = b.shape(x);
  if (b.shape(g) != sx) b.fail(fmt::format("inconsistent shapes: grad_output {} for self {}", dims_str(b.shape(g)), dims_str(sx)));
  b.expect_out_shape(0, sx, "silu_backward");
  const std::string s = b.tmp(sx), ns = b.tmp(sx), one_minus = b.tmp(sx), u = b.tmp(sx), v = b.tmp(sx), w = b.tmp(sx);
  b.node("Sigmoid", {x}, {s});
  b.node("Neg", {s}, {ns});
  b.node("Add", {ns, b.scalar_const(1.0)}, {one_minus});
  b.node("Mul", {x, one_minus}, {u});
  b.node("Add", {u, b.scalar_const(1.0)}, {v});
  b.node("Mul", {s, v}, {w});
  b.node("Mul", {g, w}, {b.out(0)});
}

// _softmax_backward_data(grad_output, output, dim, input_dtype) = y * (g - sum(g * y, dim)).
void softmax_backward_op(B& b) {
  const std::string g = b.in("grad_output"), y = b.in("output");
  const Ints& sy = b.shape(y);
  if (b.shape(g) != sy) b.fail(fmt::format("inconsistent shapes: grad_output {} for output {}", dims_str(b.shape(g)), dims_str(sy)));
  b.expect_out_shape(0, sy, "_softmax_backward_data");
  const int64_t d = norm_dim(b, b.integer("dim"), sy.size());
  Ints rs = sy;
  rs[static_cast<size_t>(d)] = 1;
  const std::string gy = b.tmp(sy), s = b.tmp(rs), diff = b.tmp(sy);
  b.node("Mul", {g, y}, {gy});
  b.node("ReduceSum", {gy, b.ints_const({d})}, {s}, {{"keepdims", int64_t{1}}});
  b.node("Sub", {g, s}, {diff});
  b.node("Mul", {y, diff}, {b.out(0)});
}

// slice_backward(grad_output, input_sizes, dim, start, end, step): the gradient scattered into
// zeros of input_sizes; with step 1 a zero Pad along dim.
void slice_backward_op(B& b) {
  const std::string g = b.in("grad_output");
  const Ints sizes = b.ints("input_sizes");
  b.expect_out_shape(0, sizes, "slice_backward of input_sizes");
  const int64_t d = norm_dim(b, b.integer("dim"), sizes.size());
  const int64_t n = sizes[static_cast<size_t>(d)];
  auto clampi = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  const int64_t start = clampi(b.integer("start")), end = std::max(start, clampi(b.integer("end"))), step = b.integer("step", 1);
  Ints sg = sizes;
  sg[static_cast<size_t>(d)] = step >= 1 ? (end - start + step - 1) / step : -1;
  if (b.shape(g) != sg)
    b.fail(fmt::format("inconsistent shapes: grad_output {} for a slice [{}:{}:{}] of {}", dims_str(b.shape(g)), start, end, step, dims_str(sizes)));
  if (step != 1) {
    b.host_node("slice_backward with a step > 1 (a strided scatter) has no device mapping");
    return;
  }
  Ints pads(2 * sizes.size(), 0);
  pads[static_cast<size_t>(d)] = start;
  pads[sizes.size() + static_cast<size_t>(d)] = n - end;
  b.node("Pad", {g, b.ints_const(pads)}, {b.out(0)}, {{"mode", std::string("constant")}});
}

// ---- normalisation --------------------------------------------------------------------------

// native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
//   -> (out, save_mean, save_invstd).
// Inference: BatchNormalization; when the input is a convolution's output that nothing else
// reads, the normalisation is folded into that convolution's bias (as torch.onnx.export and
// inference compilers do) and the op emits nothing. Training (batch statistics): BatchNormalization
// with its training outputs, which the lowering runs on the host.
void batch_norm_op(B& b) {
  const std::string x = b.in("input");
  const Ints& sx = b.shape(x);
  if (sx.size() < 2) b.fail(fmt::format("inconsistent shapes: batch_norm of {} (rank < 2)", dims_str(sx)));
  b.expect_out_shape(0, sx, "batch_norm");
  const int64_t C = sx[1];
  const bool training = b.boolean("training");
  const float eps = static_cast<float>(b.number("eps", 1e-5));
  std::vector<std::string> params;
  for (const char* p : {"weight", "bias", "running_mean", "running_var"}) {
    auto t = b.opt_in(p);
    if (t && b.shape(*t) != Ints{C})
      b.fail(fmt::format("inconsistent shapes: {} {} for {} channels", p, dims_str(b.shape(*t)), C));
    params.push_back(t ? *t : "");
  }
  for (size_t i = 1; i < 3 && i < b.num_outputs(); ++i)  // save_mean, save_invstd: [C], or [0] in inference
    if (b.op().outputs[i] >= 0 && b.out_info(i).shape != Ints{C} && b.out_info(i).shape != Ints{0})
      b.fail(fmt::format("inconsistent shapes: output {} {} of batch_norm over {} channels", i,
                         dims_str(b.out_info(i).shape), C));
  bool all_const = true;
  for (const auto& p : params) all_const = all_const && (p.empty() || b.info(p).is_constant);
  auto& st = b.state();
  auto conv = st.conv_of.find(x);
  const bool foldable = !training && all_const && conv != st.conv_of.end() && !b.out_used(1) && !b.out_used(2) &&
                        st.uses.at(b.op().args.at("input").at("tensor").get<size_t>()) == 1;
  if (foldable) {
    Node& cn = st.graph.nodes.at(st.producer.at(x));
    const std::string bias = b.derived_const({C}, "folded_bias");
    if (cn.inputs.size() < 3) cn.inputs.resize(3);
    cn.inputs[2] = bias;
    const std::string y = b.out(0);
    cn.outputs[0] = y;
    st.producer[y] = st.producer.at(x);
    st.producer.erase(x);
    st.graph.tensors.erase(x);
    st.conv_of.erase(conv);
    b.set_note("folded into the convolution '" + cn.name + "'");
    return;
  }
  auto param = [&](size_t i, double fill, const char* what) {
    if (!params[i].empty()) return params[i];
    const std::string c = b.derived_const({C}, what);
    b.make_constant(c, fill);
    return c;
  };
  std::vector<std::string> ins = {x, param(0, 1.0, "ones"), param(1, 0.0, "zeros"), param(2, 0.0, "mean"),
                                  param(3, 1.0, "var")};
  std::vector<std::string> outs = {b.out(0)};
  if (training) {
    outs.push_back(b.out(1));
    outs.push_back(b.out(2));
    while (outs.size() > 1 && outs.back().empty()) outs.pop_back();
  }
  std::map<std::string, AttrValue> attrs = {{"epsilon", eps}, {"momentum", static_cast<float>(b.number("momentum", 0.1))}};
  if (training) attrs["training_mode"] = int64_t{1};
  b.node("BatchNormalization", ins, outs, attrs);
}

// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd).
void layer_norm_op(B& b) {
  const std::string x = b.in("input");
  const Ints& sx = b.shape(x);
  const Ints ns = b.ints("normalized_shape");
  if (ns.empty() || ns.size() > sx.size() || !std::equal(ns.begin(), ns.end(), sx.end() - ns.size()))
    b.fail(fmt::format("inconsistent shapes: normalized_shape {} is not the trailing shape of {}", dims_str(ns), dims_str(sx)));
  b.expect_out_shape(0, sx, "layer_norm");
  for (const char* p : {"weight", "bias"})
    if (auto t = b.opt_in(p); t && b.shape(*t) != ns)
      b.fail(fmt::format("inconsistent shapes: {} {} for normalized_shape {}", p, dims_str(b.shape(*t)), dims_str(ns)));
  for (size_t i = 1; i < 3 && i < b.num_outputs(); ++i) {  // mean, rstd: the leading axes, 1 per normalised axis
    if (b.op().outputs[i] < 0) continue;
    Ints ms(sx.begin(), sx.end() - static_cast<long>(ns.size()));
    ms.resize(sx.size(), 1);
    b.expect_out_shape(i, ms, "layer_norm's statistics");
  }
  auto w = b.opt_in("weight");
  std::string scale;
  if (w) {
    scale = *w;
  } else {
    scale = b.derived_const(ns, "ones");
    b.make_constant(scale, 1.0);
  }
  std::vector<std::string> ins = {x, scale};
  if (auto bias = b.opt_in("bias")) ins.push_back(*bias);
  std::vector<std::string> outs = {b.out(0), b.out(1), b.out(2)};
  while (outs.size() > 1 && outs.back().empty()) outs.pop_back();
  b.node("LayerNormalization", ins, outs,
         {{"axis", -static_cast<int64_t>(ns.size())}, {"epsilon", static_cast<float>(b.number("eps", 1e-5))}});
}

void softmax_op(B& b, const char* op) {
  const std::string x = b.in("self");
  const int64_t d = norm_dim(b, b.integer("dim"), b.shape(x).size());
  b.expect_out_shape(0, b.shape(x), "softmax");
  b.node(op, {x}, {b.out(0)}, {{"axis", d}});
}

// ---- reductions -----------------------------------------------------------------------------

void reduce_op(B& b, const char* op) {
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  Ints dims = b.ints("dim", Ints{});
  const bool keep = b.boolean("keepdim", false);
  if (dims.empty())
    for (size_t i = 0; i < sx.size(); ++i) dims.push_back(static_cast<int64_t>(i));
  std::set<int64_t> axes;
  for (int64_t d : dims) axes.insert(norm_dim(b, d, sx.size()));
  Ints y;
  for (size_t i = 0; i < sx.size(); ++i) {
    if (!axes.count(static_cast<int64_t>(i))) y.push_back(sx[i]);
    else if (keep) y.push_back(1);
  }
  b.expect_out_shape(0, y, "the reduction");
  const Ints ax(axes.begin(), axes.end());
  // Over leading axes 0..k-1 only (a weight or bias gradient summed over batch and tokens): as a
  // 2-D transpose and a row reduction, which the vector unit runs (it reduces trailing axes).
  const size_t k = ax.size();
  if (k < sx.size() && ax.back() == static_cast<int64_t>(k) - 1) {
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < sx.size(); ++i) (i < k ? outer : inner) *= sx[i];
    const std::string x2 = b.tmp({outer, inner}, b.info(x).dtype), xt = b.tmp({inner, outer}, b.info(x).dtype);
    const std::string r = b.tmp({inner, 1}, b.info(x).dtype);
    b.node("Reshape", {x, b.ints_const({outer, inner})}, {x2});
    b.node("Transpose", {x2}, {xt}, {{"perm", Ints{1, 0}}});
    if (std::string(op) == "ReduceSum")
      b.node(op, {xt, b.ints_const({1})}, {r}, {{"keepdims", int64_t{1}}});
    else
      b.node(op, {xt}, {r}, {{"axes", Ints{1}}, {"keepdims", int64_t{1}}});
    b.node("Reshape", {r, b.ints_const(y)}, {b.out(0)});
    return;
  }
  if (std::string(op) == "ReduceSum")  // opset 13: axes is an input
    b.node(op, {x, b.ints_const(ax)}, {b.out(0)}, {{"keepdims", int64_t{keep}}});
  else
    b.node(op, {x}, {b.out(0)}, {{"axes", ax}, {"keepdims", int64_t{keep}}});
}

// ---- pooling --------------------------------------------------------------------------------

Ints two(B& b, const char* arg, Ints dflt) {
  Ints v = b.ints(arg, dflt);
  if (v.empty()) v = dflt;
  if (v.size() == 1) v.assign(2, v[0]);
  if (v.size() != 2) b.fail(fmt::format("{} {} must have 2 entries", arg, dims_str(v)));
  return v;
}

int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t num = in + 2 * p - d * (k - 1) - 1;
  int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;  // the last window must start inside the input or left padding
  return o;
}

void pool_op(B& b, bool max) {
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  if (sx.size() != 4 && sx.size() != 3) b.fail(fmt::format("inconsistent shapes: 2-D pooling of {}", dims_str(sx)));
  const Ints k = two(b, "kernel_size", {});
  const Ints s = two(b, "stride", k);
  const Ints p = two(b, "padding", {0, 0});
  const Ints d = max ? two(b, "dilation", {1, 1}) : Ints{1, 1};
  const bool ceil_mode = b.boolean("ceil_mode", false);
  Ints y(sx.begin(), sx.end() - 2);
  for (int i = 0; i < 2; ++i) {
    if (k[i] < 1 || s[i] < 1 || p[i] < 0 || d[i] < 1) b.fail("kernel, stride, padding or dilation out of range");
    y.push_back(pool_out(sx[sx.size() - 2 + i], k[i], s[i], p[i], d[i], ceil_mode));
  }
  b.expect_out_shape(0, y, "pooling");
  std::map<std::string, AttrValue> attrs = {{"kernel_shape", k}, {"strides", s}, {"pads", Ints{p[0], p[1], p[0], p[1]}},
                                            {"ceil_mode", int64_t{ceil_mode}}};
  if (max) {
    attrs["dilations"] = d;
    std::vector<std::string> outs = {b.out(0)};
    if (b.num_outputs() > 1 && b.out_used(1)) outs.push_back(b.out(1));
    b.node("MaxPool", {x}, outs, attrs);
    return;
  }
  if (b.has("divisor_override")) {
    b.host_node("avg_pool2d with divisor_override has no device mapping");
    return;
  }
  attrs["count_include_pad"] = int64_t{b.boolean("count_include_pad", true)};
  b.node("AveragePool", {x}, {b.out(0)}, attrs);
}

void adaptive_avg_pool_op(B& b) {
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  const Ints o = two(b, "output_size", {});
  if (sx.size() < 3) b.fail(fmt::format("inconsistent shapes: adaptive pooling of {}", dims_str(sx)));
  Ints y(sx.begin(), sx.end() - 2);
  y.insert(y.end(), o.begin(), o.end());
  b.expect_out_shape(0, y, "adaptive_avg_pool2d");
  const int64_t H = sx[sx.size() - 2], W = sx.back();
  if (o == Ints{1, 1}) {
    b.node("GlobalAveragePool", {x}, {b.out(0)});
  } else if (o[0] > 0 && o[1] > 0 && H % o[0] == 0 && W % o[1] == 0) {
    const Ints k = {H / o[0], W / o[1]};
    b.node("AveragePool", {x}, {b.out(0)}, {{"kernel_shape", k}, {"strides", k}});
  } else {
    b.host_node("adaptive pooling with windows of unequal size has no device mapping");
  }
}

// ---- data movement --------------------------------------------------------------------------

// The shape a view/reshape `size` (or `shape`) argument gives a tensor of `n` elements (one -1
// inferred, as torch does).
Ints view_shape(B& b, Ints size, int64_t n) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer >= 0) b.fail(fmt::format("size {} has more than one -1", dims_str(size)));
      infer = static_cast<int64_t>(i);
    } else if (size[i] < 0) {
      b.fail(fmt::format("size {} has a negative entry", dims_str(size)));
    } else {
      known *= size[i];
    }
  }
  if (infer >= 0) size[static_cast<size_t>(infer)] = known == 0 ? 0 : n / known;
  return size;
}

void reshape_op(B& b, const char* arg = "self") {
  const std::string x = b.in(arg);
  const Ints& y = b.out_info(0).shape;
  if (numel(b.shape(x)) != numel(y))
    b.fail(fmt::format("inconsistent shapes: a view of {} as {} changes the element count", dims_str(b.shape(x)), dims_str(y)));
  for (const char* size_arg : {"size", "shape"})  // view, _unsafe_view, _reshape_alias / reshape
    if (b.has(size_arg)) b.expect_out_shape(0, view_shape(b, b.ints(size_arg), numel(b.shape(x))), fmt::format("{} {}", size_arg, dims_str(b.ints(size_arg))));
  if (b.is_tensor("other")) b.expect_out_shape(0, b.shape(b.in("other")), "view_as the other tensor");  // view_as
  b.node("Reshape", {x, b.ints_const(y)}, {b.out(0)});
}

void identity_op(B& b, const char* arg = "self") {
  const std::string x = b.in(arg);
  b.expect_out_shape(0, b.shape(x), "a copy");
  b.node("Identity", {x}, {b.out(0)});
}

void to_copy_op(B& b) {
  const std::string x = b.in("self");
  b.expect_out_shape(0, b.shape(x), "a copy");
  if (b.info(x).dtype == b.out_info(0).dtype && b.info(x).source_type == b.out_info(0).source_type) {
    b.node("Identity", {x}, {b.out(0)});
    return;
  }
  b.node("Cast", {x}, {b.out(0)});
}

void transpose_perm(B& b, const std::string& x, Ints perm) {
  const Ints& sx = b.shape(x);
  Ints y;
  for (int64_t p : perm) y.push_back(sx.at(static_cast<size_t>(p)));
  b.expect_out_shape(0, y, "the permutation " + dims_str(perm));
  b.node("Transpose", {x}, {b.out(0)}, {{"perm", perm}});
}

void transpose_op(B& b) {
  const std::string x = b.in("self");
  const size_t r = b.shape(x).size();
  Ints perm(r);
  for (size_t i = 0; i < r; ++i) perm[i] = static_cast<int64_t>(i);
  if (r == 0) {
    identity_op(b);
    return;
  }
  std::swap(perm[norm_dim(b, b.integer("dim0"), r)], perm[norm_dim(b, b.integer("dim1"), r)]);
  transpose_perm(b, x, perm);
}

}  // namespace

std::optional<std::string> transposed_2d(AtenBuilder& b) {
  const std::string n = b.op().name;
  if (n != "aten::t" && n != "aten::transpose" && n != "aten::permute") return std::nullopt;
  if (!b.is_tensor("self") || b.num_outputs() != 1 || b.op().outputs[0] < 0) return std::nullopt;
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  if (sx.size() != 2) return std::nullopt;
  if (n == "aten::transpose") {
    const int64_t d0 = b.integer("dim0"), d1 = b.integer("dim1");
    const int64_t a0 = d0 < 0 ? d0 + 2 : d0, a1 = d1 < 0 ? d1 + 2 : d1;
    if (!((a0 == 0 && a1 == 1) || (a0 == 1 && a1 == 0))) return std::nullopt;
  } else if (n == "aten::permute") {
    const Ints p = b.ints("dims");
    if (p.size() != 2 || !((p[0] == 1 || p[0] == -1) && (p[1] == 0 || p[1] == -2))) return std::nullopt;
  }
  if (b.out_info(0).shape != Ints{sx[1], sx[0]}) return std::nullopt;
  return x;
}

namespace {

void t_op(B& b) {
  const std::string x = b.in("self");
  if (b.shape(x).size() > 2) b.fail(fmt::format("t() of a tensor of rank {}", b.shape(x).size()));
  if (b.shape(x).size() < 2) {
    identity_op(b);
    return;
  }
  transpose_perm(b, x, {1, 0});
}

void permute_op(B& b) {
  const std::string x = b.in("self");
  const size_t r = b.shape(x).size();
  Ints perm;
  std::set<int64_t> seen;
  for (int64_t d : b.ints("dims")) {
    perm.push_back(norm_dim(b, d, r));
    if (!seen.insert(perm.back()).second) b.fail("dims repeats an axis");
  }
  if (perm.size() != r) b.fail(fmt::format("dims {} for a tensor of rank {}", dims_str(perm), r));
  transpose_perm(b, x, perm);
}

void expand_op(B& b) {
  const std::string x = b.in("self");
  const Ints& y = b.out_info(0).shape;
  if (b.has("size")) {  // -1 keeps the axis (aligned from the right)
    Ints size = b.ints("size");
    const Ints& sx = b.shape(x);
    for (size_t i = 0; i < size.size(); ++i)
      if (size[i] == -1 && size.size() - i <= sx.size()) size[i] = sx[sx.size() - (size.size() - i)];
    b.expect_out_shape(0, size, "expand to size " + dims_str(b.ints("size")));
  }
  auto bs = broadcast_shapes(b.shape(x), y);
  if (!bs || *bs != y) b.fail(fmt::format("inconsistent shapes: {} does not expand to {}", dims_str(b.shape(x)), dims_str(y)));
  if (b.shape(x) == y) {
    b.node("Identity", {x}, {b.out(0)});
    return;
  }
  b.node("Expand", {x, b.ints_const(y)}, {b.out(0)});
}

// slice(self, dim, start, end, step): Python slice semantics, clamped to the axis.
void slice_op(B& b) {
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  const int64_t d = norm_dim(b, b.integer("dim", 0), sx.size());
  const int64_t n = sx.at(static_cast<size_t>(d));
  const int64_t step = b.integer("step", 1);
  if (step < 1) b.fail(fmt::format("step {} must be >= 1", step));
  auto clampi = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  const int64_t start = clampi(b.integer("start", 0)), end = std::max(start, clampi(b.integer("end", n)));
  Ints y = sx;
  y[static_cast<size_t>(d)] = (end - start + step - 1) / step;
  b.expect_out_shape(0, y, fmt::format("slicing axis {} [{}:{}:{}]", d, start, end, step));
  if (y == sx) {
    b.node("Identity", {x}, {b.out(0)});
    return;
  }
  b.node("Slice", {x, b.ints_const({start}), b.ints_const({end}), b.ints_const({d}), b.ints_const({step})}, {b.out(0)});
}

// select(self, dim, index) = slice [index:index+1] then drop the axis.
void select_op(B& b) {
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  const int64_t d = norm_dim(b, b.integer("dim"), sx.size());
  const int64_t n = sx.at(static_cast<size_t>(d));
  int64_t i = b.integer("index");
  if (i < -n || i >= n) b.fail(fmt::format("index {} is out of range for an axis of size {}", i, n));
  if (i < 0) i += n;
  Ints y = sx;
  y.erase(y.begin() + d);
  b.expect_out_shape(0, y, "select");
  Ints s1 = sx;
  s1[static_cast<size_t>(d)] = 1;
  const std::string t = b.tmp(s1, b.info(x).dtype);
  b.node("Slice", {x, b.ints_const({i}), b.ints_const({i + 1}), b.ints_const({d})}, {t});
  b.node("Reshape", {t, b.ints_const(y)}, {b.out(0)});
}

void cat_op(B& b) {
  std::vector<std::string> xs;
  for (const auto& t : b.in_list("tensors"))
    if (!(b.shape(t).size() == 1 && b.shape(t)[0] == 0)) xs.push_back(t);  // legacy empty tensors
  if (xs.empty()) b.fail("cat of no non-empty tensors");
  const Ints& s0 = b.shape(xs[0]);
  const int64_t d = norm_dim(b, b.integer("dim", 0), s0.size());
  Ints y = s0;
  y[static_cast<size_t>(d)] = 0;
  for (const auto& t : xs) {
    Ints s = b.shape(t);
    if (s.size() != s0.size()) b.fail("inconsistent shapes: cat of tensors of different rank");
    y[static_cast<size_t>(d)] += s[static_cast<size_t>(d)];
    s[static_cast<size_t>(d)] = s0[static_cast<size_t>(d)];
    if (s != s0) b.fail(fmt::format("inconsistent shapes: cat of {} and {} along axis {}", dims_str(s0), dims_str(b.shape(t)), d));
  }
  b.expect_out_shape(0, y, "cat");
  b.node("Concat", xs, {b.out(0)}, {{"axis", d}});
}

// split / split_with_sizes / unbind: ONNX Split (sizes from the outputs); unbind drops the axis.
void split_op(B& b, bool unbind) {
  const std::string x = b.in("self");
  const Ints& sx = b.shape(x);
  const int64_t d = norm_dim(b, b.integer("dim", 0), sx.size());
  std::vector<std::string> outs;
  std::vector<std::string> finals;
  Ints sizes;
  int64_t total = 0;
  for (size_t i = 0; i < b.num_outputs(); ++i) {
    const Ints& so = b.out_info(i).shape;
    Ints piece = so;
    if (unbind) piece.insert(piece.begin() + d, 1);
    if (piece.size() != sx.size()) b.fail(fmt::format("inconsistent shapes: output {} {} of a split of {}", i, dims_str(so), dims_str(sx)));
    sizes.push_back(piece[static_cast<size_t>(d)]);
    total += sizes.back();
    Ints chk = piece;
    chk[static_cast<size_t>(d)] = sx[static_cast<size_t>(d)];
    if (chk != sx) b.fail(fmt::format("inconsistent shapes: output {} {} of a split of {}", i, dims_str(so), dims_str(sx)));
    const std::string o = b.out(i, /*keep_unused=*/true);
    if (unbind) {
      outs.push_back(b.tmp(piece, b.info(x).dtype));
      finals.push_back(o);
    } else {
      outs.push_back(o);
    }
  }
  if (total != sx[static_cast<size_t>(d)])
    b.fail(fmt::format("inconsistent shapes: outputs cover {} of {} elements along axis {}", total, sx[static_cast<size_t>(d)], d));
  b.node("Split", {x, b.ints_const(sizes)}, outs, {{"axis", d}});
  for (size_t i = 0; i < finals.size(); ++i) b.node("Reshape", {outs[i], b.ints_const(b.out_info(i).shape)}, {finals[i]});
}

// copy_(self, src): self takes src's values (broadcast).
void copy_op(B& b) {
  const std::string src = b.in(b.is_tensor("src") ? "src" : "other");
  const Ints& y = b.out_info(0).shape;
  auto bs = broadcast_shapes(b.shape(src), y);
  if (!bs || *bs != y) b.fail(fmt::format("inconsistent shapes: {} does not broadcast to {}", dims_str(b.shape(src)), dims_str(y)));
  if (b.shape(src) == y) b.node("Identity", {src}, {b.out(0)});
  else b.node("Expand", {src, b.ints_const(y)}, {b.out(0)});
}

void embedding_op(B& b) {
  const std::string w = b.in("weight"), idx = b.in("indices");
  Ints y = b.shape(idx);
  if (b.shape(w).size() != 2) b.fail(fmt::format("inconsistent shapes: embedding table {}", dims_str(b.shape(w))));
  y.push_back(b.shape(w)[1]);
  b.expect_out_shape(0, y, "embedding");
  b.node("Gather", {w, idx}, {b.out(0)}, {{"axis", int64_t{0}}});
}

void dropout_op(B& b) {
  const std::string x = b.in("input");
  b.expect_out_shape(0, b.shape(x), "dropout");
  const bool train = b.boolean("train", true);
  if (!train || b.number("p") == 0.0) {
    b.node("Identity", {x}, {b.out(0)});
    if (b.num_outputs() > 1 && b.out_used(1)) {
      b.make_constant(b.out(1), 1.0);
      b.node("Constant", {}, {b.out(1)});
    }
    return;
  }
  std::vector<std::string> outs = {b.out(0)};
  if (b.num_outputs() > 1 && b.out_used(1)) outs.push_back(b.out(1));
  b.node("Dropout", {x, b.scalar_const(b.number("p"))}, outs);
}

// Factories (empty, zeros, full, arange, *_like, fill_, zero_): the results are constants; a
// known fill value makes them splats. No device work.
void factory_op(B& b, std::optional<double> fill) {
  if (b.has("size") && !b.is_tensor("size")) b.expect_out_shape(0, b.ints("size"), "size " + dims_str(b.ints("size")));
  else if (b.is_tensor("self") && !b.has("size") && b.short_name() != "arange")  // *_like, zero_, fill_
    b.expect_out_shape(0, b.shape(b.in("self")), "a result like self");
  for (size_t i = 0; i < b.num_outputs(); ++i) {
    const std::string o = b.out(i, /*keep_unused=*/true);
    if (o.empty()) continue;
    b.make_constant(o, fill);
  }
  b.set_note("a factory: its result is a constant");
}

void full_op(B& b) {
  factory_op(b, b.has("fill_value") ? std::optional<double>(b.number("fill_value")) : std::nullopt);
}

}  // namespace

const std::vector<AtenRow>& aten_table() {
  static const std::vector<AtenRow> rows = [] {
    std::vector<AtenRow> t = {
        // matrix products
        {"aten::mm", mm_op, false},
        {"aten::bmm", bmm_op, false},
        {"aten::matmul", matmul_op, false},
        {"aten::addmm", addmm_op, false},
        {"aten::baddbmm", baddbmm_op, false},
        {"aten::linear", linear_op, false},
        {"aten::convolution", convolution_op, false},
        {"aten::_convolution", convolution_op, false},
        {"aten::convolution_backward", convolution_backward_op, false},
        // normalisation, softmax
        {"aten::native_batch_norm", batch_norm_op, false},
        {"aten::native_layer_norm", layer_norm_op, false},
        {"aten::_softmax", [](B& b) { softmax_op(b, "Softmax"); }, false},
        {"aten::softmax", [](B& b) { softmax_op(b, "Softmax"); }, false},
        {"aten::_log_softmax", [](B& b) { softmax_op(b, "LogSoftmax"); }, false},
        {"aten::_softmax_backward_data", softmax_backward_op, false},
        {"aten::silu_backward", silu_backward_op, false},
        {"aten::slice_backward", slice_backward_op, false},
        {"aten::log_softmax", [](B& b) { softmax_op(b, "LogSoftmax"); }, false},
        // element-wise
        {"aten::add", [](B& b) { binary(b, "Add"); }, false},
        {"aten::add_", [](B& b) { binary(b, "Add"); }, false},
        {"aten::sub", [](B& b) { binary(b, "Sub"); }, false},
        {"aten::sub_", [](B& b) { binary(b, "Sub"); }, false},
        {"aten::rsub", rsub_op, false},
        {"aten::mul", [](B& b) { binary(b, "Mul"); }, false},
        {"aten::mul_", [](B& b) { binary(b, "Mul"); }, false},
        {"aten::div", div_op, false},
        {"aten::div_", div_op, false},
        {"aten::maximum", [](B& b) { binary(b, "Max"); }, false},
        {"aten::minimum", [](B& b) { binary(b, "Min"); }, false},
        {"aten::pow", pow_op, false},
        {"aten::where", where_op, false},
        {"aten::masked_fill", masked_fill_op, false},
        {"aten::relu", [](B& b) { unary_op(b, "Relu"); }, false},
        {"aten::relu_", [](B& b) { unary_op(b, "Relu"); }, false},
        {"aten::sigmoid", [](B& b) { unary_op(b, "Sigmoid"); }, false},
        {"aten::sigmoid_", [](B& b) { unary_op(b, "Sigmoid"); }, false},
        {"aten::tanh", [](B& b) { unary_op(b, "Tanh"); }, false},
        {"aten::tanh_", [](B& b) { unary_op(b, "Tanh"); }, false},
        {"aten::exp", [](B& b) { unary_op(b, "Exp"); }, false},
        {"aten::sqrt", [](B& b) { unary_op(b, "Sqrt"); }, false},
        {"aten::rsqrt", rsqrt_op, false},
        {"aten::reciprocal", [](B& b) { unary_op(b, "Reciprocal"); }, false},
        {"aten::neg", [](B& b) { unary_op(b, "Neg"); }, false},
        {"aten::abs", [](B& b) { unary_op(b, "Abs"); }, false},
        {"aten::erf", [](B& b) { unary_op(b, "Erf"); }, false},
        {"aten::gelu", gelu_op, false},
        {"aten::silu", silu_op, false},
        {"aten::silu_", silu_op, false},
        {"aten::leaky_relu", [](B& b) { unary_op(b, "LeakyRelu", {{"alpha", static_cast<float>(b.number("negative_slope", 0.01))}}); }, false},
        {"aten::leaky_relu_", [](B& b) { unary_op(b, "LeakyRelu", {{"alpha", static_cast<float>(b.number("negative_slope", 0.01))}}); }, false},
        {"aten::hardtanh", [](B& b) { clip_op(b, "min_val", "max_val", -1.0, 1.0); }, false},
        {"aten::hardtanh_", [](B& b) { clip_op(b, "min_val", "max_val", -1.0, 1.0); }, false},
        {"aten::clamp", [](B& b) { clip_op(b, "min", "max", std::nullopt, std::nullopt); }, false},
        {"aten::clamp_", [](B& b) { clip_op(b, "min", "max", std::nullopt, std::nullopt); }, false},
        // reductions and pooling
        {"aten::mean", [](B& b) { reduce_op(b, "ReduceMean"); }, false},
        {"aten::sum", [](B& b) { reduce_op(b, "ReduceSum"); }, false},
        {"aten::amax", [](B& b) { reduce_op(b, "ReduceMax"); }, false},
        {"aten::max_pool2d_with_indices", [](B& b) { pool_op(b, true); }, false},
        {"aten::max_pool2d", [](B& b) { pool_op(b, true); }, false},
        {"aten::avg_pool2d", [](B& b) { pool_op(b, false); }, false},
        {"aten::_adaptive_avg_pool2d", adaptive_avg_pool_op, false},
        {"aten::adaptive_avg_pool2d", adaptive_avg_pool_op, false},
        // data movement (folded when every tensor argument is a constant)
        {"aten::view", [](B& b) { reshape_op(b); }, true},
        {"aten::_unsafe_view", [](B& b) { reshape_op(b); }, true},
        {"aten::_reshape_alias", [](B& b) { reshape_op(b); }, true},
        {"aten::reshape", [](B& b) { reshape_op(b); }, true},
        {"aten::flatten", [](B& b) { reshape_op(b); }, true},
        {"aten::squeeze", [](B& b) { reshape_op(b); }, true},
        {"aten::unsqueeze", [](B& b) { reshape_op(b); }, true},
        {"aten::view_as", [](B& b) { reshape_op(b); }, true},
        {"aten::detach", [](B& b) { identity_op(b); }, true},
        {"aten::alias", [](B& b) { identity_op(b); }, true},
        {"aten::lift_fresh", [](B& b) { identity_op(b); }, true},
        {"aten::lift_fresh_copy", [](B& b) { identity_op(b); }, true},
        {"aten::clone", [](B& b) { identity_op(b); }, true},
        {"aten::contiguous", [](B& b) { identity_op(b); }, true},
        {"aten::_to_copy", to_copy_op, true},
        {"aten::t", t_op, true},
        {"aten::transpose", transpose_op, true},
        {"aten::permute", permute_op, true},
        {"aten::expand", expand_op, true},
        {"aten::slice", slice_op, true},
        {"aten::select", select_op, true},
        {"aten::cat", cat_op, true},
        {"aten::split", [](B& b) { split_op(b, false); }, true},
        {"aten::split_with_sizes", [](B& b) { split_op(b, false); }, true},
        {"aten::unbind", [](B& b) { split_op(b, true); }, true},
        {"aten::copy_", copy_op, true},
        {"aten::embedding", embedding_op, false},
        {"aten::native_dropout", dropout_op, false},
        // factories
        {"aten::empty", [](B& b) { factory_op(b, std::nullopt); }, false},
        {"aten::empty_strided", [](B& b) { factory_op(b, std::nullopt); }, false},
        {"aten::empty_like", [](B& b) { factory_op(b, std::nullopt); }, false},
        {"aten::new_empty", [](B& b) { factory_op(b, std::nullopt); }, false},
        {"aten::new_empty_strided", [](B& b) { factory_op(b, std::nullopt); }, false},
        {"aten::arange", [](B& b) { factory_op(b, std::nullopt); }, false},
        {"aten::zeros", [](B& b) { factory_op(b, 0.0); }, false},
        {"aten::zeros_like", [](B& b) { factory_op(b, 0.0); }, false},
        {"aten::new_zeros", [](B& b) { factory_op(b, 0.0); }, false},
        {"aten::zero_", [](B& b) { factory_op(b, 0.0); }, false},
        {"aten::ones", [](B& b) { factory_op(b, 1.0); }, false},
        {"aten::ones_like", [](B& b) { factory_op(b, 1.0); }, false},
        {"aten::new_ones", [](B& b) { factory_op(b, 1.0); }, false},
        {"aten::full", full_op, false},
        {"aten::full_like", full_op, false},
        {"aten::new_full", full_op, false},
        {"aten::fill_", [](B& b) { factory_op(b, b.is_tensor("value") ? std::nullopt : std::optional<double>(b.number("value"))); }, false},
        {"aten::scalar_tensor", [](B& b) { factory_op(b, b.number("s")); }, false},
    };
    std::sort(t.begin(), t.end(), [](const AtenRow& a, const AtenRow& b) { return std::string(a.name) < b.name; });
    return t;
  }();
  return rows;
}

const AtenRow* find_aten_row(const std::string& name) {
  const auto& t = aten_table();
  auto it = std::lower_bound(t.begin(), t.end(), name, [](const AtenRow& r, const std::string& n) { return r.name < n; });
  return it != t.end() && it->name == name ? &*it : nullptr;
}

}  // namespace photon::torch_frontend

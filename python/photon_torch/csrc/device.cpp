// The Photon PyTorch device (dispatch key PrivateUse1, device string "privateuseone"):
// tensors live in the simulated HBM (DeviceState's memory map, host memory as backing store),
// matrix products and convolutions run through the optical GEMM engine's numerics
// (models/optical_gemm/optical_numerics.h, ideal or physical as configured), every other op
// falls back to the CPU, and every op is counted (photon_torch.stats(), docs/torch.md "Device").
#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/Parallel.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>

#include <nlohmann/json.hpp>

#include "python/photon_torch/csrc/device_state.h"

namespace photon::torchdev {
namespace {

using at::Tensor;
constexpr c10::DeviceType kDev = c10::DeviceType::PrivateUse1;

// ---- memory ---------------------------------------------------------------------------------

void free_block(void* p) {
  DeviceState::get().on_free(p);
  c10::free_cpu(p);
}

/// Host buffers registered in the simulated HBM; an allocation beyond its capacity is an error.
struct PhotonAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) const override {
    if (n == 0) return {nullptr, nullptr, &free_block, c10::Device(kDev, 0)};
    // The simulated HBM decides first: a request beyond its capacity is the device's error, not
    // the host allocator's (which would fail, or thrash, on the backing store).
    try {
      DeviceState::get().check_fits(n);
    } catch (const std::exception& e) { TORCH_CHECK(false, e.what()); }
    void* p = nullptr;
    try {
      p = c10::alloc_cpu(n);
    } catch (const std::exception&) {
      TORCH_CHECK(false, "photon device: the host cannot provide the ", n,
                  " bytes of backing store for a block of the simulated HBM (host memory exhausted)");
    }
    try {
      DeviceState::get().on_alloc(p, n);
    } catch (const std::exception& e) {
      c10::free_cpu(p);
      TORCH_CHECK(false, e.what());
    }
    return {p, p, &free_block, c10::Device(kDev, 0)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
};

PhotonAllocator g_allocator;
REGISTER_ALLOCATOR(kDev, &g_allocator);

/// The platform is one device: privateuseone:0 (or no index). Any other index is an error
/// naming it, never a silent alias of device 0.
void check_index(c10::optional<c10::Device> d) {
  TORCH_CHECK(!d || d->type() != kDev || d->index() <= 0, "photon device: privateuseone:", int(d->index()),
              " does not exist; the platform is one device, privateuseone:0");
}

/// One device, one stream: the platform's command processor orders all work.
struct PhotonGuardImpl final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kDev; }
  c10::Device exchangeDevice(c10::Device d) const override {
    check_index(d);
    return c10::Device(kDev, 0);
  }
  c10::Device getDevice() const override { return c10::Device(kDev, 0); }
  void setDevice(c10::Device d) const override { check_index(d); }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override { return s; }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};
C10_REGISTER_GUARD_IMPL(PrivateUse1, PhotonGuardImpl);

/// A CPU tensor over a device tensor's memory (both are host memory): zero-copy.
Tensor cpu_view(const Tensor& t) {
  if (!t.defined()) return t;
  if (t.device().type() != kDev) return t;
  if (t.numel() == 0) return at::empty(t.sizes(), t.options().device(at::kCPU));
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

Tensor empty_memory_format(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                           c10::optional<at::Layout>, c10::optional<at::Device> device, c10::optional<bool>,
                           c10::optional<at::MemoryFormat> mf) {
  check_index(device);
  DeviceState::get().count_memory_op("aten::empty.memory_format");
  return at::detail::empty_generic(size, &g_allocator, c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   c10::dtype_or_default(dtype), mf);
}

Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, c10::optional<at::ScalarType> dtype,
                     c10::optional<at::Layout>, c10::optional<at::Device> device, c10::optional<bool>) {
  check_index(device);
  DeviceState::get().count_memory_op("aten::empty_strided");
  return at::detail::empty_strided_generic(size, stride, &g_allocator,
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           c10::dtype_or_default(dtype));
}

// self -> dst across the host/device boundary or within the device (both host memory).
Tensor copy_from(const Tensor& self, const Tensor& dst, bool) {
  DeviceState::get().count_memory_op("aten::_copy_from");
  const bool to_dev = dst.device().type() == kDev, from_dev = self.device().type() == kDev;
  if (to_dev && !from_dev) DeviceState::get().count_copy(true, uint64_t(self.numel()) * self.element_size());
  if (from_dev && !to_dev) DeviceState::get().count_copy(false, uint64_t(self.numel()) * self.element_size());
  Tensor d = cpu_view(dst);
  d.copy_(cpu_view(self));
  return dst;
}

Tensor copy_from_and_resize(const Tensor& self, const Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

Tensor view(const Tensor& self, at::IntArrayRef size) {
  DeviceState::get().count_memory_op("aten::view");
  return at::native::view(self, size);
}
Tensor reshape_alias(const Tensor& self, at::IntArrayRef size, at::IntArrayRef stride) {
  DeviceState::get().count_memory_op("aten::_reshape_alias");
  return at::native::_reshape_alias(self, size, stride);
}
Tensor as_strided(const Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                  c10::optional<int64_t> off) {
  DeviceState::get().count_memory_op("aten::as_strided");
  return at::native::as_strided_tensorimpl(self, size, stride, off);
}
const Tensor& resize(const Tensor& self, at::IntArrayRef size, c10::optional<at::MemoryFormat> mf) {
  DeviceState::get().count_memory_op("aten::resize_");
  return at::native::resize_(self, size, mf);  // grows the storage through its (our) allocator
}

// ---- CPU fallback ---------------------------------------------------------------------------

double stack_elements(const torch::jit::Stack& s, size_t begin) {
  double n = 0;
  for (size_t i = begin; i < s.size(); ++i) {
    if (s[i].isTensor())
      n += double(s[i].toTensor().numel());
    else if (s[i].isTensorList())
      for (const Tensor& t : s[i].toTensorList().vec()) n += double(t.numel());
  }
  return n;
}

std::string op_name(const c10::OperatorHandle& op) {
  const auto& n = op.operator_name();
  return n.overload_name.empty() ? n.name : n.name + "." + n.overload_name;
}

/// Every op without a device kernel: counted with its elements (inputs + outputs, the
/// lowering's host-cost measure), then computed by PyTorch's CPU kernels.
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const size_t nargs = op.schema().arguments().size();
  const size_t base = stack->size() - nargs;
  double elements = stack_elements(*stack, base);
  // torch 1.13's cpu_fallback moves Tensor and Tensor[] arguments only; lists of optional
  // tensors (the indices of index / index_put_) are moved here (zero-copy views, read-only).
  for (size_t i = base; i < stack->size(); ++i) {
    c10::IValue& iv = (*stack)[i];
    if (!iv.isList() || iv.isTensorList()) continue;
    const c10::List<c10::IValue> list = iv.toList();
    bool on_device = false;
    // A None index (x[:, idx]) arrives as an undefined tensor: it has no device.
    for (size_t j = 0; j < list.size(); ++j) {
      const c10::IValue e = list.get(j);
      on_device = on_device || (e.isTensor() && e.toTensor().defined() && e.toTensor().device().type() == kDev);
    }
    if (!on_device) continue;
    c10::List<c10::optional<Tensor>> moved;
    for (size_t j = 0; j < list.size(); ++j) {
      const c10::IValue e = list.get(j);
      if (e.isTensor() && e.toTensor().defined())
        moved.push_back(cpu_view(e.toTensor()));
      else
        moved.push_back(c10::nullopt);
    }
    iv = c10::IValue(moved);
  }
  at::native::cpu_fallback(op, stack);
  elements += stack_elements(*stack, stack->size() - op.schema().returns().size());
  DeviceState::get().count_fallback(op_name(op), elements);
}

// ---- GEMM kernels ---------------------------------------------------------------------------

/// An operand of a device GEMM: float32 and on the device (a CPU operand is an error naming it,
/// as PyTorch's own kernels refuse operands on two devices).
void check_float(const char* op, const Tensor& t, const char* what) {
  TORCH_CHECK(t.scalar_type() == at::kFloat, "photon device: ", op, ": ", what, " has dtype ",
              t.scalar_type(), "; the optical GEMM engine computes float32 (convert with .float())");
  TORCH_CHECK(t.device().type() == kDev || (t.dim() == 0 && t.device().is_cpu()), "photon device: ", op, ": ", what,
              " is on ", t.device(), ", the other operands on the device (move it with .to(photon_torch.device()))");
}

/// c[m x n] = a[m x k] * B with B given transposed, bt[n x k] (the layout of Linear and conv
/// weights as stored), through the engine's numerics. Ideal numerics are row-independent, so
/// rows are split over threads (bit-identical results); physical numerics take a full scale
/// over the whole input tile and run as one command.
void engine_gemm(const Tensor& a, const Tensor& bt, const Tensor& c) {
  const DeviceConfig cfg = DeviceState::get().config();
  const uint32_t m = uint32_t(a.size(0)), k = uint32_t(a.size(1)), n = uint32_t(bt.size(0));
  const uint64_t stream = DeviceState::get().next_stream();
  c.zero_();
  if (m == 0 || n == 0) return;
  if (cfg.numerics == Numerics::Physical) {
    optical::matmul_physical(a.data_ptr<float>(), bt.data_ptr<float>(), c.data_ptr<float>(), m, n, k,
                             cfg.physical, stream);
    return;
  }
  const Tensor b = bt.t().contiguous();
  const float* ap = a.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  float* cp = c.data_ptr<float>();
  at::parallel_for(0, m, 64, [&](int64_t i0, int64_t i1) {
    optical::matmul_ideal(ap + i0 * k, bp, cp + i0 * n, uint32_t(i1 - i0), n, k);
  });
}

/// Trace-op signature of a device op (docs/torch.md "Device timing"): the op, its tensors'
/// shapes and kinds (param = a weight operand), its non-tensor arguments and the result shape.
std::string signature(const std::string& op,
                      const std::vector<std::pair<const Tensor*, const char*>>& tensors,
                      const std::vector<std::string>& names, nlohmann::json args, const Tensor& out) {
  nlohmann::json ts = nlohmann::json::array();
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].first || !tensors[i].first->defined()) {
      args[names[i]] = nullptr;
      continue;
    }
    args[names[i]] = {{"tensor", ts.size()}};
    const Tensor& t = *tensors[i].first;
    nlohmann::json e = {{"shape", t.sizes().vec()}, {"kind", tensors[i].second}};
    // A weight operand that is the transpose of a stored matrix (nn.Linear's t(weight)): timed as
    // t() of the stored weight, as a trace of the same layer records it (docs/torch.md "Device").
    if (t.dim() == 2 && std::string(tensors[i].second) == "param" && t.size(0) > 1 && t.size(1) > 1 &&
        t.stride(0) == 1 && t.stride(1) == t.size(0))
      e["transposed"] = true;
    ts.push_back(std::move(e));
  }
  return nlohmann::json{{"op", op}, {"tensors", ts}, {"args", args}, {"out", out.sizes().vec()}}.dump();
}

Tensor device_empty(at::IntArrayRef size, const Tensor& like) {
  return at::empty(size, like.options().device(c10::Device(kDev, 0)));
}

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_float("aten::mm", self, "self");
  check_float("aten::mm", mat2, "mat2");
  TORCH_CHECK(self.dim() == 2 && mat2.dim() == 2 && self.size(1) == mat2.size(0),
              "photon device: aten::mm: shapes ", self.sizes(), " and ", mat2.sizes(), " do not multiply");
  Tensor out = device_empty({self.size(0), mat2.size(1)}, self);
  engine_gemm(cpu_view(self).contiguous(), cpu_view(mat2).t().contiguous(), cpu_view(out));
  DeviceState::get().count_device_op(
      "aten::mm",
      signature("aten::mm.default", {{&self, "input"}, {&mat2, "param"}}, {"self", "mat2"}, {}, out));
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
             const at::Scalar& alpha) {
  check_float("aten::addmm", mat1, "mat1");
  check_float("aten::addmm", mat2, "mat2");
  check_float("aten::addmm", self, "self");
  TORCH_CHECK(mat1.dim() == 2 && mat2.dim() == 2 && mat1.size(1) == mat2.size(0),
              "photon device: aten::addmm: shapes ", mat1.sizes(), " and ", mat2.sizes(), " do not multiply");
  Tensor out = device_empty({mat1.size(0), mat2.size(1)}, mat1);
  Tensor c = cpu_view(out);
  engine_gemm(cpu_view(mat1).contiguous(), cpu_view(mat2).t().contiguous(), c);
  // The engine adds the bias after the K sum (kBias); alpha and beta scale as ONNX Gemm.
  if (alpha.toDouble() != 1.0) c.mul_(alpha);
  if (beta.toDouble() != 0.0) c.add_(cpu_view(self).expand_as(c), beta);
  DeviceState::get().count_device_op(
      "aten::addmm",
      signature("aten::addmm.default", {{&self, "param"}, {&mat1, "input"}, {&mat2, "param"}},
                {"self", "mat1", "mat2"}, {{"beta", beta.toDouble()}, {"alpha", alpha.toDouble()}}, out));
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_float("aten::bmm", self, "self");
  check_float("aten::bmm", mat2, "mat2");
  TORCH_CHECK(
      self.dim() == 3 && mat2.dim() == 3 && self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1),
      "photon device: aten::bmm: shapes ", self.sizes(), " and ", mat2.sizes(), " do not multiply");
  Tensor out = device_empty({self.size(0), self.size(1), mat2.size(2)}, self);
  const Tensor a = cpu_view(self), b = cpu_view(mat2), c = cpu_view(out);
  for (int64_t i = 0; i < self.size(0); ++i) engine_gemm(a[i].contiguous(), b[i].t().contiguous(), c[i]);
  DeviceState::get().count_device_op(
      "aten::bmm",
      signature("aten::bmm.default", {{&self, "input"}, {&mat2, "input"}}, {"self", "mat2"}, {}, out));
  return out;
}

// Matrix-vector products: the engine's GEMM with one output column (vec is the stationary
// operand, as B transposed [1 x k]); timed as the mm / addmm of that shape.
Tensor mv(const Tensor& self, const Tensor& vec) {
  check_float("aten::mv", self, "self");
  check_float("aten::mv", vec, "vec");
  TORCH_CHECK(self.dim() == 2 && vec.dim() == 1 && self.size(1) == vec.size(0), "photon device: aten::mv: shapes ",
              self.sizes(), " and ", vec.sizes(), " do not multiply");
  const int64_t m = self.size(0), k = self.size(1);
  Tensor out = device_empty({m}, self);
  engine_gemm(cpu_view(self).contiguous(), cpu_view(vec).reshape({1, k}).contiguous(), cpu_view(out).view({m, 1}));
  DeviceState::get().count_device_op(
      "aten::mv", nlohmann::json{{"op", "aten::mm.default"},
                                 {"tensors", {{{"shape", {m, k}}, {"kind", "input"}}, {{"shape", {k, 1}}, {"kind", "param"}}}},
                                 {"args", {{"self", {{"tensor", 0}}}, {"mat2", {{"tensor", 1}}}}},
                                 {"out", {m, 1}}}
                      .dump());
  return out;
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const at::Scalar& beta,
             const at::Scalar& alpha) {
  check_float("aten::addmv", self, "self");
  check_float("aten::addmv", mat, "mat");
  check_float("aten::addmv", vec, "vec");
  TORCH_CHECK(mat.dim() == 2 && vec.dim() == 1 && mat.size(1) == vec.size(0), "photon device: aten::addmv: shapes ",
              mat.sizes(), " and ", vec.sizes(), " do not multiply");
  const int64_t m = mat.size(0), k = mat.size(1);
  Tensor out = device_empty({m}, mat);
  Tensor c = cpu_view(out);
  engine_gemm(cpu_view(mat).contiguous(), cpu_view(vec).reshape({1, k}).contiguous(), c.view({m, 1}));
  if (alpha.toDouble() != 1.0) c.mul_(alpha);
  if (beta.toDouble() != 0.0) c.add_(cpu_view(self).expand_as(c), beta);
  DeviceState::get().count_device_op(
      "aten::addmv",
      nlohmann::json{{"op", "aten::addmm.default"},
                     {"tensors",
                      {{{"shape", {m, 1}}, {"kind", "param"}},
                       {{"shape", {m, k}}, {"kind", "input"}},
                       {{"shape", {k, 1}}, {"kind", "param"}}}},
                     {"args",
                      {{"self", {{"tensor", 0}}},
                       {"mat1", {{"tensor", 1}}},
                       {"mat2", {{"tensor", 2}}},
                       {"beta", beta.toDouble()},
                       {"alpha", alpha.toDouble()}}},
                     {"out", {m, 1}}}
          .dump());
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const at::Scalar& beta,
               const at::Scalar& alpha) {
  check_float("aten::baddbmm", self, "self");
  check_float("aten::baddbmm", batch1, "batch1");
  check_float("aten::baddbmm", batch2, "batch2");
  TORCH_CHECK(batch1.dim() == 3 && batch2.dim() == 3 && batch1.size(0) == batch2.size(0) &&
                  batch1.size(2) == batch2.size(1),
              "photon device: aten::baddbmm: shapes ", batch1.sizes(), " and ", batch2.sizes(), " do not multiply");
  Tensor out = device_empty({batch1.size(0), batch1.size(1), batch2.size(2)}, batch1);
  const Tensor a = cpu_view(batch1), b = cpu_view(batch2);
  Tensor c = cpu_view(out);
  for (int64_t i = 0; i < batch1.size(0); ++i) engine_gemm(a[i].contiguous(), b[i].t().contiguous(), c[i]);
  if (alpha.toDouble() != 1.0) c.mul_(alpha);
  if (beta.toDouble() != 0.0) c.add_(cpu_view(self).expand_as(c), beta);
  DeviceState::get().count_device_op(
      "aten::baddbmm",
      signature("aten::baddbmm.default", {{&self, "input"}, {&batch1, "input"}, {&batch2, "input"}},
                {"self", "batch1", "batch2"}, {{"beta", beta.toDouble()}, {"alpha", alpha.toDouble()}}, out));
  return out;
}

// out= and in-place forms: the functional kernel above, then the result written into `out`
// (resized as ATen's out= convention) or `self`.
Tensor& write_out(const Tensor& r, Tensor& out) {
  if (out.sizes() != r.sizes()) out.resize_(r.sizes());
  cpu_view(out).copy_(cpu_view(r));
  return out;
}
Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) { return write_out(::photon::torchdev::mm(self, mat2), out); }
Tensor& bmm_out(const Tensor& self, const Tensor& mat2, Tensor& out) { return write_out(::photon::torchdev::bmm(self, mat2), out); }
Tensor& mv_out(const Tensor& self, const Tensor& vec, Tensor& out) { return write_out(::photon::torchdev::mv(self, vec), out); }
Tensor& addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
                  const at::Scalar& alpha, Tensor& out) {
  return write_out(::photon::torchdev::addmm(self, mat1, mat2, beta, alpha), out);
}
Tensor& addmv_out(const Tensor& self, const Tensor& mat, const Tensor& vec, const at::Scalar& beta,
                  const at::Scalar& alpha, Tensor& out) {
  return write_out(::photon::torchdev::addmv(self, mat, vec, beta, alpha), out);
}
Tensor& baddbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const at::Scalar& beta,
                    const at::Scalar& alpha, Tensor& out) {
  return write_out(::photon::torchdev::baddbmm(self, batch1, batch2, beta, alpha), out);
}
Tensor& addmm_(Tensor& self, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
               const at::Scalar& alpha) {
  return write_out(::photon::torchdev::addmm(self, mat1, mat2, beta, alpha), self);
}
Tensor& addmv_(Tensor& self, const Tensor& mat, const Tensor& vec, const at::Scalar& beta, const at::Scalar& alpha) {
  return write_out(::photon::torchdev::addmv(self, mat, vec, beta, alpha), self);
}
Tensor& baddbmm_(Tensor& self, const Tensor& batch1, const Tensor& batch2, const at::Scalar& beta,
                 const at::Scalar& alpha) {
  return write_out(::photon::torchdev::baddbmm(self, batch1, batch2, beta, alpha), self);
}

Tensor run_on_cpu_conv(const Tensor& x, const Tensor& w, const c10::optional<Tensor>& bias,
                       at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
                       bool transposed, at::IntArrayRef output_padding, int64_t groups) {
  c10::optional<Tensor> b;
  if (bias && bias->defined()) b = cpu_view(*bias).clone();
  Tensor y = at::convolution(cpu_view(x).clone(), cpu_view(w).clone(), b, stride, padding, dilation,
                             transposed, output_padding, groups);
  DeviceState::get().count_fallback("aten::convolution_overrideable",
                                    double(x.numel() + w.numel() + y.numel()));
  Tensor out = device_empty(y.sizes(), x);
  cpu_view(out).copy_(y);
  return out;
}

// 2-D convolution as the platform lowers it (docs/lowering.md "GEMM core"): per image and
// group, the im2col matrix (C/g*kh*kw taps, in channel-row-column order) streams through the
// engine against the weight as stored ([M/g x C/g*kh*kw] = B transposed); the bias is added last.
Tensor convolution(const Tensor& input, const Tensor& weight, const c10::optional<Tensor>& bias,
                   at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                   at::IntArrayRef output_padding, int64_t groups) {
  check_float("aten::convolution", input, "input");
  check_float("aten::convolution", weight, "weight");
  if (transposed || input.dim() != 4)  // transposed, 1-D and 3-D convolutions: the CPU's kernels
    return run_on_cpu_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                           groups);
  const int64_t N = input.size(0), C = input.size(1), M = weight.size(0), kh = weight.size(2),
                kw = weight.size(3);
  const int64_t Cg = C / groups, Mg = M / groups, K = Cg * kh * kw;
  const Tensor x = cpu_view(input).contiguous();
  const Tensor cols = at::im2col(x, {kh, kw}, dilation, padding, stride);  // [N, C*kh*kw, L]
  const int64_t H = input.size(2), W = input.size(3);
  const int64_t OH = (H + 2 * padding[0] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t OW = (W + 2 * padding[1] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  Tensor out = device_empty({N, M, OH, OW}, input);
  Tensor y = cpu_view(out);
  const Tensor wm = cpu_view(weight).reshape({M, K});
  at::Tensor c = at::empty({OH * OW, Mg}, x.options());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < groups; ++g) {
      const Tensor a = cols[n].narrow(0, g * K, K).t().contiguous();  // [L, K]
      const Tensor bt = wm.narrow(0, g * Mg, Mg).contiguous();        // [Mg, K]
      engine_gemm(a, bt, c);
      y[n].narrow(0, g * Mg, Mg).view({Mg, OH * OW}).copy_(c.t());
    }
  if (bias && bias->defined()) {
    check_float("aten::convolution", *bias, "bias");
    y.add_(cpu_view(*bias).view({1, M, 1, 1}));
  }
  DeviceState::get().count_device_op(
      "aten::convolution",
      signature("aten::convolution.default",
                {{&input, "input"}, {&weight, "param"}, {bias ? &*bias : nullptr, "param"}},
                {"input", "weight", "bias"},
                {{"stride", stride.vec()},
                 {"padding", padding.vec()},
                 {"dilation", dilation.vec()},
                 {"transposed", false},
                 {"output_padding", output_padding.vec()},
                 {"groups", groups}},
                out));
  return out;
}

// Backward of a 2-D convolution as the engine's GEMMs (per image and group, im2col columns
// cols[K, L], K = C/g*kh*kw taps, L = output pixels):
//   grad_weight[Mg, K] = sum over images of G[Mg, L] * cols[K, L]^T   (G streams, cols as weights)
//   grad_cols[K, L]    = W[Mg, K]^T * G[Mg, L], then col2im (the adjoint of im2col) -> grad_input
//   grad_bias[M]       = sum of G over images and pixels
// Transposed, 1-D and 3-D convolutions run on the CPU.
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, at::IntArrayRef stride,
                                                        at::IntArrayRef padding, at::IntArrayRef dilation,
                                                        bool transposed, at::IntArrayRef output_padding,
                                                        int64_t groups, std::array<bool, 3> mask) {
  check_float("aten::convolution_backward", grad_output, "grad_output");
  check_float("aten::convolution_backward", input, "input");
  check_float("aten::convolution_backward", weight, "weight");
  if (!transposed && input.dim() == 4) {
    const int64_t N = input.size(0), C = input.size(1), M = weight.size(0), kh = weight.size(2),
                  kw = weight.size(3);
    const int64_t Cg = C / groups, Mg = M / groups, K = Cg * kh * kw;
    const int64_t OH = grad_output.size(2), OW = grad_output.size(3), L = OH * OW;
    const Tensor x = cpu_view(input).contiguous(), g = cpu_view(grad_output).contiguous();
    const Tensor cols = at::im2col(x, {kh, kw}, dilation, padding, stride);  // [N, C*kh*kw, L]
    const Tensor wm = cpu_view(weight).reshape({M, K});
    Tensor gi, gw, gb;
    if (mask[1]) gw = at::zeros({M, K}, x.options());
    Tensor dcols = mask[0] ? at::empty({N, C * kh * kw, L}, x.options()) : Tensor();
    Tensor part = at::empty({std::max(Mg, K), std::max(K, L)}, x.options());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t gr = 0; gr < groups; ++gr) {
        const Tensor gn = g[n].narrow(0, gr * Mg, Mg).reshape({Mg, L});  // [Mg, L]
        if (mask[1]) {
          Tensor c = part.narrow(0, 0, Mg).narrow(1, 0, K).contiguous();
          engine_gemm(gn.contiguous(), cols[n].narrow(0, gr * K, K).contiguous(), c);
          gw.narrow(0, gr * Mg, Mg).add_(c);
        }
        if (mask[0]) {
          Tensor c = at::empty({K, L}, x.options());
          engine_gemm(wm.narrow(0, gr * Mg, Mg).t().contiguous(), gn.t().contiguous(), c);
          dcols[n].narrow(0, gr * K, K).copy_(c);
        }
      }
    if (mask[0]) gi = at::col2im(dcols, {input.size(2), input.size(3)}, {kh, kw}, dilation, padding, stride);
    if (mask[2]) gb = g.sum({0, 2, 3});
    nlohmann::json args = {{"bias_sizes", std::vector<int64_t>{M}},
                           {"stride", stride.vec()},
                           {"padding", padding.vec()},
                           {"dilation", dilation.vec()},
                           {"transposed", false},
                           {"output_padding", output_padding.vec()},
                           {"groups", groups},
                           {"output_mask", std::vector<bool>{mask[0], mask[1], mask[2]}}};
    auto to_dev = [&](const Tensor& t, at::IntArrayRef sizes) {
      if (!t.defined()) return t;
      Tensor o = device_empty(sizes, input);
      cpu_view(o).copy_(t.reshape(sizes));
      return o;
    };
    Tensor dgi = to_dev(gi, input.sizes()), dgw = to_dev(gw, weight.sizes()), dgb = to_dev(gb, {M});
    nlohmann::json ts = nlohmann::json::array({{{"shape", grad_output.sizes().vec()}, {"kind", "input"}},
                                               {{"shape", input.sizes().vec()}, {"kind", "input"}},
                                               {{"shape", weight.sizes().vec()}, {"kind", "param"}}});
    args["grad_output"] = {{"tensor", 0}};
    args["input"] = {{"tensor", 1}};
    args["weight"] = {{"tensor", 2}};
    nlohmann::json outs = nlohmann::json::array();
    for (const Tensor* t : {&dgi, &dgw, &dgb})
      outs.push_back(t->defined() ? nlohmann::json(t->sizes().vec()) : nlohmann::json());
    DeviceState::get().count_device_op(
        "aten::convolution_backward",
        nlohmann::json{
            {"op", "aten::convolution_backward.default"}, {"tensors", ts}, {"args", args}, {"outs", outs}}
            .dump());
    return {dgi, dgw, dgb};
  }
  const std::vector<int64_t> bias_sizes = {weight.size(0)};
  auto [gi, gw, gb] =
      at::convolution_backward(cpu_view(grad_output).clone(), cpu_view(input).clone(),
                               cpu_view(weight).clone(), at::OptionalIntArrayRef(bias_sizes), stride, padding,
                               dilation, transposed, output_padding, groups, mask);
  DeviceState::get().count_fallback("aten::convolution_backward_overrideable",
                                    double(grad_output.numel() + input.numel() + weight.numel()));
  auto to_dev = [&](const Tensor& t) {
    if (!t.defined()) return t;
    Tensor o = device_empty(t.sizes(), input);
    cpu_view(o).copy_(t);
    return o;
  };
  return {to_dev(gi), to_dev(gw), to_dev(gb)};
}

// BatchNorm on the CPU's kernel with the running statistics written back to the device tensors
// (torch 1.13's boxed CPU fallback copies running_mean/running_var to the CPU and drops the
// update: the schema does not mark them as written).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const c10::optional<Tensor>& weight,
                                                     const c10::optional<Tensor>& bias,
                                                     const c10::optional<Tensor>& running_mean,
                                                     const c10::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  auto cpu = [](const c10::optional<Tensor>& t) -> c10::optional<Tensor> {
    if (!t || !t->defined()) return c10::nullopt;
    return cpu_view(*t).clone();
  };
  c10::optional<Tensor> rm = cpu(running_mean), rv = cpu(running_var);
  auto [y, mean, invstd] =
      at::native_batch_norm(cpu_view(input).clone(), cpu(weight), cpu(bias), rm, rv, training, momentum, eps);
  if (training) {
    if (rm) cpu_view(*running_mean).copy_(*rm);
    if (rv) cpu_view(*running_var).copy_(*rv);
  }
  DeviceState::get().count_fallback("aten::native_batch_norm", double(2 * input.numel()));
  auto to_dev = [&](const Tensor& t) {
    Tensor o = device_empty(t.sizes(), input);
    cpu_view(o).copy_(t);
    return o;
  };
  return {to_dev(y), to_dev(mean), to_dev(invstd)};
}

// ---- control ops: torch.ops.photon.* ----------------------------------------------------------

void configure(const std::string& resolved_json, const std::string& source) {
  try {
    DeviceState::get().configure(device_config_from_json(resolved_json, source));
  } catch (const std::exception& e) { TORCH_CHECK(false, e.what()); }
}

std::string stats() { return DeviceState::get().stats_json(); }
void reset_stats() { DeviceState::get().reset_counters(); }
int64_t address_of(const Tensor& t) {
  TORCH_CHECK(t.device().type() == kDev, "photon device: address_of needs a tensor on the device, not on ",
              t.device());
  uint64_t base = 0;
  TORCH_CHECK(DeviceState::get().address_of(t.storage().data(), &base),
              "photon device: the tensor's storage is not in the simulated HBM");
  return int64_t(base + uint64_t(t.storage_offset()) * t.element_size());
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", empty_memory_format);
  m.impl("empty_strided", empty_strided);
  m.impl("_copy_from", copy_from);
  m.impl("_copy_from_and_resize", copy_from_and_resize);
  m.impl("view", view);
  m.impl("_reshape_alias", reshape_alias);
  m.impl("as_strided", as_strided);
  m.impl("resize_", resize);
  m.impl("mm", mm);
  m.impl("addmm", addmm);
  m.impl("bmm", bmm);
  m.impl("mv", mv);
  m.impl("addmv", addmv);
  m.impl("baddbmm", baddbmm);
  m.impl("mm.out", mm_out);
  m.impl("bmm.out", bmm_out);
  m.impl("mv.out", mv_out);
  m.impl("addmm.out", addmm_out);
  m.impl("addmv.out", addmv_out);
  m.impl("baddbmm.out", baddbmm_out);
  m.impl("addmm_", addmm_);
  m.impl("addmv_", addmv_);
  m.impl("baddbmm_", baddbmm_);
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolution_backward);
  m.impl("native_batch_norm", native_batch_norm);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) { m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>()); }

TORCH_LIBRARY(photon, m) {
  m.def("configure(str resolved_json, str source) -> ()", configure);
  m.def("stats() -> str", stats);
  m.def("reset_stats() -> ()", reset_stats);
  m.def("address_of(Tensor t) -> int", address_of);
}

}  // namespace photon::torchdev

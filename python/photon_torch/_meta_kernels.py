"""Meta-device kernels that torch 1.13 lacks, so that train=True traces run on the meta device.

torch 1.13 routes aten::convolution_backward on the meta device to
convolution_backward_overrideable, which has no kernel; the kernel registered here returns
tensors of the shapes the real kernel returns (grad_input like input, grad_weight like weight,
grad_bias of bias_sizes), and an undefined tensor where output_mask is false.

The backward ops of adaptive average pooling (an output other than 1x1) and of reflection and
replication padding have no meta kernel in 1.13 either; their one result, the gradient of the
input, has the input's shape and dtype (their schemas: (grad_output, self, ...) -> Tensor).
Each is registered only where torch has no meta kernel of its own.
"""
import torch

_lib = None

# (grad_output, self, ...) -> grad_input shaped like self.
_GRAD_LIKE_SELF = (
    "_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward",
    "reflection_pad1d_backward", "reflection_pad2d_backward", "reflection_pad3d_backward",
    "replication_pad1d_backward", "replication_pad2d_backward", "replication_pad3d_backward",
)


def _convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                          output_padding, groups, output_mask):
    gi = torch.empty_like(input, device="meta") if output_mask[0] else None
    gw = torch.empty_like(weight, device="meta") if output_mask[1] else None
    gb = None
    if output_mask[2]:
        gb = torch.empty(list(bias_sizes), dtype=grad_output.dtype, device="meta")
    return gi, gw, gb


def _grad_like_self(grad_output, self, *args):
    return torch.empty_like(self, device="meta")


def register() -> None:
    """Registers the kernels once per process."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL", "Meta")
    lib.impl("convolution_backward", _convolution_backward)
    for name in _GRAD_LIKE_SELF:
        if not torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + name, "Meta"):
            lib.impl(name, _grad_like_self)
    _lib = lib

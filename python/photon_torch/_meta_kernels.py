"""Meta-device kernels that torch 1.13 lacks, so that train=True traces run on the meta device.

torch 1.13 routes aten::convolution_backward on the meta device to
convolution_backward_overrideable, which has no kernel; the kernel registered here returns
tensors of the shapes the real kernel returns (grad_input like input, grad_weight like weight,
grad_bias of bias_sizes), and an undefined tensor where output_mask is false.
"""
import torch

_lib = None


def _convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                          output_padding, groups, output_mask):
    gi = torch.empty_like(input, device="meta") if output_mask[0] else None
    gw = torch.empty_like(weight, device="meta") if output_mask[1] else None
    gb = None
    if output_mask[2]:
        gb = torch.empty(list(bias_sizes), dtype=grad_output.dtype, device="meta")
    return gi, gw, gb


def register() -> None:
    """Registers the kernels once per process."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL", "Meta")
    lib.impl("convolution_backward", _convolution_backward)
    _lib = lib

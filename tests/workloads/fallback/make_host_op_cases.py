#!/usr/bin/python3
"""Writes host_op_cases.json: inputs and expected outputs of the host fallback references
(workloads/fallback/host_ops.h), computed by PyTorch and NumPy, an implementation independent of
Photon's loops. Run with Debian's /usr/bin/python3 (python3-torch, python3-numpy):

    /usr/bin/python3 tests/workloads/fallback/make_host_op_cases.py

Each case: op type, attributes (ONNX names), inputs (shape, values; an absent optional input is
null) and the expected output (shape, values). Values are rounded to fp32."""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(20261201)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def t(a):
    return {"shape": list(a.shape), "data": [float(v) for v in np.asarray(a, dtype=np.float32).ravel()]}


cases = []


def case(name, op, attrs, inputs, out):
    cases.append({"name": name, "op": op, "attrs": attrs,
                  "inputs": [None if i is None else t(i) for i in inputs], "output": t(out)})


# ConvTranspose: torch.nn.functional.conv_transpose{1,2}d (weight layout C x M/group x k, as ONNX).
x, w, b = rand(1, 2, 3, 3), rand(2, 3, 3, 3), rand(3)
y = F.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), stride=2, padding=1,
                       output_padding=1).numpy()
case("convtranspose2d_stride2_pad1_outpad1_bias", "ConvTranspose",
     {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1], "kernel_shape": [3, 3]}, [x, w, b], y)

x, w = rand(2, 4, 4, 3), rand(4, 1, 2, 2)
y = F.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), groups=2, dilation=2).numpy()
case("convtranspose2d_group2_dilation2", "ConvTranspose", {"group": 2, "dilations": [2, 2]}, [x, w], y)

x, w = rand(2, 1, 5), rand(1, 2, 3)
y = F.conv_transpose1d(torch.from_numpy(x), torch.from_numpy(w), stride=3).numpy()
case("convtranspose1d_stride3", "ConvTranspose", {"strides": [3]}, [x, w], y)

# Resize: torch.nn.functional.interpolate. torch 'nearest' = ONNX asymmetric + floor; 'bilinear'
# with align_corners False/True = ONNX linear half_pixel / align_corners (scales from the sizes).
x = rand(1, 1, 3, 4)
y = F.interpolate(torch.from_numpy(x), size=(7, 5), mode="nearest").numpy()
case("resize_nearest_asymmetric_floor", "Resize",
     {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}, [x], y)

x = rand(1, 2, 3, 4)
y = F.interpolate(torch.from_numpy(x), size=(5, 7), mode="bilinear", align_corners=False).numpy()
case("resize_linear_half_pixel", "Resize", {"mode": "linear"}, [x], y)

y = F.interpolate(torch.from_numpy(x), size=(6, 8), mode="bilinear", align_corners=True).numpy()
case("resize_linear_align_corners", "Resize", {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
     [x], y)

# Resize cubic: torch 'bicubic' (Keys' kernel, A = -0.75, edge-clamped taps) with align_corners
# False/True = ONNX cubic half_pixel / align_corners, exclude_outside 0.
x = rand(1, 2, 4, 5)
y = F.interpolate(torch.from_numpy(x), size=(7, 3), mode="bicubic", align_corners=False).numpy()
case("resize_cubic_half_pixel", "Resize", {"mode": "cubic"}, [x], y)
y = F.interpolate(torch.from_numpy(x), size=(6, 9), mode="bicubic", align_corners=True).numpy()
case("resize_cubic_align_corners", "Resize", {"mode": "cubic", "coordinate_transformation_mode": "align_corners"},
     [x], y)

# MaxPool with dilation: torch.nn.functional.max_pool{1,2,3}d (pads symmetric, ceil_mode).
x = rand(2, 3, 7, 8)
y = F.max_pool2d(torch.from_numpy(x), kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 3),
                 ceil_mode=True).numpy()
case("maxpool2d_dilation_pad_ceil", "MaxPool",
     {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 1, 1, 1], "dilations": [2, 3], "ceil_mode": 1}, [x], y)
x = rand(1, 2, 9)
y = F.max_pool1d(torch.from_numpy(x), kernel_size=3, stride=2, dilation=2).numpy()
case("maxpool1d_dilation", "MaxPool", {"kernel_shape": [3], "strides": [2], "dilations": [2]}, [x], y)
x = rand(1, 1, 4, 5, 4)
y = F.max_pool3d(torch.from_numpy(x), kernel_size=2, stride=2).numpy()
case("maxpool3d", "MaxPool", {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}, [x], y)
x = rand(1, 2, 5, 4, 6)
y = F.avg_pool3d(torch.from_numpy(x), kernel_size=(3, 2, 3), stride=(2, 2, 2), padding=(1, 1, 1),
                 count_include_pad=True).numpy()
case("averagepool3d_pad_count_include_pad", "AveragePool",
     {"kernel_shape": [3, 2, 3], "strides": [2, 2, 2], "pads": [1, 1, 1, 1, 1, 1], "count_include_pad": 1}, [x], y)


def dilated_avg_pool2d(x, k, stride, pad, dil, include_pad):
    """AveragePool (opset 19, dilations) as a depthwise convolution with a ones kernel, divided by
    the count of input (or, with count_include_pad, padded-input) positions in each window."""
    c = x.shape[1]
    ones = torch.ones(c, 1, *k)
    xt = torch.from_numpy(x)
    s = F.conv2d(F.pad(xt, (pad[1], pad[1], pad[0], pad[0])), ones, stride=stride, dilation=dil, groups=c)
    mask = torch.ones(1, 1, *x.shape[2:])
    mask = F.pad(mask, (pad[1], pad[1], pad[0], pad[0]), value=0.0 if not include_pad else 1.0)
    n = F.conv2d(mask, torch.ones(1, 1, *k), stride=stride, dilation=dil)
    return (s / n).numpy()


x = rand(2, 3, 6, 7)
case("averagepool2d_dilation_pad", "AveragePool",
     {"kernel_shape": [2, 3], "strides": [1, 2], "pads": [1, 1, 1, 1], "dilations": [2, 2]}, [x],
     dilated_avg_pool2d(x, (2, 3), (1, 2), (1, 1), (2, 2), False))
case("averagepool2d_dilation_count_include_pad", "AveragePool",
     {"kernel_shape": [2, 3], "strides": [1, 2], "pads": [1, 1, 1, 1], "dilations": [2, 2], "count_include_pad": 1},
     [x], dilated_avg_pool2d(x, (2, 3), (1, 2), (1, 1), (2, 2), True))

# Gather: numpy.take (negative indices count from the end, as in ONNX).
data = rand(5, 3)
idx = np.array([[0, 4, -1], [2, 2, -5]], dtype=np.float32)
case("gather_axis0_negative", "Gather", {"axis": 0}, [data, idx], np.take(data, idx.astype(np.int64), axis=0))
data = rand(2, 4, 3)
idx = np.array([3, 0, -2], dtype=np.float32)
case("gather_axis1", "Gather", {"axis": 1}, [data, idx], np.take(data, idx.astype(np.int64), axis=1))

# Softmax / LogSoftmax over a non-last axis (opset 13), Transpose with any permutation.
x = rand(2, 3, 4)
case("softmax_axis1", "Softmax", {"axis": 1}, [x], torch.softmax(torch.from_numpy(x), 1).numpy())
case("logsoftmax_axis0", "LogSoftmax", {"axis": 0}, [x], torch.log_softmax(torch.from_numpy(x), 0).numpy())
case("transpose_201", "Transpose", {"perm": [2, 0, 1]}, [x], torch.from_numpy(x).permute(2, 0, 1).numpy())

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_op_cases.json")
with open(out, "w") as f:
    json.dump({"generator": "make_host_op_cases.py (torch " + torch.__version__ + ", numpy " + np.__version__ + ")",
               "cases": cases}, f, indent=1)
print(out, len(cases), "cases")

#!/usr/bin/env python3
"""Builds the project's example ONNX models with Debian's python3-onnx (no network, no torch).

resnet8_cifar.onnx: the ResNet-8 of He et al. (CVPR 2016, section 4.2: CIFAR-10 ResNets with
n = 1, i.e. 3 stages of one basic block, 16/32/64 channels), batch 1, 3x32x32 input, seeded
random weights, opset 13. Usage: make_example_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(2016)
nodes, inits = [], []


def weight(name, shape, fan_in):
    arr = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    inits.append(numpy_helper.from_array(arr, name))
    return name


def conv_bn(x, name, cin, cout, stride, relu=True):
    w = weight(name + ".w", (cout, cin, 3, 3), cin * 9)
    nodes.append(helper.make_node("Conv", [x, w], [name + ".conv"], name=name,
                                  kernel_shape=[3, 3], strides=[stride, stride], pads=[1, 1, 1, 1]))
    scale = weight(name + ".bn.scale", (cout,), 2.0)
    bias = weight(name + ".bn.bias", (cout,), 200.0)
    mean = weight(name + ".bn.mean", (cout,), 200.0)
    var = name + ".bn.var"
    inits.append(numpy_helper.from_array(np.ones(cout, np.float32), var))
    nodes.append(helper.make_node("BatchNormalization", [name + ".conv", scale, bias, mean, var],
                                  [name + ".bn"], name=name + ".bn", epsilon=1e-5))
    if not relu:
        return name + ".bn"
    nodes.append(helper.make_node("Relu", [name + ".bn"], [name + ".relu"], name=name + ".relu"))
    return name + ".relu"


def basic_block(x, name, cin, cout, stride):
    y = conv_bn(x, name + ".conv1", cin, cout, stride)
    y = conv_bn(y, name + ".conv2", cout, cout, 1, relu=False)
    if stride != 1 or cin != cout:
        w = weight(name + ".down.w", (cout, cin, 1, 1), cin)
        nodes.append(helper.make_node("Conv", [x, w], [name + ".down"], name=name + ".down",
                                      kernel_shape=[1, 1], strides=[stride, stride]))
        x = name + ".down"
    nodes.append(helper.make_node("Add", [y, x], [name + ".add"], name=name + ".add"))
    nodes.append(helper.make_node("Relu", [name + ".add"], [name + ".out"], name=name + ".out"))
    return name + ".out"


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "build/examples"
    os.makedirs(out_dir, exist_ok=True)
    x = conv_bn("input", "stem", 3, 16, 1)
    x = basic_block(x, "stage1", 16, 16, 1)
    x = basic_block(x, "stage2", 16, 32, 2)
    x = basic_block(x, "stage3", 32, 64, 2)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pool"], name="pool"))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1))
    fc_w = weight("fc.w", (10, 64), 64)
    fc_b = weight("fc.b", (10,), 1e4)
    nodes.append(helper.make_node("Gemm", ["flat", fc_w, fc_b], ["logits"], name="fc", transB=1))
    graph = helper.make_graph(
        nodes, "resnet8_cifar",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="photon-examples")
    onnx.checker.check_model(model)
    path = os.path.join(out_dir, "resnet8_cifar.onnx")
    tmp = path + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, path)
    # A deterministic input: arange(n)/n, as the ONNX light-model oracles use.
    n = 3 * 32 * 32
    inp = (np.arange(n, dtype=np.float32) / n).reshape(1, 3, 32, 32)
    with open(os.path.join(out_dir, "resnet8_cifar_input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(inp, "input").SerializeToString())


if __name__ == "__main__":
    main()

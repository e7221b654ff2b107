#!/usr/bin/python3
"""Writes small one- and two-node ONNX models as seeds for the ONNX loader's fuzz harness, one per
kind of thing the loader checks: shape inference, constant folding (Constant, Shape, Reshape,
Expand, ConstantOfShape), broadcasting (Add, Gemm's C), sliding windows (Conv, MaxPool), and
integer initializers. Built with Debian's python3-onnx. Usage: make_onnx_seeds.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    return name, m


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def seeds():
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
    c = numpy_helper.from_array(np.zeros((4,), np.float32), "c")
    yield model("gemm", [helper.make_node("Gemm", ["x", "w", "c"], ["y"], transB=1)],
                [vi("x", [2, 3])], [vi("y", [2, 4])], [w, c])
    k = numpy_helper.from_array(np.ones((2, 1, 3, 3), np.float32), "k")
    yield model("conv_pool", [
        helper.make_node("Conv", ["x", "k"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[1, 1], dilations=[1, 1]),
        helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        [vi("x", [1, 1, 8, 8])], [vi("y", [1, 2, 4, 4])], [k])
    shape = numpy_helper.from_array(np.array([2, 6], np.int64), "shape")
    yield model("reshape_shape", [
        helper.make_node("Constant", [], ["s2"],
                         value=numpy_helper.from_array(np.array([3, 2, 6], np.int64))),
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Expand", ["r", "s2"], ["y"])],
        [vi("x", [3, 4])], [vi("y", [3, 2, 6])], [shape])
    yield model("const_of_shape_add", [
        helper.make_node("ConstantOfShape", ["dims"], ["z"],
                         value=numpy_helper.from_array(np.array([1.5], np.float32))),
        helper.make_node("Add", ["x", "z"], ["y"])],
        [vi("x", [2, 3])], [vi("y", [2, 3])],
        [numpy_helper.from_array(np.array([1, 3], np.int64), "dims")])
    yield model("matmul_softmax", [
        helper.make_node("MatMul", ["x", "m"], ["h"]),
        helper.make_node("Softmax", ["h"], ["y"], axis=-1)],
        [vi("x", [1, 4, 8])], [vi("y", [1, 4, 8])],
        [numpy_helper.from_array(np.eye(8, dtype=np.float32), "m")])
    yield model("gather_concat", [
        helper.make_node("Gather", ["x", "idx"], ["g"], axis=0),
        helper.make_node("Concat", ["g", "g"], ["y"], axis=1)],
        [vi("x", [4, 3])], [vi("y", [2, 6])],
        [numpy_helper.from_array(np.array([0, 2], np.int64), "idx")])
    yield model("batchnorm_relu", [
        helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["n"]),
        helper.make_node("Relu", ["n"], ["y"])],
        [vi("x", [1, 2, 4, 4])], [vi("y", [1, 2, 4, 4])],
        [numpy_helper.from_array(np.ones(2, np.float32), n) for n in ("s", "b", "m", "v")])
    yield model("transpose_slice", [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
        helper.make_node("Slice", ["t", "st", "en"], ["y"])],
        [vi("x", [4, 6])], [vi("y", [3, 4])],
        [numpy_helper.from_array(np.array([0], np.int64), "st"),
         numpy_helper.from_array(np.array([3], np.int64), "en")], opset=11)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in seeds():
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()

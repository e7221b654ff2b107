#!/usr/bin/python3
"""Writes workloads/torch/aten_ops.txt: the names of the ATen operators (namespace aten) of the
installed torch that take or return a Tensor, one per line without the "aten::" prefix, sorted.

Source: torch._C._jit_get_all_schemas(), the schemas of every registered operator. The op-trace
frontend (workloads/torch) accepts an op only if its name is in this list, as the ONNX frontend
accepts a node only if its op type is in ONNX's schema registry. Regenerate when the supported
torch version changes:  /usr/bin/python3 scripts/gen_aten_registry.py
"""
import os
import sys

import torch


def main() -> int:
    names = set()
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        types = [str(a.type) for a in list(s.arguments) + list(s.returns)]
        if any("Tensor" in t for t in types):
            names.add(s.name[len("aten::"):])
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads", "torch", "aten_ops.txt")
    with open(out, "w") as f:
        f.write(f"# ATen operators of torch {torch.__version__.split('+')[0]} (scripts/gen_aten_registry.py)\n")
        for n in sorted(names):
            f.write(n + "\n")
    print(f"{out}: {len(names)} operators", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

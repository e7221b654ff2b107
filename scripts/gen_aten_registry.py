#!/usr/bin/python3
"""Writes workloads/torch/aten_ops.txt: the names of the ATen operators (namespace aten) of the
installed torch that take or return a Tensor, one per line without the "aten::" prefix, sorted;
and workloads/torch/aten_schemas.txt: every overload of those operators with its arguments, one
per line, "name.overload|arg:kind[=],...|returns|list" (kind: the argument's type as the op-trace
reader checks it, E for ScalarType, Layout and MemoryFormat, docs/torch.md "Schema checks"; "=" marks an argument with a default; returns:
the number of tensor results, the outputs a trace lists; list: 1 if a result is a Tensor[],
whose length the schema leaves open).

Source: torch._C._jit_get_all_schemas(), the schemas of every registered operator. The op-trace
frontend (workloads/torch) accepts an op only if its name is in this list, as the ONNX frontend
accepts a node only if its op type is in ONNX's schema registry. Regenerate when the supported
torch version changes:  /usr/bin/python3 scripts/gen_aten_registry.py
"""
import os
import re
import sys

import torch


def main() -> int:
    names = set()
    schemas = {}
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        types = [str(a.type) for a in list(s.arguments) + list(s.returns)]
        if any("Tensor" in t for t in types):
            names.add(s.name[len("aten::"):])
            args = ",".join(f"{a.name}:{_kind(str(a.type), _declared(s, a.name))}{'=' if a.has_default_value() else ''}"
                            for a in s.arguments)
            # Results an op trace lists: Tensor (or None) results, and the elements of Tensor[]
            # ones; numbers and bools (is_same_size) are not tensors of the trace.
            tensors = [r for r in s.returns if str(r.type) in ("Tensor", "Optional[Tensor]", "List[Tensor]")]
            listed = int(any(str(r.type) == "List[Tensor]" for r in s.returns))
            key = f"{s.name[len('aten::'):]}.{s.overload_name or 'default'}"
            schemas[key] = f"{key}|{args}|{len(tensors)}|{listed}"
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads", "torch")
    version = torch.__version__.split('+')[0]
    with open(os.path.join(here, "aten_ops.txt"), "w") as f:
        f.write(f"# ATen operators of torch {version} (scripts/gen_aten_registry.py)\n")
        for n in sorted(names):
            f.write(n + "\n")
    with open(os.path.join(here, "aten_schemas.txt"), "w") as f:
        f.write(f"# ATen operator schemas of torch {version} (scripts/gen_aten_registry.py)\n")
        for k in sorted(schemas):
            f.write(schemas[k] + "\n")
    print(f"{here}: {len(names)} operators, {len(schemas)} overloads", file=sys.stderr)
    return 0


# JIT type -> the kind the reader checks (workloads/torch/aten_registry.cpp); "?" optional.
_KINDS = {"Tensor": "T", "List[Tensor]": "TL", "List[Optional[Tensor]]": "TL", "int": "I", "List[int]": "IL",
          "number": "N", "float": "F", "bool": "B", "List[bool]": "BL", "str": "S", "Device": "S",
          "List[float]": "FL"}


def _declared(schema, name: str) -> str:
    """The argument's type as the schema declares it ("ScalarType?"; the JIT type says "int")."""
    m = re.search(r"([\w\[\]().!?]+) " + re.escape(name) + r"[=,)]", str(schema))
    return m.group(1) if m else ""


def _kind(t: str, declared: str = "") -> str:
    opt = t.startswith("Optional[") and t.endswith("]")
    base = t[len("Optional["):-1] if opt else t
    if declared.rstrip("?") in ("ScalarType", "Layout", "MemoryFormat"):
        return "E" + ("?" if opt else "")  # an enum: its integer or torch's name, "float32"
    k = _KINDS.get(base)
    if k is None:
        return "*"  # not checked (Generator, Storage, generic types)
    return k + ("?" if opt else "")


if __name__ == "__main__":
    sys.exit(main())

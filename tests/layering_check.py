#!/usr/bin/env python3
"""Fails when a source file includes a header of a higher layer.

Layers, bottom to top (docs/architecture.md "Layers"):
  base < isa < firmware < platform < models, cosim < soc < workloads < sweep < cli
A unit under models/ may include only its own folder among the models (units are independent);
cosim/ implements units and may include models/. Workloads are ordered among themselves:
config < graph < fallback < {onnx, torch, lowering, fhe} < heir < driver. Tests and benchmarks may include
anything. Frontends, lowerings and the driver see a unit only through its configuration
(models/<unit>/<unit>_config.h): a constant a lowering shares with a unit lives in isa/.
Usage: layering_check.py SOURCE_DIR  (exit 1 and one line per violation)
       layering_check.py --self-test   (checks that violations are found)."""
import os
import re
import sys

LAYERS = {"base": 0, "isa": 1, "firmware": 2, "platform": 3, "models": 4, "cosim": 4.5,
          "soc": 5, "workloads": 6, "sweep": 7, "cli": 8}
WORKLOADS = {"config": 0, "graph": 1, "fallback": 1.5, "onnx": 2, "torch": 2, "lowering": 2, "fhe": 2,
             "heir": 3, "driver": 4}
GENERATED = {"photon_regs.h", "regs_table.inc", "regs_view.h", "photon_enums.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def place(path):
    """(layer rank, sub-rank, folder) of a repository path, or None outside the layers."""
    parts = path.split("/")
    top = parts[0]
    if top not in LAYERS:
        return None
    sub = parts[1] if len(parts) > 2 else ""
    rank = WORKLOADS.get(sub, 5) if top == "workloads" else 0
    return LAYERS[top], rank, sub


def check(root):
    bad = []
    for top in LAYERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".h", ".cpp", ".c", ".inc")):
                    continue
                full = os.path.join(dirpath, f)
                rel = os.path.relpath(full, root)
                me = place(rel)
                with open(full, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for inc in INCLUDE.findall(text):
                    if inc in GENERATED or "/" not in inc:
                        continue
                    it = place(inc)
                    if it is None:
                        continue
                    up = it[0] > me[0] or (it[0] == me[0] and it[1] > me[1])
                    sideways = (me[0] == LAYERS["models"] and it[0] == LAYERS["models"]
                                and it[2] != me[2])
                    internals = (me[0] == LAYERS["workloads"] and it[0] == LAYERS["models"]
                                 and not inc.endswith("_config.h"))
                    if up or sideways or internals:
                        why = ("a unit includes another unit" if sideways else
                               "upward include" if up else "a workload includes a unit's internals")
                        bad.append("%s: includes %s (%s)" % (rel, inc, why))
    return bad


def self_test():
    import tempfile
    cases = {"base/a.h": '#include "soc/platform.h"\n', "models/hbm/x.cpp": '#include "models/dma/dma.h"\n',
             "workloads/fhe/y.cpp": '#include "models/ntt/ntt_core.h"\n',
             "workloads/graph/z.cpp": '#include "workloads/driver/workload.h"\n',
             "soc/ok.cpp": '#include "models/hbm/hbm.h"\n#include "base/error.h"\n'}
    with tempfile.TemporaryDirectory() as d:
        for rel, text in cases.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as fh:
                fh.write(text)
        found = sorted(b.split(":")[0] for b in check(d))
    want = ["base/a.h", "models/hbm/x.cpp", "workloads/fhe/y.cpp", "workloads/graph/z.cpp"]
    if found != want:
        print("self-test: found %s, expected %s" % (found, want))
        return 1
    return 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    bad = check(sys.argv[1])
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""regs_gen refuses a broken register description, naming the problem; the real one passes.

Each case edits platform/regs/registers.yaml textually and expects regs_gen to fail with a
message containing the given words. Usage: regs_gen_errors.py REGS_GEN REGISTERS_YAML"""
import os
import subprocess
import sys
import tempfile

CASES = [
    # (what, old text, new text, expected words in the error)
    ("overlapping offsets", "{name: VERSION, offset: 0x04", "{name: VERSION, offset: 0x00",
     "registers ID and VERSION overlap"),
    ("duplicate register", "{name: VERSION, offset: 0x04", "{name: ID, offset: 0x04",
     "duplicate register name SYS.ID"),
    ("field outside its register", "{name: CODE, lsb: 8, width: 8", "{name: CODE, lsb: 28, width: 8",
     "field SYS.STATUS.CODE [28, +8) lies outside"),
    ("overlapping fields", "{name: CODE, lsb: 8, width: 8", "{name: CODE, lsb: 2, width: 8",
     "fields STATE and CODE overlap"),
    ("overlapping instances", "VEC: 0x5000", "VEC: 0x4020", "block instances QUEUE_NTT and QUEUE_VEC overlap"),
    ("unit without a queue", "{name: VEC, opcode: VECTOR", "{name: VPU, opcode: VECTOR",
     "unit VPU has no QUEUE instance"),
    ("duplicate enum value", "{name: RING, value: 3", "{name: RING, value: 2", "enum FwError: value 2 given twice"),
    ("unknown access", "{name: ID, offset: 0x00, access: ro", "{name: ID, offset: 0x00, access: rx",
     "unknown access 'rx'"),
]


def run(gen, yaml_path, out):
    return subprocess.run([gen, yaml_path] + [os.path.join(out, f) for f in ("r.h", "t.inc", "v.h")],
                          capture_output=True, text=True)


def main():
    gen, real = sys.argv[1], sys.argv[2]
    text = open(real).read()
    failures = []
    with tempfile.TemporaryDirectory() as d:
        ok = run(gen, real, d)
        if ok.returncode != 0:
            failures.append("the real registers.yaml fails: " + ok.stderr.strip())
        for what, old, new, words in CASES:
            if old not in text:
                failures.append("%s: fixture text %r not found in registers.yaml" % (what, old))
                continue
            bad = os.path.join(d, "bad.yaml")
            with open(bad, "w") as fh:
                fh.write(text.replace(old, new, 1))
            r = run(gen, bad, d)
            if r.returncode == 0 or words not in r.stderr:
                failures.append("%s: expected failure with %r, got exit %d: %s" %
                                (what, words, r.returncode, r.stderr.strip()))
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""PyTorch benchmarks (not tests): photon_torch's trace and device speed.

    PYTHONPATH=python /usr/bin/python3 bench/torch_bench.py [--seq 2048] [--repeat 5]

1. Llama-70B decoder block (photon_torch.models.LLAMA_70B, batch 1, --seq tokens): wall time of
   photon_torch.trace on the meta device, and of `photon run` on the trace (timing mode, with
   cpu.ring_base at 7 GiB: the fp32 weights and activations need 5.5 GiB of the 8 GiB HBM).
2. torchvision ResNet-18, batch 1, 224x224, eval: forward wall time on the Photon device with ideal
   numerics against eager CPU (best of --repeat after two warm-up calls; same thread count, the
   process's OpenMP default). Target: device under 5x CPU.
Prints one line per measurement.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import torch
import torchvision

import photon_torch as pt
from photon_torch import _paths
from photon_torch.models import LLAMA_70B, LlamaDecoderBlock

RING_BASE_70B = 7 << 30  # bytes: the command ring above the block's 5.5 GiB HBM footprint


def best(f, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts)


def bench_70b(seq: int) -> None:
    blk = LlamaDecoderBlock(LLAMA_70B, max_seq=seq, device="meta")
    x = torch.empty(1, seq, LLAMA_70B.dim)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "llama70b_block.ptrace")
        t0 = time.perf_counter()
        tr = pt.trace(blk, x, path=path)
        t_trace = time.perf_counter() - t0
        report = os.path.join(d, "r.json")
        t0 = time.perf_counter()
        subprocess.run([_paths.photon_binary(), "run", "--config", _paths.default_config(), "--workload", path,
                        "--set", f"cpu.ring_base={RING_BASE_70B}", "--report", report, "--quiet"], check=True)
        t_run = time.perf_counter() - t0
        import json
        with open(report) as f:
            r = json.load(f)
    print(f"llama70b block seq {seq}: trace {t_trace:.3f} s ({len(tr.ops)} ATen ops), photon run {t_run:.2f} s wall, "
          f"{r['simulated_time_ns'] / 1e6:.1f} ms simulated, {r['workload_info']['commands']} commands")


def bench_resnet18(repeat: int) -> None:
    torch.manual_seed(0)
    cpu = torchvision.models.resnet18().eval()
    dev = pt.device(set={"optical_gemm.numerics": "ideal"})
    m = torchvision.models.resnet18().eval()
    m.load_state_dict(cpu.state_dict())
    m = m.to(dev)
    x = torch.randn(1, 3, 224, 224)
    xd = x.to(dev)
    with torch.no_grad():
        for _ in range(2):
            cpu(x)
            m(xd)
        tc = best(lambda: cpu(x), repeat)
        td = best(lambda: m(xd), repeat)
    print(f"resnet18 forward, batch 1, {torch.get_num_threads()} thread(s): CPU eager {tc * 1e3:.1f} ms, "
          f"Photon device (ideal) {td * 1e3:.1f} ms, ratio {td / tc:.2f} (target < 5)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seq", type=int, default=2048, help="tokens of the 70B block")
    p.add_argument("--repeat", type=int, default=5, help="timed ResNet-18 forwards (best is reported)")
    a = p.parse_args()
    bench_70b(a.seq)
    bench_resnet18(a.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())

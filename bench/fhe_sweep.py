#!/usr/bin/python3
"""Scratchpad-size sweep of FHE workloads (a benchmark, not a test): latency and HBM bytes of one
HMult, one bootstrapping and the DaCapo MLP as the scratchpad shrinks (docs/fhe.md "How much
on-chip memory"). Runs build/photon once per (workload, size), writes a CSV and, with --plot, a PNG
(matplotlib). Prints the wall time of every run and their total. Points run in parallel, one
photon process each (-j, default: the number of cores).

  /usr/bin/python3 bench/fhe_sweep.py --out build/fhe_sweep --plot
  /usr/bin/python3 bench/fhe_sweep.py --workloads bootstrap --sizes 8,16,24,32,48,64,128,256,512,1024
  /usr/bin/python3 bench/fhe_sweep.py --set ntt.storage_bits=36 --out build/fhe_sweep_packed --plot

Sizes are MiB (scratchpad.size_kib = 1024 x size); every run uses --config (default
configs/sharp_like.yaml) with the --set overrides.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("PHOTON_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
WORKLOADS = {
    # name: (photon arguments, label)
    "hmult": (["fhe", "--op", "hmult", "--ring-degree", "65536", "--max-level", "34", "--level", "34",
               "--alpha", "12"], "HMult (N=2^16, L=34, alpha=12)"),
    "bootstrap": (["fhe", "--op", "bootstrap", "--ring-degree", "65536", "--max-level", "34", "--level", "34",
                   "--alpha", "12"], "bootstrapping (N=2^16, L=34, alpha=12)"),
    "dacapo": (["run", "--workload", os.path.join(SHARED, "inputs", "heir", "dacapo_mlp_ckks.mlir"), "--quiet"],
               "DaCapo MLP (N=2^17)"),
}


def run_point(photon, config, sets, workload, mib, out_dir):
    args, _ = WORKLOADS[workload]
    report = os.path.join(out_dir, "%s_%dMiB.json" % (workload, mib))
    cmd = [photon] + args[:1] + ["--config", config] + args[1:]
    for s in sets + ["scratchpad.size_kib=%d" % (mib * 1024)]:
        cmd += ["--set", s]
    cmd += ["--report", report]
    start = time.time()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.time() - start
    if p.returncode != 0:
        return {"workload": workload, "size_mib": mib, "error": p.stderr.strip(), "wall_s": wall}
    r = json.load(open(report))
    hbm = r["hbm"]
    if workload == "dacapo":
        latency = r["simulated_time_ns"]
        fhe = r["fhe"]["total"]
    else:
        latency = r["simulated_time_ns"]
        fhe = r["fhe"]
    return {"workload": workload, "size_mib": mib, "latency_ns": latency,
            "hbm_bytes": hbm["bytes_read"] + hbm["bytes_written"], "key_bytes": fhe["key_bytes"],
            "ct_bytes": fhe["ct_in_bytes"] + fhe["ct_out_bytes"], "spill_bytes": fhe["spill_bytes"],
            "peak_scratchpad_bytes": fhe["peak_scratchpad_bytes"], "wall_s": wall}


def plot(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for w in WORKLOADS:
        pts = sorted((r["size_mib"], r) for r in rows if r["workload"] == w and "error" not in r)
        if not pts:
            continue
        x = [p[0] for p in pts]
        axes[0].plot(x, [p[1]["latency_ns"] / 1e6 for p in pts], "o-", label=WORKLOADS[w][1])
        axes[1].plot(x, [p[1]["hbm_bytes"] / 1e9 for p in pts], "o-", label=WORKLOADS[w][1])
    for ax, ylabel in zip(axes, ["latency (ms)", "HBM traffic (GB)"]):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("scratchpad (MiB)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def sizes_arg(text):
    """--sizes: a comma-separated list of positive whole MiB."""
    try:
        sizes = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated whole MiB, e.g. 8,16,32 (got '%s')" % text)
    bad = [s for s in sizes if s < 1]
    if bad:
        raise argparse.ArgumentTypeError("sizes must be at least 1 MiB (got %d)" % bad[0])
    return sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photon", default=os.path.join(ROOT, "build", "photon"))
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "sharp_like.yaml"))
    ap.add_argument("--set", action="append", default=[], dest="sets", help="config override key=value")
    ap.add_argument("--workloads", default="hmult,bootstrap,dacapo")
    ap.add_argument("--sizes", type=sizes_arg, default="8,16,32,64,128,256,512,1024",
                    help="scratchpad sizes, MiB")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fhe_sweep"))
    ap.add_argument("--plot", action="store_true", help="write sweep.png (matplotlib)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="points run at once, one photon process each (default: the number of cores)")
    a = ap.parse_args()
    sizes = a.sizes
    if not (os.path.isfile(a.photon) and os.access(a.photon, os.X_OK)):
        sys.exit("fhe_sweep: --photon %s is not an executable (build it: bash scripts/build.sh)" % a.photon)
    if not os.path.isfile(a.config):
        sys.exit("fhe_sweep: --config %s: no such file" % a.config)
    points = []
    for w in a.workloads.split(","):
        if w not in WORKLOADS:
            sys.exit("fhe_sweep: unknown workload '%s' (expected %s)" % (w, ", ".join(WORKLOADS)))
        points += [(w, mib) for mib in sizes]
    if a.jobs < 1:
        sys.exit("fhe_sweep: --jobs must be at least 1 (is %d)" % a.jobs)
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        sys.exit("fhe_sweep: --out %s: %s" % (a.out, e.strerror))
    total = time.time()
    # Points run in their own processes, up to --jobs at once; printed in order as they finish.
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(run_point, a.photon, a.config, a.sets, w, mib, a.out) for w, mib in points]
        rows = []
        for (w, mib), fut in zip(points, futures):
            r = fut.result()
            rows.append(r)
            if "error" in r:
                print("%-9s %5d MiB  error: %s" % (w, mib, r["error"]))
            else:
                print("%-9s %5d MiB  latency %12.3f us  HBM %8.3f GB  keys %8.3f GB  wall %6.2f s" %
                      (w, mib, r["latency_ns"] / 1e3, r["hbm_bytes"] / 1e9, r["key_bytes"] / 1e9, r["wall_s"]))
            sys.stdout.flush()
    print("total wall %.2f s" % (time.time() - total))
    keys = ["workload", "size_mib", "latency_ns", "hbm_bytes", "key_bytes", "ct_bytes", "spill_bytes",
            "peak_scratchpad_bytes", "wall_s", "error"]
    with open(os.path.join(a.out, "sweep.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=keys)
        wr.writeheader()
        for r in rows:
            wr.writerow(r)
    failed = [r for r in rows if "error" in r]
    if a.plot and len(failed) < len(rows):
        plot(rows, os.path.join(a.out, "sweep.png"),
             "%s %s" % (os.path.basename(a.config), " ".join(a.sets)))
        print("wrote %s" % os.path.join(a.out, "sweep.png"))
    if failed:
        sys.exit("fhe_sweep: %d of %d points failed (first: %s %d MiB: %s)" %
                 (len(failed), len(rows), failed[0]["workload"], failed[0]["size_mib"],
                  failed[0]["error"].splitlines()[-1] if failed[0]["error"] else "no message"))


if __name__ == "__main__":
    main()

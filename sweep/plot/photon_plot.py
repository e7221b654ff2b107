#!/usr/bin/python3
"""Photon's plots, drawn with matplotlib (Debian: python3-matplotlib). Run by photon itself:

  photon sweep plot DIR          -> photon_plot.py sweep DIR/results.sqlite OUT_DIR
  photon plot roofline REPORT    -> photon_plot.py roofline DATA.json PREFIX

Every number drawn comes from photon: the sweep's database (its Pareto table included) or the
roofline data photon computes from a report (sweep/roofline.h). This script only draws, and
writes each figure as PNG and SVG.
"""
import json
import math
import os
import sqlite3
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNIT_COLOURS = {"optical_gemm": "#d62728", "vector": "#1f77b4", "ntt": "#9467bd", "dma": "#2ca02c",
                "hbm": "#8c564b", "scratchpad": "#ff7f0e", "firmware_cpu": "#7f7f7f"}
written = []


def save(fig, path_no_ext):
    for ext in ("png", "svg"):
        fig.savefig(path_no_ext + "." + ext, dpi=130, bbox_inches="tight")
        written.append(path_no_ext + "." + ext)
    plt.close(fig)


def time_scale(values_ns):
    """(divisor, unit) that puts typical latencies between 1 and 1000."""
    m = max(values_ns) if values_ns else 1
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "\u00b5s")):
        if m >= div:
            return div, unit
    return 1.0, "ns"


def energy_scale(values_pj):
    m = max(values_pj) if values_pj else 1
    for div, unit in ((1e12, "J"), (1e9, "mJ"), (1e6, "\u00b5J"), (1e3, "nJ")):
        if m >= div:
            return div, unit
    return 1.0, "pJ"


def spread(values):
    pos = [v for v in values if v > 0]
    return max(pos) / min(pos) if pos else 1


def short(v):
    if isinstance(v, float):
        return "%.4g" % v
    return str(v)


def param_label(key):
    """Axis label for a configuration key: the key, with its unit spelled out when it has one."""
    units = {"_ghz": "GHz", "_ns": "ns", "_kib": "KiB", "_mib": "MiB", "_bits": "bits", "_bytes": "bytes",
             "_gbps": "GB/s", "_cycles": "cycles", "_pj": "pJ", "_mw": "mW"}
    for suffix, unit in units.items():
        if key.endswith(suffix):
            return "%s (%s)" % (key, unit)
    return key


# ---------------------------------------------------------------------------------------------
# photon sweep plot


def pareto_figure(rows, front_keys, params, x_of, y_of, x_label, y_label, title, path):
    fig, ax = plt.subplots(figsize=(11, 6.2))
    xs = [x_of(r) for r in rows]
    ys = [y_of(r) for r in rows]
    ax.scatter(xs, ys, s=14, color="#9a9a9a", alpha=0.6, label="design points (%d)" % len(rows), zorder=2)
    if spread(xs) > 20:
        ax.set_xscale("log")
    if spread(ys) > 20:
        ax.set_yscale("log")
    fig.canvas.draw()  # final limits, so that labels can be placed in display coordinates
    front = sorted([r for r in rows if r["key"] in front_keys], key=lambda r: (x_of(r), y_of(r)))
    fx = [x_of(r) for r in front]
    fy = [y_of(r) for r in front]
    if front:
        ax.step(fx, fy, where="post", color="#d62728", linewidth=1.2, zorder=3)
        ax.scatter(fx, fy, s=46, color="#d62728", edgecolor="black", linewidth=0.6, zorder=4,
                   label="Pareto front (%d, non-dominated)" % len(front))
        # One label per position: points that coincide share it ("P1,P2").
        labels = {}
        for i, (x, y) in enumerate(zip(fx, fy)):
            labels.setdefault((x, y), []).append("P%d" % (i + 1))
        # Labels of nearby points are stacked so they do not overwrite each other.
        placed = []
        to_px = ax.transData.transform
        for (x, y), names in sorted(labels.items()):
            px, py = to_px((x, y))
            dy = 4
            while any(abs(px - qx) < 40 and abs(py + dy - qy) < 10 for qx, qy in placed):
                dy += 10
            placed.append((px, py + dy))
            ax.annotate(",".join(names), (x, y), textcoords="offset points", xytext=(5, dy), fontsize=8, zorder=5,
                        arrowprops=dict(arrowstyle="-", color="#d62728", linewidth=0.5) if dy > 4 else None)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="best", fontsize=8)  # where it hides the fewest points
    # The Pareto points, listed beside the plot.
    lines = []
    for i, r in enumerate(front[:18]):
        vals = ", ".join("%s=%s" % (point_label(k, params), short(r[k])) for k in params)
        lines.append("P%d  %s" % (i + 1, vals))
    if len(front) > 18:
        lines.append("... %d more (photon sweep export)" % (len(front) - 18))
    fig.text(0.92, 0.88, "Pareto points\n" + "\n".join(lines), fontsize=7.5, va="top", family="monospace")
    fig.subplots_adjust(right=0.9)
    save(fig, path)


def point_label(key, params):
    """A swept key as the point lists show it: its last part (rows for optical_gemm.rows), or the
    whole key where another swept key has the same last part (dma.channels, hbm.channels)."""
    last = key.split(".")[-1]
    return last if sum(1 for k in params if k.split(".")[-1] == last) == 1 else key


def sensitivity_figure(rows, params, workload, lat, en, path):
    if not params:
        return
    n = len(params)
    cols = min(n, 4)
    grid_rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(2 * grid_rows, cols, figsize=(3.7 * cols, 3.1 * 2 * grid_rows), squeeze=False)
    for i, key in enumerate(params):
        by_value = {}
        for r in rows:
            by_value.setdefault(r[key], []).append(r)
        values = sorted(by_value, key=lambda v: (isinstance(v, str), v))
        numeric = all(isinstance(v, (int, float)) for v in values)
        xs = values if numeric else list(range(len(values)))
        for j, (metric, scale, label) in enumerate((("latency_ns", lat, "latency"), ("energy_pj", en, "energy"))):
            ax = axes[2 * (i // cols) + j][i % cols]
            med = []
            lo = []
            hi = []
            for v in values:
                ys = sorted(r[metric] / scale[0] for r in by_value[v])
                med.append(ys[len(ys) // 2])
                lo.append(ys[0])
                hi.append(ys[-1])
            ax.fill_between(xs, lo, hi, color="#1f77b4", alpha=0.15, label="min to max")
            ax.plot(xs, med, marker="o", color="#1f77b4", label="median")
            ax.plot(xs, lo, linestyle="--", color="#2ca02c", linewidth=1, label="best")
            if not numeric:
                ax.set_xticks(xs)
                ax.set_xticklabels([str(v) for v in values], rotation=20, fontsize=8)
            else:
                if min(values) > 0 and spread(values) >= 8:
                    ax.set_xscale("log", base=2)
                if len(values) <= 10:
                    ax.set_xticks(values)
                    ax.set_xticklabels([short(v) for v in values], fontsize=7)
                    ax.minorticks_off()
            if spread(lo + hi) > 20:
                ax.set_yscale("log")
            ax.set_xlabel(param_label(key), fontsize=8)
            ax.set_ylabel("%s (%s)" % (label, scale[1]), fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(True, alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    for k in range(n, grid_rows * cols):
        for j in range(2):
            axes[2 * (k // cols) + j][k % cols].axis("off")
    fig.suptitle("%s: latency and energy against each parameter (over all values of the others)" % workload, fontsize=10)
    fig.tight_layout()
    save(fig, path)


def utilization_figure(rows, front_keys, units, workload, params, path):
    front = sorted([r for r in rows if r["key"] in front_keys], key=lambda r: r["latency_ns"])[:12]
    if not front or not units:
        return
    # Units idle in every point shown add nothing but clutter.
    shown = [u for u in units if any((r["util_" + u] or 0) > 0 for r in front)]
    units = shown or units
    fig, ax = plt.subplots(figsize=(max(7, 1.1 * len(front) + 3), 5))
    width = 0.8 / len(units)
    for u_i, u in enumerate(units):
        xs = [i + (u_i - (len(units) - 1) / 2) * width for i in range(len(front))]
        ax.bar(xs, [100 * (r["util_" + u] or 0) for r in front], width, label=u, color=UNIT_COLOURS.get(u))
    ax.set_xticks(range(len(front)))
    ax.set_xticklabels(["P%d" % (i + 1) for i in range(len(front))])
    ax.set_ylabel("utilisation (% of the run's simulated time)")
    ax.set_xlabel("Pareto points (latency vs energy), fastest first")
    ax.set_ylim(0, 105)
    ax.set_title("%s: unit utilisation of the Pareto points" % workload)
    ax.legend(fontsize=8, ncol=4)
    ax.grid(True, axis="y", alpha=0.3)
    lines = ["P%d  %s" % (i + 1, ", ".join("%s=%s" % (point_label(k, params), short(r[k])) for k in params))
             for i, r in enumerate(front)]
    fig.text(0.92, 0.88, "\n".join(lines), fontsize=7.5, va="top", family="monospace")
    fig.subplots_adjust(right=0.9)
    save(fig, path)


def plot_sweep(db_path, out):
    db = sqlite3.connect(db_path)
    db.row_factory = sqlite3.Row
    meta = {k: v for k, v in db.execute("SELECT key, value FROM meta")}
    params = json.loads(meta.get("params", "[]"))
    metrics = [m["name"] for m in json.loads(meta.get("metrics", "[]"))]
    units = [m[len("util_"):] for m in metrics if m.startswith("util_")]
    rows = [dict(r) for r in db.execute("SELECT * FROM results WHERE status = 'ok' AND latency_ns IS NOT NULL")]
    if not rows:
        raise SystemExit("no successful runs to plot in " + db_path)
    fronts = {}
    for f, w, k in db.execute("SELECT front, workload, key FROM pareto"):
        fronts.setdefault((f, w), set()).add(k)
    name = meta.get("name", "sweep")
    jobs = []
    for w in sorted({r["workload"] for r in rows}):
        wr = [r for r in rows if r["workload"] == w]
        lat = time_scale([r["latency_ns"] for r in wr])
        en = energy_scale([r["energy_pj"] for r in wr if r["energy_pj"] is not None])
        base = os.path.join(out, w)
        jobs.append((pareto_figure, (wr, fronts.get(("latency_energy", w), set()), params,
                                     lambda r, s=lat[0]: r["latency_ns"] / s, lambda r, s=en[0]: r["energy_pj"] / s,
                                     "latency (%s)" % lat[1], "energy (%s)" % en[1],
                                     "%s, %s: latency vs energy (%d runs)" % (name, w, len(wr)),
                                     base + "_pareto_latency_energy")))
        jobs.append((pareto_figure, (wr, fronts.get(("latency_area", w), set()), params,
                                     lambda r, s=lat[0]: r["latency_ns"] / s, lambda r: r["area_mm2"],
                                     "latency (%s)" % lat[1], "area (mm$^2$)",
                                     "%s, %s: latency vs area (%d runs)" % (name, w, len(wr)),
                                     base + "_pareto_latency_area")))
        jobs.append((sensitivity_figure, (wr, params, w, lat, en, base + "_sensitivity")))
        jobs.append((utilization_figure, (wr, fronts.get(("latency_energy", w), set()), units, w, params,
                                          base + "_utilization")))
    run_jobs(jobs)


JOBS = []


def run_job(i):
    """Draws figure job i of JOBS in a forked worker; returns the files it wrote."""
    del written[:]
    f, args = JOBS[i]
    f(*args)
    return list(written)


def run_jobs(jobs):
    """Draws each figure job (function, arguments): in forked processes, one per CPU this process
    may use, when there are several, so that a sweep's figures render in parallel (each figure is
    drawn by the same code either way); the files are listed in job order."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if cpus < 2 or len(jobs) < 2:
        for f, args in jobs:
            f(*args)
        return
    import multiprocessing
    JOBS[:] = jobs
    with multiprocessing.get_context("fork").Pool(min(cpus, len(jobs))) as pool:
        for files in pool.map(run_job, range(len(jobs)), chunksize=1):
            written.extend(files)


# ---------------------------------------------------------------------------------------------
# photon plot roofline


def plot_roofline(data_path, prefix):
    d = json.load(open(data_path))
    ops = d["ops"]
    if not ops:
        raise SystemExit("the report has no ops with work and time to place on a roofline")
    bw = d["hbm_gbps"]
    peaks = d["ceilings"]
    top = max(c["gops"] for c in peaks)
    finite = [o["intensity"] for o in ops if o["intensity"] is not None]
    x_lo = min(finite + [top / bw]) / 10 if finite else top / bw / 100
    x_hi = max(finite + [top / bw]) * 10 if finite else top / bw * 100
    fig, ax = plt.subplots(figsize=(10, 6.4))
    xs = [x_lo * (x_hi / x_lo) ** (i / 200) for i in range(201)]
    ax.plot(xs, [min(bw * x, top) for x in xs], color="black", linewidth=1.6,
            label="HBM %.0f GB/s x intensity" % bw)
    for c in peaks:
        ax.axhline(c["gops"], color=UNIT_COLOURS.get(c["unit"], "black"), linestyle="--", linewidth=1.1,
                   label="%s peak %s GOP/s" % (c["unit"], "{:,.0f}".format(c["gops"])))
        ax.axvline(c["gops"] / bw, color=UNIT_COLOURS.get(c["unit"], "black"), linestyle=":", linewidth=0.7)
    # Colour by op kind (Conv, MatMul, hrot, ...), marker by bound; ops that move no HBM byte sit
    # at the right edge.
    kinds = {}
    for o in ops:
        kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
    top_kinds = [k for k, _ in sorted(kinds.items(), key=lambda kv: -kv[1])[:9]]
    palette = plt.get_cmap("tab10")
    colour = {k: palette(i) for i, k in enumerate(top_kinds)}
    edge = x_hi / 1.5
    for kind in top_kinds + ["other"]:
        sel = [o for o in ops if (o["kind"] if o["kind"] in colour else "other") == kind]
        for bound, marker in (("memory", "v"), ("compute", "o"), ("none", ">")):
            pts = [o for o in sel if (o["bound"] if o["intensity"] is not None else "none") == bound]
            if not pts:
                continue
            ax.scatter([o["intensity"] if o["intensity"] is not None else edge for o in pts], [o["gops"] for o in pts],
                       marker=marker, s=30, color=colour.get(kind, "#9a9a9a"), edgecolor="black", linewidth=0.4,
                       alpha=0.85, zorder=3,
                       label="%s, %s (%d)" % (kind, {"memory": "memory-bound", "compute": "compute-bound",
                                                     "none": "no HBM traffic"}[bound], len(pts)))
    # Name the ops that do the most work (one label per name and kind).
    named, placed = set(), []
    for o in sorted(ops, key=lambda o: -o["ops"]):
        label = "%s (%s)" % (o["name"][-24:], o["kind"])
        x = o["intensity"] if o["intensity"] is not None else edge
        # Skip a repeated label, or one that would sit on another.
        if label in named or any(abs(math.log10(x / px)) < 0.3 and abs(math.log10(o["gops"] / py)) < 0.12
                                 for px, py in placed):
            continue
        named.add(label)
        placed.append((x, o["gops"]))
        ax.annotate(label, (x, o["gops"]), textcoords="offset points", xytext=(-6, 6), fontsize=7, ha="right")
        if len(named) == 5:
            break
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ys = [o["gops"] for o in ops]
    ax.set_ylim(min(ys + [top]) / 10, top * 3)
    ax.set_xlabel("operational intensity (%s per HBM byte)" % d["ops_label"])
    ax.set_ylabel("achieved throughput (GOP/s)")
    ax.set_title("Roofline: %s (%d ops)" % (os.path.basename(d.get("workload", "")), len(ops)))
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    save(fig, prefix)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("sweep", "roofline"):
        raise SystemExit("usage: photon_plot.py sweep DB OUT_DIR | roofline DATA.json PREFIX")
    if sys.argv[1] == "sweep":
        plot_sweep(sys.argv[2], sys.argv[3])
    else:
        plot_roofline(sys.argv[2], sys.argv[3])
    for p in written:
        print(p)


if __name__ == "__main__":
    main()

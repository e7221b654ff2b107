#!/usr/bin/env python3
"""photon sweep --backend slurm on the fixture's one-node cluster (start_slurm.sh).

Checks: a sweep through an sbatch job array gives the same database rows as the same sweep run
locally; a job cancelled while it runs (a dying task) loses none of its finished runs, `photon
sweep status` merges them, and --resume submits only what is missing.
Usage: slurm_sweep_test.py FIXTURE_DIR PHOTON SOURCE_DIR SHARED_DIR   (exit 77: skipped)
"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

fixture, photon, source, shared = sys.argv[1:5]
if os.path.exists(os.path.join(fixture, "unavailable")):
    print("skipped: " + open(os.path.join(fixture, "unavailable")).read().strip())
    sys.exit(77)
os.environ["SLURM_CONF"] = os.path.join(fixture, "slurm.conf")
work = tempfile.mkdtemp(prefix="photon_slurm_")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def sweep(*args, expect=0):
    r = subprocess.run([photon, "sweep", *args], capture_output=True, text=True)
    if r.returncode != expect:
        print(r.stdout, r.stderr)
        raise SystemExit("photon sweep %s: exit %d, expected %d" % (" ".join(args), r.returncode, expect))
    return r


def rows(out):
    db = sqlite3.connect(os.path.join(out, "results.sqlite"))
    cur = db.execute("SELECT * FROM results ORDER BY workload, point")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


spec = os.path.join(work, "spec.yaml")
with open(spec, "w") as f:
    f.write("base: %s/configs/default.yaml\n" % source)
    f.write("workloads: [%s/inputs/onnx/lenet5_weights.onnx, %s/examples/gemm.pasm]\n" % (shared, source))
    f.write("grid:\n  optical_gemm.rows: [16, 32]\n  hbm.tRCD: [12, 14, 16]\n")

# 1. Slurm and local sweeps give the same rows.
sweep(spec, "--out", work + "/local", "-j", "2", "-q")
r = sweep(spec, "--out", work + "/slurm", "--backend", "slurm", "--slurm-tasks", "3",
          "--slurm-arg=--job-name=photon-test")
check("submitted Slurm job" in r.stderr, "the front end names its job")
local, slurm = rows(work + "/local"), rows(work + "/slurm")
check(len(slurm) == 12, "12 rows from Slurm (got %d)" % len(slurm))
ignore = {"wall_s", "compile_s", "finished_at", "host"}
for a, b in zip(local, slurm):
    for k in a:
        if k not in ignore:
            check(a[k] == b[k], "column %s of %s/%s: local %r, slurm %r" % (k, a["workload"], a["point"], a[k], b[k]))
check(all(x["status"] == "ok" for x in slurm), "every Slurm run is ok")
check(os.path.exists(work + "/slurm/slurm/job.sh"), "the job script is kept")

# 2. A job cancelled while it runs: finished runs stay, status merges them, resume does the rest.
spec2 = os.path.join(work, "spec2.yaml")
with open(spec2, "w") as f:
    f.write("base: %s/configs/default.yaml\n" % source)
    f.write("workloads: [%s/inputs/onnx/light_resnet50.onnx]\n" % shared)
    f.write("grid:\n  hbm.tRCD: {from: 10, to: 19, step: 1}\n")
out = work + "/cancel"
sweep(spec2, "--out", out, "--backend", "slurm", "--slurm-tasks", "1", "--no-wait", "-q")
job = sqlite3.connect(out + "/results.sqlite").execute("SELECT value FROM meta WHERE key = 'slurm_job'").fetchone()[0]
deadline = time.time() + 300
while time.time() < deadline and len(os.listdir(out + "/results")) < 2:
    time.sleep(0.1)
subprocess.run(["scancel", job], check=True)
while time.time() < deadline and subprocess.run(["squeue", "-h", "-j", job], capture_output=True, text=True).stdout.strip():
    time.sleep(0.2)
done = len([f for f in os.listdir(out + "/results") if f.endswith(".json")])
check(2 <= done < 10, "the cancelled job finished some runs, not all (%d)" % done)
st = sweep("status", out)
check("merged %d new results" % done in st.stdout, "status merges the finished runs: " + st.stdout)
check("%d runs have no result yet" % (10 - done) in st.stdout, "status counts the missing runs: " + st.stdout)
r = sweep(spec2, "--out", out, "--backend", "slurm", "--resume", "--slurm-tasks", "2")
check("%d runs to do (%d already have results)" % (10 - done, done) in r.stderr, "resume submits only the rest: " + r.stderr)
check(len(rows(out)) == 10 and all(x["status"] == "ok" for x in rows(out)), "all 10 runs ok after resume")

if failures:
    sys.exit(1)
print("ok: slurm sweeps in " + work)

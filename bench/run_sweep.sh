#!/usr/bin/env bash
# Sweep benchmark (not a test): 1000 timing-mode ResNet-50 points (bench/sweep_resnet50_1000.yaml)
# with -j 2, then the plots; prints the wall time of each step and in all. Target on the 2-core
# reference machine: under 60 s in all. Usage, after scripts/build.sh:
#   bash bench/run_sweep.sh [OUT_DIR] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/bench_sweep}
jobs=${2:-2}
rm -rf "$out"
t0=$(date +%s.%N)
build/photon sweep bench/sweep_resnet50_1000.yaml --out "$out" -j "$jobs" --quiet
t1=$(date +%s.%N)
build/photon sweep plot "$out" >/dev/null
t2=$(date +%s.%N)
/usr/bin/python3 - "$out" "$t0" "$t1" "$t2" <<'PY'
import sqlite3, sys
out, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:5])
db = sqlite3.connect(out + "/results.sqlite")
n, ok, wall, comp = db.execute(
    "SELECT COUNT(*), SUM(status = 'ok'), SUM(wall_s), SUM(compile_s) FROM results").fetchone()
groups = db.execute("SELECT COUNT(DISTINCT compile_s) FROM results").fetchone()[0]
print("runs %d (ok %d); sweep %.1f s, plots %.1f s, total %.1f s wall" % (n, ok, t1 - t0, t2 - t1, t2 - t0))
print("per run: %.3f s elaboration + simulation + report (mean over runs, in their own process)" % (wall / n))
PY

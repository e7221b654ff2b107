#!/usr/bin/env bash
# ctest fixture cleanup: stops the cluster that start_slurm.sh started in DIR (by its pid files).
# Usage: stop_slurm.sh DIR
dir=${1:?usage: stop_slurm.sh DIR}
for d in slurmd slurmctld; do
  f="$dir/$d.pid"
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || continue
  # Gone, or a zombie nobody reaps yet (its parent is not waiting for it): stopped either way.
  alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
  for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
exit 0

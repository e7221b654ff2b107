#!/usr/bin/env bash
# RTL co-simulation speed (not a test): the verilated 64-lane NTT core (ntt.impl=rtl) beside the
# TLM model (ntt.impl=tlm) on configs/default.yaml. Prints, per run, wall seconds, simulated ns,
# the NTT unit's busy cycles, and for rtl the core's clocked cycles and cycles per wall second.
#   1. one forward NTT of N = 2^16 (one limb), timing mode
#   2. one HMult at N = 2^14, L = l = 15, alpha = 4 (`photon fhe`), timing mode
# Usage: bash bench/ntt_rtl_bench.sh   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
P=build/photon
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cat > "$OUT/ntt16.pasm" <<'PASM'
ntt op=forward log_n=16 limbs=1 src0=0x100000 dst=0x100000 moduli=0x0
end
PASM
report() {  # name impl report.json wall_s
  python3 - "$@" <<'PY'
import json, sys
name, impl, path, wall = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
r = json.load(open(path))
units = r.get("units", {})
c = units.get("ntt", {}).get("counters", r.get("ntt_counters", {}))
ntt = c.get("busy_cycles.ntt", 0)
line = f"{name:28s} {impl:4s} wall {wall:8.2f} s  sim {r.get('simulated_time_ns', 0):12.0f} ns  ntt busy {ntt:10.0f} cycles"
if impl == "rtl":
    clk = c.get("rtl_clocked_cycles", 0)
    line += f"  core {clk:.0f} cycles, {clk / wall:,.0f} cycles/s"
print(line)
PY
}
for impl in tlm rtl; do
  t0=$(date +%s.%N)
  $P run --config configs/default.yaml --workload "$OUT/ntt16.pasm" --set ntt.impl=$impl --quiet --report "$OUT/n.json"
  t1=$(date +%s.%N)
  report "NTT N=2^16, 1 limb" $impl "$OUT/n.json" "$(echo "$t1 - $t0" | bc)"
done
for impl in tlm rtl; do
  t0=$(date +%s.%N)
  $P fhe --config configs/default.yaml --set scratchpad.size_kib=1048576 --set ntt.impl=$impl \
    --op hmult --ring-degree 16384 --max-level 15 --level 15 --alpha 4 --report "$OUT/h.json" > "$OUT/h.out"
  t1=$(date +%s.%N)
  python3 - "$OUT/h.json" "$OUT/h2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
json.dump({"simulated_time_ns": r["simulated_time_ns"], "ntt_counters": r["ntt_counters"]}, open(sys.argv[2], "w"))
PY
  report "HMult N=2^14 L=15 alpha=4" $impl "$OUT/h2.json" "$(echo "$t1 - $t0" | bc)"
done

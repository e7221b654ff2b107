#!/usr/bin/env bash
# Speed of the rv32 firmware CPU (not a test). Usage, after scripts/build.sh:
#   bash bench/rv32.sh
# 1. build/bench/rv32_bench: the RV32 core alone on the CRC-32 firmware (MIPS per CPU second).
# 2. Whole runs with cpu.model=native and cpu.model=rv32, timing mode: light_resnet50
#    (configs/default.yaml) and the firmware-bound FHE programs orion_mlp_ckks and
#    dacapo_mlp_ckks (configs/sharp_like.yaml). Per run: wall and user-CPU seconds, simulated
#    time, firmware instructions; per workload: the rv32/native CPU-time ratio (target for
#    light_resnet50: under 2) and the firmware MIPS inside the platform (instructions per CPU
#    second the rv32 run took beyond the native run). CPU seconds are the robust figure on a
#    shared machine; wall seconds are printed beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${PHOTON_SHARED_DIR:-../shared}
build/bench/rv32_bench
printf '\n%-24s %-7s %8s %8s %14s %14s\n' workload model wall_s cpu_s simulated_us fw_instructions
run() {  # workload config model -> prints a row, leaves "cpu instructions" in $last
  local w=$1 cfg=$2 model=$3 rep tm
  rep=$(mktemp); tm=$(mktemp)
  /usr/bin/time -f '%e %U' -o "$tm" build/photon run --config "$cfg" --workload "$w" \
      --set cpu.model="$model" --report "$rep" --quiet
  last=$(/usr/bin/python3 - "$rep" "$tm" "$w" "$model" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1])); wall, cpu = map(float, open(sys.argv[2]).read().split()[-2:])
n = r["firmware"].get("instructions", 0)
print("%-24s %-7s %8.2f %8.2f %14.1f %14d" % (os.path.basename(sys.argv[3])[:24], sys.argv[4], wall, cpu,
      r["simulated_time_ns"] / 1e3, n), file=sys.stderr)
print(cpu, n)
PY
  )
  rm -f "$rep" "$tm"
}
for spec in "$SHARED/inputs/onnx/light_resnet50.onnx configs/default.yaml" \
            "$SHARED/inputs/heir/orion_mlp_ckks.mlir configs/sharp_like.yaml" \
            "$SHARED/inputs/heir/dacapo_mlp_ckks.mlir configs/sharp_like.yaml"; do
  set -- $spec
  run "$1" "$2" native 2>&1; read -r cpu_n _ <<<"$last"
  run "$1" "$2" rv32 2>&1; read -r cpu_r n <<<"$last"
  /usr/bin/python3 -c "
n, cn, cr = $n, $cpu_n, $cpu_r
extra = cr - cn
print('  rv32/native CPU time %.2fx; firmware %.0f MIPS inside the platform' % (cr / cn if cn else 0, n / extra / 1e6 if extra > 0 else float('inf')))"
done

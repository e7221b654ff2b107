#!/usr/bin/env bash
# Runs every file in ../shared/inputs (and the examples) through build/photon and writes each
# report and trace, with the wall-clock fields removed, into OUT_DIR. Two such directories from
# two builds are compared with `diff -r`: a refactoring must leave them byte-identical.
# Usage: bash bench/report_identity.sh OUT_DIR [PHOTON_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: report_identity.sh OUT_DIR [PHOTON]}
bin=${2:-build/photon}
SHARED=${PHOTON_SHARED_DIR:-../shared}
mkdir -p "$out"
strip() {  # drop wall-clock fields, keep everything else byte for byte
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
p = sys.argv[1]
r = json.load(open(p))
def drop(o):
    if isinstance(o, dict):
        for k in ("wall_time_s", "wall_s", "numerics_error_wall_s"):
            o.pop(k, None)
        for v in o.values(): drop(v)
    elif isinstance(o, list):
        for v in o: drop(v)
drop(r)
json.dump(r, open(p, "w"), indent=1, sort_keys=True)
PY
}
run() {  # name, then photon arguments
  local name=$1; shift
  if "$bin" "$@" --report "$out/$name.report.json" --trace "$out/$name.trace.json" --quiet \
      >"$out/$name.stdout" 2>"$out/$name.stderr"; then
    strip "$out/$name.report.json"
  else
    echo "exit $?" >>"$out/$name.stderr"
  fi
}
for m in "$SHARED"/inputs/onnx/*.onnx; do
  n=$(basename "$m" .onnx)
  run "$n" run --config configs/default.yaml --workload "$m"
done
run lenet5_functional run --config configs/default.yaml --workload "$SHARED/inputs/onnx/lenet5_weights.onnx" \
  --mode functional --input input="$SHARED/inputs/onnx/lenet5_weights_input_0.pb"
run lenet5_physical run --config configs/default.yaml --workload "$SHARED/inputs/onnx/lenet5_weights.onnx" \
  --mode functional --set optical_gemm.numerics=physical \
  --input input="$SHARED/inputs/onnx/lenet5_weights_input_0.pb"
for p in "$SHARED"/inputs/heir/*.mlir; do
  n=$(basename "$p" .mlir)
  run "$n" run --config configs/sharp_like.yaml --workload "$p"
done
for p in examples/*.pasm; do
  n=example_$(basename "$p" .pasm)
  run "$n" run --config configs/default.yaml --workload "$p"
  run "${n}_functional" run --config configs/default.yaml --workload "$p" --mode functional
done
for t in "$SHARED"/reference/hbm2_dramsim3/*.trace; do
  n=hbm_$(basename "$t" .trace)
  "$bin" hbm --config configs/default.yaml --set hbm.preset=hbm2_dramsim3 --trace "$t" \
    --report "$out/$n.report.json" >"$out/$n.stdout" 2>&1 || echo "exit $?" >>"$out/$n.stdout"
  [ -f "$out/$n.report.json" ] && strip "$out/$n.report.json"
done
for op in hmult hrot bootstrap; do
  "$bin" fhe --config configs/sharp_like.yaml --op $op --ring-degree 65536 --max-level 34 --level 34 \
    --alpha 12 >"$out/fhe_$op.json" 2>&1 || echo "exit $?" >>"$out/fhe_$op.json"
  strip "$out/fhe_$op.json" 2>/dev/null || true
done
echo "reports in $out"

#!/usr/bin/env bash
# Timing-mode benchmark of whole models (not a test): wall time per run and simulated cycles
# (at the optical engine's clock) per wall second. Usage, after scripts/build.sh:
#   bash bench/run_models.sh [MODEL.onnx|PROG.mlir ...]
# With no arguments it runs the models named in issue-level targets: light_resnet50, resnet18,
# vit_b_16, bert_base_encoder_seq128, llama7b_mlp_seq2048 and the HEIR DaCapo MLP.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${PHOTON_SHARED_DIR:-../shared}
if [ $# -eq 0 ]; then
  set -- "$SHARED"/inputs/onnx/light_resnet50.onnx "$SHARED"/inputs/onnx/resnet18.onnx \
         "$SHARED"/inputs/onnx/vit_b_16.onnx "$SHARED"/inputs/onnx/bert_base_encoder_seq128.onnx \
         "$SHARED"/inputs/onnx/llama7b_mlp_seq2048.onnx "$SHARED"/inputs/heir/dacapo_mlp_ckks.mlir
fi
printf '%-32s %10s %16s %18s %10s\n' workload wall_s simulated_ms sim_cycles/wall_s commands
for w in "$@"; do
  rep=$(mktemp)
  start=$(date +%s.%N)
  if build/photon run --config configs/default.yaml --workload "$w" --report "$rep" --quiet; then
    end=$(date +%s.%N)
    /usr/bin/python3 - "$rep" "$w" "$start" "$end" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
ghz = r["config"]["optical_gemm"]["clock_ghz"]
cycles = r["simulated_time_ns"] * ghz
print("%-32s %10.3f %16.3f %18.3e %10d" % (os.path.basename(sys.argv[2]), wall,
      r["simulated_time_ns"] / 1e6, cycles / wall, r["workload_info"]["commands"]))
PY
  else
    printf '%-32s failed\n' "$(basename "$w")"
  fi
  rm -f "$rep"
done

#!/usr/bin/env bash
# Timing-mode benchmark of whole models (not a test): wall time per run and simulated cycles
# (at the optical engine's clock) per wall second. Usage, after scripts/build.sh:
#   bash bench/run_models.sh [MODEL.onnx|PROG.mlir ...]
# With no arguments it runs the models with speed targets: light_resnet50, resnet18, vit_b_16,
# bert_base_encoder_seq128, llama7b_mlp_seq2048, the HEIR DaCapo MLP, and one HMult at N = 2^16,
# L = 35 (`photon fhe`). ONNX models run with configs/default.yaml, HEIR programs and the HMult
# with configs/sharp_like.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${PHOTON_SHARED_DIR:-../shared}
default_set=0
if [ $# -eq 0 ]; then
  default_set=1
  set -- "$SHARED"/inputs/onnx/light_resnet50.onnx "$SHARED"/inputs/onnx/resnet18.onnx \
         "$SHARED"/inputs/onnx/vit_b_16.onnx "$SHARED"/inputs/onnx/bert_base_encoder_seq128.onnx \
         "$SHARED"/inputs/onnx/llama7b_mlp_seq2048.onnx "$SHARED"/inputs/heir/dacapo_mlp_ckks.mlir
fi
printf '%-32s %10s %16s %18s %10s\n' workload wall_s simulated_ms sim_cycles/wall_s commands
for w in "$@"; do
  rep=$(mktemp)
  start=$(date +%s.%N)
  # FHE programs need a machine with room for the ciphertexts and keys (configs/sharp_like.yaml).
  case "$w" in *.mlir) cfg=configs/sharp_like.yaml ;; *) cfg=configs/default.yaml ;; esac
  if build/photon run --config "$cfg" --workload "$w" --report "$rep" --quiet; then
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

# One HMult at N = 2^16, L = 35 (target: under 0.1 s wall), only with the default set.
if [ "$default_set" = 1 ]; then
  start=$(date +%s.%N)
  build/photon fhe --config configs/sharp_like.yaml --op hmult --ring-degree 65536 \
    --max-level 35 --level 35 --alpha 12 > "${TMPDIR:-/tmp}/photon_bench_hmult.json"
  end=$(date +%s.%N)
  /usr/bin/python3 - "${TMPDIR:-/tmp}/photon_bench_hmult.json" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print("%-32s %10.3f %16.3f %18.3e %10d" % ("hmult N=2^16 L=35", wall, r["simulated_time_ns"] / 1e6,
      r["cycles"] / wall, r["commands"]))
PY
  rm -f "${TMPDIR:-/tmp}/photon_bench_hmult.json"
fi

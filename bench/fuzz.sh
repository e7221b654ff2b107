#!/usr/bin/env bash
# Runs every fuzz harness (fuzz/README.md) for SECONDS each and keeps what it finds.
#
#   bash bench/fuzz.sh SECONDS [READER...]     readers: onnx heir pcs pasm config trace (default all)
#
# Builds build-fuzz (Clang, -DPHOTON_FUZZ=ON: ASan + UBSan + libFuzzer) if needed, seeds each
# reader's corpus from ../shared/inputs, ../shared/reference, the examples, configs/ and the
# reader's regression inputs (tests/fuzz_regressions/<reader>/), and runs libFuzzer in fork mode
# (a crash, timeout or out-of-memory input is saved and fuzzing goes on) under nice.
# Kept in build-fuzz/fuzz/: corpus/<reader>/ (grows across runs), findings/<reader>/ (crash-*,
# timeout-*, oom-* inputs), logs/<reader>.log, summary.txt (one line per reader).
# Environment: JOBS=N runs N readers at once (default 1), FUZZ_BUILD=DIR (default build-fuzz),
# FUZZ_TIMEOUT_S=per-input time limit (default 10), FUZZ_RSS_MB=memory limit (default 2048),
# FUZZ_NO_BUILD=1 uses the harnesses as built.
# Turning a finding into a regression: copy it to tests/fuzz_regressions/<reader>/ with a name
# that says what it is; ctest's FuzzRegression.<reader> replays it in the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
SECONDS_EACH=$1
shift
READERS=("$@")
[ ${#READERS[@]} -gt 0 ] || READERS=(onnx heir pcs pasm config trace)
B=${FUZZ_BUILD:-build-fuzz}
JOBS=${JOBS:-1}
SHARED=../shared

if [ ! -f "$B/CMakeCache.txt" ]; then
  # -O1 with assertions on (no NDEBUG): an assert is a finding too.
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DPHOTON_FUZZ=ON >/dev/null
fi
targets=()
for r in "${READERS[@]}"; do targets+=("fuzz_$r"); done
[ -n "${FUZZ_NO_BUILD:-}" ] || nice cmake --build "$B" -j2 --target pcs_seeds "${targets[@]}" >/dev/null

W=$B/fuzz
mkdir -p "$W/seeds" "$W/logs"

# seeds <reader> DIR: fills DIR with the reader's seed inputs.
seeds() {
  local r=$1 d=$2
  mkdir -p "$d"
  case $r in
    onnx)
      /usr/bin/python3 fuzz/make_onnx_seeds.py "$d"
      # Whole models up to 128 KiB (bigger ones make each run slow without new paths).
      find "$SHARED/inputs/onnx" -name '*.onnx' -size -129k -exec cp {} "$d" \; ;;
    heir) cp "$SHARED"/inputs/heir/*.mlir "$d" ;;
    pcs) "$B/fuzz/pcs_seeds" "$d" examples/*.pasm >/dev/null ;;
    pasm) cp examples/*.pasm "$d" ;;
    config) cp configs/*.yaml "$d" ;;
    trace)
      cp fuzz/seeds/trace/* "$d"
      for t in "$SHARED"/reference/hbm2_dramsim3/*.trace; do head -n 64 "$t" >"$d/$(basename "$t")"; done ;;
  esac
  if [ -d "tests/fuzz_regressions/$r" ]; then
    find "tests/fuzz_regressions/$r" -type f ! -name README.md -exec cp {} "$d" \;
  fi
}

max_len() {
  case $1 in onnx) echo 131072 ;; heir) echo 65536 ;; *) echo 16384 ;; esac
}

run_one() {
  local r=$1
  local corpus=$W/corpus/$r findings=$W/findings/$r log=$W/logs/$r.log
  rm -rf "$W/seeds/$r"
  seeds "$r" "$W/seeds/$r"
  mkdir -p "$corpus" "$findings"
  local before
  before=$(find "$findings" -type f | wc -l)
  local t0=$SECONDS
  # -fork=1 with -ignore_*: a finding is saved and the run goes on for the whole time.
  nice -n 10 "$B/fuzz/fuzz_$r" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$SECONDS_EACH" -timeout="${FUZZ_TIMEOUT_S:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
    -max_len="$(max_len "$r")" -artifact_prefix="$findings/" \
    "$corpus" "$W/seeds/$r" >"$log" 2>&1 || true
  local after execs cov
  after=$(find "$findings" -type f | wc -l)
  execs=$(grep -o 'exec/s:\? [0-9]*' "$log" | tail -n1 | awk '{print $2}' || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | awk '{print $2}' || true)
  local runs
  runs=$(grep -o '^#[0-9]*' "$log" | tail -n1 | tr -d '#' || true)
  printf '%-7s %5ds  runs %-9s exec/s %-6s cov %-6s corpus %-5s findings %d (new %d)\n' "$r" \
    $((SECONDS - t0)) "${runs:-?}" "${execs:-?}" "${cov:-?}" "$(find "$corpus" -type f | wc -l)" "$after" \
    $((after - before))
}

: >"$W/summary.txt"
running=0
for r in "${READERS[@]}"; do
  run_one "$r" >>"$W/summary.txt" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
cat "$W/summary.txt"
echo "findings: $W/findings/<reader>/ (distinct reports: grep -h 'SUMMARY\\|fuzz finding\\|terminate called' $W/logs/*.log | sort | uniq -c)"

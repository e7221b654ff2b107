#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan
# (-DPHOTON_SANITIZE=ON, GCC, -O1) and runs it under ctest. A sanitizer report in a test fails
# that test; known noise is suppressed by tests/sanitizers/ (each entry says why).
#   bash scripts/sanitize.sh [CTEST_ARGS...]      e.g. -R 'Hbm|Onnx'
# Environment: SANITIZE_BUILD=DIR (default build-asan), SANITIZE_TEST_AREAS="a;b" (test folders;
# "" is every folder).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${SANITIZE_BUILD:-build-asan}
S=$PWD/tests/sanitizers
source "$S/options.sh"
# The tests that matter for memory errors and undefined behaviour: every input reader (base: the
# YAML loader; isa: .pcs and .pasm; workloads/onnx, workloads/heir, workloads/config; the DRAM
# trace player in models/hbm; cli: bad inputs through the executable), every unit model, the
# platform framework and the assembled platform. Left out, to keep .ci/run within its time: the
# whole-model end-to-end runs (e2e), the lowerings' and FHE suites, and the Verilator
# co-simulation tests (cosim: generated code, minutes of clocked simulation under ASan); the
# Python tests never run here (python3 cannot load an instrumented library).
AREAS=${SANITIZE_TEST_AREAS-"base;isa;platform;models;soc;cli;workloads/config;workloads/onnx;workloads/heir"}
if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_C_FLAGS_RELEASE=-O1 \
    -DPHOTON_SANITIZE=ON >/dev/null
fi
cmake "$B" -DPHOTON_TEST_AREAS="$AREAS" >/dev/null
# The build runs the test binaries too (gtest_discover_tests lists their tests), so the options
# are exported before it.
if ! nice cmake --build "$B" -j2 >"$B/build.log" 2>&1; then
  nice cmake --build "$B" -j1 >>"$B/build.log" 2>&1 || { tail -n 40 "$B/build.log"; exit 1; }
fi
nice ctest --test-dir "$B" --output-on-failure -j2 "$@"

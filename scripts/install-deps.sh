#!/usr/bin/env bash
# Installs the Debian 12 packages Photon needs. Idempotent; silent when everything is present.
set -euo pipefail
PKGS=(
  build-essential cmake pkg-config
  clang libclang-rt-dev  # the fuzz build (bench/fuzz.sh): Clang with libFuzzer and the sanitizer runtimes
  libsystemc-dev verilator
  libyaml-cpp-dev libboost-dev libgtest-dev libgmock-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  libsqlite3-dev sqlite3 libssl-dev
  slurm-wlm
  python3 python3-onnx python3-numpy
  python3-torch python3-torchvision libtorch-dev libopenblas0-pthread
  python3-sklearn python3-matplotlib
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf gdb-multiarch libelf-dev
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

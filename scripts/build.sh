#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and builds Photon: Debian packages, CMake configure and build
# (build/photon and the tests), and the example models under build/examples.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 >/dev/null || cmake --build build -j1
/usr/bin/python3 scripts/make_example_models.py build/examples

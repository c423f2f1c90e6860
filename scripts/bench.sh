#!/usr/bin/env bash
# Sets up and runs the main job: the cross-device comparison `portacl bench` on every OpenCL device
# of this machine (arguments are passed on, e.g. --quick, --json results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then bash scripts/install-deps.sh; else sudo bash scripts/install-deps.sh; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPORTACL_BUILD_TESTS=OFF
cmake --build build -j"$(nproc)" --target portacl_cli
build/portacl devices
build/portacl bench --device all "$@"

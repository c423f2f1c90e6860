#!/usr/bin/env bash
# Sets up and runs the test suites: installs the dependencies (Debian packages), builds, and runs
# every GoogleTest suite through CTest on the OpenCL device that `auto` picks (PoCL's CPU device on a
# machine without a GPU; PORTACL_TEST_DEVICE chooses another).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then bash scripts/install-deps.sh; else sudo bash scripts/install-deps.sh; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

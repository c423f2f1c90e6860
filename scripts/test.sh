#!/usr/bin/env bash
# Sets up and runs the test suites: installs the dependencies (Debian packages), builds, and runs
# every GoogleTest suite through CTest on the OpenCL device that `auto` picks (PoCL's CPU device on a
# machine without a GPU; PORTACL_TEST_DEVICE chooses another). The build folder is
# $PORTACL_BUILD_DIR, default build/, shared with scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PORTACL_BUILD_DIR:-build}
bash scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPORTACL_BUILD_TESTS=ON
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"

#!/usr/bin/env bash
# Sets up and runs the test suites: installs the dependencies (Debian packages), builds, and runs
# every GoogleTest suite through CTest on the OpenCL device that `auto` picks (PoCL's CPU device on a
# machine without a GPU; PORTACL_TEST_DEVICE chooses another), then the conformance set on every
# OpenCL implementation installed (PoCL, Intel's CPU runtime, Mesa's rusticl, oclgrind; see
# docs/portability.md), and prints the conformance matrix of that run; then builds the Python package
# from the same build folder and runs its pytest tests (scripts/python-package.sh). The build folder
# is $PORTACL_BUILD_DIR, default build/, shared with scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PORTACL_BUILD_DIR:-build}
t0=$SECONDS
bash scripts/install-deps.sh
echo "test.sh: dependencies in $((SECONDS - t0)) s"
t0=$SECONDS
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPORTACL_BUILD_TESTS=ON
cmake --build "$build" -j"$(nproc)"
echo "test.sh: build in $((SECONDS - t0)) s"
t0=$SECONDS
status=0
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" || status=$?
echo "test.sh: tests in $((SECONDS - t0)) s"
python3 tools/conformance_matrix.py "$build/conformance" --compact || true
if [ -z "${PORTACL_SKIP_PYTHON:-}" ]; then  # set by the set-up scripts' own check, which fakes cmake
  t0=$SECONDS
  bash scripts/python-package.sh "$build" || status=$?
  echo "test.sh: Python package and its tests in $((SECONDS - t0)) s"
fi
exit "$status"

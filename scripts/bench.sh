#!/usr/bin/env bash
# Sets up and runs the main job: the cross-device comparison `portacl bench` on every OpenCL device
# of this machine (arguments are passed on, e.g. --quick, --json results.json).
# The build folder ($PORTACL_BUILD_DIR, default build/) is configured exactly as scripts/test.sh
# configures it, so that the two scripts can share it in either order; only the CLI is built here.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PORTACL_BUILD_DIR:-build}
bash scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j"$(nproc)" --target portacl_cli
. scripts/opencl-env.sh
"$build"/portacl devices
"$build"/portacl bench --device all "$@"

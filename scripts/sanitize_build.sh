#!/usr/bin/env bash
# Configures and builds the sanitizer tree that scripts/sanitize.sh and scripts/fuzz.sh share:
# clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer coverage (PORTACL_FUZZ=ON), -O0 with
# line tables: half -O1's compile time on CI's two cores (VkFFT's plan file alone: 32 s against 122),
# and the sanitizers see every access the source makes.
# Arguments: the targets to build. PORTACL_SANITIZE_BUILD names the folder (build-sanitize).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PORTACL_SANITIZE_BUILD:-build-sanitize}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DPORTACL_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target "$@"

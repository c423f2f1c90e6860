#!/usr/bin/env bash
# The 3xTF32 SGEMM (and the FP64 tensor-core DGEMM, whose kernel body it shares) on the NVIDIA GPU, in
# one run of under 4 minutes, results under $OUT:
#   devices.txt        the GPU and its driver
#   tests.txt, *.xml   the GPU tests: test_gemm_3xtf32 (the kernel against its serial reference and the
#                      exact product at odd sizes and 1000^3, its error beside the FMA kernel's) and
#                      test_gemm's GemmTensorCore (the DGEMM at each instruction shape)
#   cli.txt            `portacl gemm --kernel tensor-3xtf32` and `--kernel tensor` at ragged sizes, with
#                      the compiler's registers and spills (-cl-nv-verbose)
#   bench.txt/.csv/.json  `portacl bench --only gemm` at 4096^3: register-blocked and tensor-3xtf32 in
#                      float (the 3xTF32 row's note: its error and the FMA kernel's against the exact
#                      product, random and ill-conditioned inputs), register-blocked and tensor in double
#   cuda_anchors.txt   cuBLAS SGEMM and DGEMM 4096^3 through CuPy, in the same run
#   summary.txt        the lines that matter from all of the above
#
# Run from the repository root on the GPU machine, the programs packed into $PACK (default .device):
#   ../shared/device/pack build/portacl build/tests/test_gemm_3xtf32 build/tests/test_gemm   (here)
#   bash tools/anchors/gemm_tf32_check.sh                                                     (there)
set -u
PACK=${PACK:-.device}
OUT=${OUT:-$(mktemp -d)}
[ -x "$PACK/run" ] || { echo "gemm_tf32_check: no $PACK/run here (set PACK to the packed programs)"; exit 1; }
mkdir -p "$OUT"
export PORTACL_NO_PROGRESS=1 PORTACL_PLATFORMS_DIR=$PWD/platforms
t0=$SECONDS
step() { echo "gemm_tf32_check: $1 done after $((SECONDS - t0)) s"; }

"$PACK/run" portacl devices --device nvidia > "$OUT/devices.txt" 2>&1
step devices

# The GPU tests (skipped, with the reason, on a device without tensor cores).
{
    PORTACL_TEST_DEVICE=nvidia timeout 150 "$PACK/run" test_gemm_3xtf32 --gtest_output="xml:$OUT/test_gemm_3xtf32.xml"
    echo "test_gemm_3xtf32: exit $?"
    PORTACL_TEST_DEVICE=nvidia timeout 60 "$PACK/run" test_gemm --gtest_filter='GemmTensorCore.*' \
        --gtest_output="xml:$OUT/test_gemm_tensor.xml"
    echo "test_gemm GemmTensorCore: exit $?"
} > "$OUT/tests.txt" 2>&1 < /dev/null
step tests

# The command line on both tensor kernels, each build's log with NVIDIA's register and spill counts.
verbose=$(mktemp -d)
trap 'rm -rf "$verbose"' EXIT
for p in platforms/*.profile; do sed -E 's/^(options = .*)$/\1 -cl-nv-verbose/' "$p" > "$verbose/$(basename "$p")"; done
{
    for run in "tensor-3xtf32 float" "tensor double"; do
        set -- $run
        PORTACL_PLATFORMS_DIR=$verbose PORTACL_NO_CACHE=1 PORTACL_SHOW_BUILD_LOG=1 timeout 60 \
            "$PACK/run" portacl gemm --m 1000 --n 777 --k 513 --kernel "$1" --precision "$2" --device nvidia
        echo "portacl gemm --kernel $1 --precision $2: exit $?"
    done
} > "$OUT/cli.txt" 2>&1 < /dev/null
step cli

PORTACL_GEMM_KERNELS=register-blocked,tensor,tensor-3xtf32 timeout 150 "$PACK/run" portacl bench --device nvidia \
    --only gemm --precision float,double --no-serial --repeats 5 --csv "$OUT/bench.csv" --json "$OUT/bench.json" \
    > "$OUT/bench.txt" 2>&1 < /dev/null
echo "portacl bench: exit $?" >> "$OUT/bench.txt"
step bench

timeout 60 python3 tools/anchors/cuda_anchors.py > "$OUT/cuda_anchors.txt" 2>&1
step "cuBLAS anchors"

{
    grep -E "Device|driver|compute cap" "$OUT/devices.txt"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|Failure|Skipped|normwise|exit" "$OUT/tests.txt"
    grep -E "largest difference|registers|spill|exit" "$OUT/cli.txt"
    grep -E "gemm/|exit" "$OUT/bench.txt"
    grep -E "GEMM" "$OUT/cuda_anchors.txt"
} > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
echo "gemm_tf32_check: $((SECONDS - t0)) s in all; results in $OUT"

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
# With the argument `sweep`, instead (about a minute): sweep.txt, the 3xTF32 row of the bench at
# 4096^3 for other tensor tile shapes, each through a copy of the NVIDIA profiles with its [gemm]
# tensor_* values (they shape both tensor kernels), to choose the float kernel's shape.
# With the argument `dgemm`, instead (about 3 minutes), toward the FP64 kernel's shape:
#   dgemm_tests.txt    the GPU tests at odd sizes: test_gemm's GemmTensorCore (the profile's shape, each
#                      instruction shape, the cp.async stages) and test_gemm_3xtf32's Gemm3xTf32Device
#   cuda_anchors.txt   cuBLAS SGEMM and DGEMM 4096^3 through CuPy
#   dgemm_sweep.txt    per candidate in DGEMM_VARIANTS below: the `gemm/tensor` bench row at 4096^3
#                      (double) and NVIDIA's registers and spills for gemm_dmma (-cl-nv-verbose), each
#                      through a copy of the NVIDIA profiles with the candidate's tensor_*_double keys;
#                      then the shipped profile's tensor-3xtf32 row (the float kernel is unchanged)
#   dgemm_logs/        each candidate's whole output
#
# Run from the repository root on the GPU machine, the programs packed into $PACK (default .device):
#   ../shared/device/pack build/portacl build/tests/test_gemm_3xtf32 build/tests/test_gemm   (here)
#   bash tools/anchors/gemm_tf32_check.sh [sweep|dgemm]                                       (there)
set -u
PACK=${PACK:-.device}
OUT=${OUT:-$(mktemp -d)}
[ -x "$PACK/run" ] || { echo "gemm_tf32_check: no $PACK/run here (set PACK to the packed programs)"; exit 1; }
mkdir -p "$OUT"
export PORTACL_NO_PROGRESS=1 PORTACL_PLATFORMS_DIR=$PWD/platforms
t0=$SECONDS
step() { echo "gemm_tf32_check: $1 done after $((SECONDS - t0)) s"; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ "${1:-}" = sweep ]; then
    # tile M x N x K : warps M x N, in the profile's cp.async stages. The Hopper profile's 64x256x8:1x4
    # is the first; the others give each warp the same 64 x 64 part of C in other work-groups.
    for v in 64x256x8:1x4 128x128x8:2x2 128x256x8:2x4 64x128x8:1x2 256x128x16:4x2; do
        IFS=x: read -r m n k wm wn <<< "$v"
        dir=$scratch/$v
        mkdir -p "$dir"
        for p in platforms/*.profile; do
            sed -E -e "s/^tensor_m = .*/tensor_m = $m/" -e "s/^tensor_n = .*/tensor_n = $n/" -e "s/^tensor_k = .*/tensor_k = $k/" \
                -e "s/^tensor_warps_m = .*/tensor_warps_m = $wm/" -e "s/^tensor_warps_n = .*/tensor_warps_n = $wn/" \
                "$p" > "$dir/$(basename "$p")"
        done
        PORTACL_PLATFORMS_DIR=$dir PORTACL_GEMM_KERNELS=tensor-3xtf32 timeout 60 "$PACK/run" portacl bench \
            --device nvidia --only gemm -p float --no-serial --repeats 5 > "$scratch/log" 2>&1 < /dev/null
        rc=$?
        row=$(grep -E "gemm/tensor-3xtf32|not run" "$scratch/log" | tr -s ' ')
        echo "$v (exit $rc): ${row:-$(tail -1 "$scratch/log")}"
    done > "$OUT/sweep.txt"
    step sweep
    cat "$OUT/sweep.txt"
    exit 0
fi

# The FP64 kernel's candidates: name, then [gemm] keys given as tensor_<key>_double (m n k warps_m
# warps_n instruction_k stages build_options), which replace the profile's own; "shipped" is the
# profile as it is. Deeper cp.async rings of K 4 (up to 8 stages in 48 KiB), warp tiles of 64 x 32
# (2 x 2 warps over 128 x 64), and tiles of 128 x 128 and 256 x 64 that read less of A and B again.
DGEMM_VARIANTS=(
    "shipped"
    "s2-128x64x16-2x2      m=128 n=64 k=16 warps_m=2 warps_n=2 instruction_k=4 stages=2"
    "s2-128x64x16-2x2-k8   m=128 n=64 k=16 warps_m=2 warps_n=2 instruction_k=8 stages=2"
    "s2-128x64x16-2x2-k16  m=128 n=64 k=16 warps_m=2 warps_n=2 instruction_k=16 stages=2"
    "s2-64x128x16-1x4      m=64 n=128 k=16 warps_m=1 warps_n=4 instruction_k=4 stages=2"
    "s2-128x64x16-4x2      m=128 n=64 k=16 warps_m=4 warps_n=2 instruction_k=4 stages=2 build_options=-cl-nv-maxrregcount=128"
    "s3-64x64x16-1x2       m=64 n=64 k=16 warps_m=1 warps_n=2 instruction_k=4 stages=3"
    "s3-64x64x16-2x2       m=64 n=64 k=16 warps_m=2 warps_n=2 instruction_k=4 stages=3 build_options=-cl-nv-maxrregcount=128"
    "s2-128x32x16-2x1      m=128 n=32 k=16 warps_m=2 warps_n=1 instruction_k=4 stages=2"
    "s4-128x64x8-2x2       m=128 n=64 k=8 warps_m=2 warps_n=2 instruction_k=4 stages=4"
    "a4-128x64-4x2         m=128 n=64 k=8 warps_m=4 warps_n=2 instruction_k=4 stages=4 build_options=-cl-nv-maxrregcount=128"
)

if [ "${1:-}" = dgemm ]; then
    "$PACK/run" portacl devices --device nvidia > "$OUT/devices.txt" 2>&1
    {
        PORTACL_TEST_DEVICE=nvidia timeout 90 "$PACK/run" test_gemm --gtest_filter='GemmTensorCore.*' \
            --gtest_output="xml:$OUT/test_gemm_tensor.xml"
        echo "test_gemm GemmTensorCore: exit $?"
        PORTACL_TEST_DEVICE=nvidia timeout 60 "$PACK/run" test_gemm_3xtf32 --gtest_filter='Gemm3xTf32Device.*' \
            --gtest_output="xml:$OUT/test_gemm_3xtf32.xml"
        echo "test_gemm_3xtf32 Gemm3xTf32Device: exit $?"
    } > "$OUT/dgemm_tests.txt" 2>&1 < /dev/null
    step tests
    timeout 60 python3 tools/anchors/cuda_anchors.py > "$OUT/cuda_anchors.txt" 2>&1
    step "cuBLAS anchors"
    mkdir -p "$OUT/dgemm_logs"
    for v in "${DGEMM_VARIANTS[@]}"; do
        set -- $v
        name=$1
        shift
        dir=$scratch/$name
        mkdir -p "$dir"
        for p in platforms/*.profile; do
            # -cl-nv-verbose on the build options, the candidate's keys at the top of [gemm]
            sed -E 's/^(options = .*)$/\1 -cl-nv-verbose/' "$p" > "$dir/$(basename "$p")"
            # A candidate replaces the profile's own FP64 keys (the last of a repeated key is the one read).
            [ $# -gt 0 ] && sed -i -E '/^tensor_[a-z_]+_double *=/d' "$dir/$(basename "$p")"
            for kv in "$@"; do sed -i -E "/^\[gemm\]$/a tensor_${kv%%=*}_double = ${kv#*=}" "$dir/$(basename "$p")"; done
        done
        PORTACL_PLATFORMS_DIR=$dir PORTACL_NO_CACHE=1 PORTACL_SHOW_BUILD_LOG=1 PORTACL_GEMM_KERNELS=tensor timeout 40 \
            "$PACK/run" portacl bench --device nvidia --only gemm -p double --no-serial --repeats 5 \
            > "$OUT/dgemm_logs/$name.txt" 2>&1 < /dev/null
        rc=$?
        row=$(grep -E "gemm/tensor|not run" "$OUT/dgemm_logs/$name.txt" | tr -s ' ')
        regs=$(grep -A3 "entry function 'gemm_dmma'" "$OUT/dgemm_logs/$name.txt" | grep -E "registers|spill" | sed 's/ptxas *\(info *\)*[:.]* *//' | tr -s ' \n' ' ')
        echo "$name (exit $rc) [$*]: ${row:-$(tail -1 "$OUT/dgemm_logs/$name.txt")} | gemm_dmma: ${regs:-no build log}"
    done > "$OUT/dgemm_sweep.txt"
    PORTACL_GEMM_KERNELS=tensor-3xtf32 timeout 40 "$PACK/run" portacl bench --device nvidia --only gemm -p float \
        --no-serial --repeats 5 2>&1 < /dev/null | grep -E "gemm/tensor-3xtf32|not run" | tr -s ' ' >> "$OUT/dgemm_sweep.txt"
    step "DGEMM candidates"
    {
        grep -E "Device|driver|compute cap" "$OUT/devices.txt"
        grep -E -A3 "Failure" "$OUT/dgemm_tests.txt" | grep -vE "^\[ +(OK|RUN)"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |exit" "$OUT/dgemm_tests.txt"
        grep -E "GEMM" "$OUT/cuda_anchors.txt"
        cat "$OUT/dgemm_sweep.txt"
    } > "$OUT/summary.txt" 2>&1
    cat "$OUT/summary.txt"
    echo "gemm_tf32_check dgemm: $((SECONDS - t0)) s in all; results in $OUT"
    exit 0
fi

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
verbose=$scratch/verbose
mkdir -p "$verbose"
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
    grep -E -A3 "Failure" "$OUT/tests.txt" | grep -vE "^\[ +(OK|RUN)"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |Skipped|normwise|exit" "$OUT/tests.txt"
    grep -E "largest difference|registers|spill|exit" "$OUT/cli.txt"
    grep -E "gemm/|exit" "$OUT/bench.txt"
    grep -E "GEMM" "$OUT/cuda_anchors.txt"
} > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
echo "gemm_tf32_check: $((SECONDS - t0)) s in all; results in $OUT"

#!/usr/bin/env bash
# The inline PTX of cl/gemm_mma.cl assembles for NVIDIA's GPUs, without one: clang compiles the
# OpenCL C to PTX for nvptx64 (as NVIDIA's compiler would, with MMA_PTX=1), and NVIDIA's assembler,
# ptxas, assembles it for compute capability 8.0 (sm_80) and 9.0 (sm_90), for every instruction shape
# the host builds: the 3xTF32 kernel (cvt.rna.tf32.f32, mma m16n8k8 tf32) and the FP64 one (two
# m8n8k4 on 8.x; m16n8k4, k8 or k16 on 9.0; its cp.async staging). A control checks that ptxas refuses an instruction the
# target lacks (m16n8k4 f64 on sm_80), so a pass means the instructions were checked.
#
#   bash tests/scripts/check_gemm_mma_ptx.sh SOURCE_DIR [WORK_DIR]
# Exit status 77 (skipped) without clang or ptxas (CLANG, PTXAS: their commands; ptxas is looked for
# on PATH and in /usr/local/cuda/bin).
set -u
src=${1:?usage: check_gemm_mma_ptx.sh SOURCE_DIR [WORK_DIR]}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
clang=${CLANG:-clang}
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
command -v "$clang" > /dev/null || { echo "skipped: no clang"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas (NVIDIA's PTX assembler, in the CUDA toolkit)"; exit 77; }
echo 'kernel void k(void) {}' > "$work/probe.cl"
"$clang" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-cuda -S -o "$work/probe.ptx" "$work/probe.cl" 2> /dev/null ||
    { echo "skipped: $clang has no nvptx64 target"; exit 77; }

# assemble NAME SM DEFINES...: 0 when ptxas takes the kernel's PTX for sm_SM.
assemble() {
    local name=$1 sm=$2
    shift 2
    # -fgnu-keywords: clang's OpenCL mode knows asm only as a GNU keyword (NVIDIA's compiler takes it as is).
    "$clang" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-cuda -Xclang -finclude-default-header -fgnu-keywords -O3 \
        -S -o "$work/$name.ptx" -D MMA_PTX=1 "$@" "$src/cl/gemm_mma.cl" > "$work/$name.log" 2>&1 || return 1
    # clang writes its own (older) PTX version and target; the instructions need PTX 7.0 and sm_80 or later.
    sed -i -e 's/^\.version .*/.version 7.8/' -e "s/^\.target .*/.target sm_$sm/" "$work/$name.ptx"
    # -c: the OpenCL built-ins stay external functions (no device library is linked).
    "$ptxas" -arch="sm_$sm" -c -o "$work/$name.o" "$work/$name.ptx" >> "$work/$name.log" 2>&1
}
status=0
check() { # NAME SM INSTRUCTION DEFINES...: assembles, and its PTX holds INSTRUCTION
    local name=$1 sm=$2 instruction=$3
    shift 3
    if ! assemble "$name" "$sm" "$@"; then
        echo "FAIL $name (sm_$sm):"; sed 's/^/  /' "$work/$name.log" | head -20; status=1
    elif ! grep -qF "$instruction" "$work/$name.ptx"; then
        echo "FAIL $name (sm_$sm): no $instruction in its PTX"; status=1
    else
        echo "ok   $name (sm_$sm): $(grep -cF "$instruction" "$work/$name.ptx") x $instruction"
    fi
}
tf32="mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
for sm in 80 90; do
    check "3xtf32-128x128x8-4x4-sm$sm" $sm "$tf32" -D PORTACL_DOUBLE=0 -D BM=128 -D BN=128 -D BK=8 -D WARPS_M=4 -D WARPS_N=4
    check "3xtf32-128x64x16-4x2-sm$sm" $sm "cvt.rna.tf32.f32" -D PORTACL_DOUBLE=0 -D BM=128 -D BN=64 -D BK=16 -D WARPS_M=4 -D WARPS_N=2
done
check dmma-m8n8k4-sm80 80 "mma.sync.aligned.m8n8k4.row.col.f64" -D PORTACL_DOUBLE=1 -D MMA_K=4 -D MMA_M16=0
for k in 4 8 16; do
    check "dmma-m16n8k$k-sm90" 90 "mma.sync.aligned.m16n8k$k.row.col.f64" -D PORTACL_DOUBLE=1 -D BM=64 -D BN=64 -D BK=16 \
        -D WARPS_M=2 -D WARPS_N=2 -D MMA_K=$k -D MMA_M16=1
done
# cp.async staging of the FP64 kernel (3 stages of 128 x 128 x 8, 4 of 64 x 64 x 4).
check dmma-cp.async-3-sm80 80 "cp.async.ca.shared.global" -D PORTACL_DOUBLE=1 -D BM=128 -D BN=128 -D BK=8 -D WARPS_M=4 \
    -D WARPS_N=4 -D MMA_K=4 -D MMA_M16=0 -D STAGES=3
check dmma-cp.async-4-sm90 90 "cp.async.wait_group 2" -D PORTACL_DOUBLE=1 -D BM=64 -D BN=64 -D BK=4 -D WARPS_M=2 \
    -D WARPS_N=2 -D MMA_K=4 -D MMA_M16=1 -D STAGES=4
if assemble control-m16n8k4-f64-sm80 80 -D PORTACL_DOUBLE=1 -D MMA_K=4 -D MMA_M16=1; then
    echo "FAIL control: ptxas took m16n8k4 f64 for sm_80, which lacks it: the checks above prove nothing"; status=1
else
    echo "ok   control: ptxas refuses m16n8k4 f64 for sm_80"
fi
exit $status

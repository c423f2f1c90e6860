#!/usr/bin/env bash
# The distributed k-Wave solver's two decompositions where the global one stalls (docs/kwave.md,
# "The local Fourier basis decomposition"): the 512^3 example (10 steps) on 1 GPU, then on 2 and 4
# GPUs with the global slabs (transposes through host memory) and with the local Fourier basis at
# overlaps 4, 8 and 16; each run's time per step and exchange lines, and every output's relative L2
# against the one-GPU output (tools/kwave/compare_outputs.py). Run from the repository root with the
# packed programs and the carried Open MPI in .device/ (../shared/device/pack build/portacl &&
# tools/device/pack_openmpi.sh .device/openmpi), on the 4-GPU machine:
#   tools/bench/kwave_lfb_gpu.sh      # about 4 minutes (the input, 9 runs); results in $OUT
# OVERLAPS='4 8' and RANKS='2' narrow it; NT sets the steps (10).
set -u
OUT=${OUT:-/tmp/kwave_lfb}
mkdir -p "$OUT"
[ -x .device/run ] && [ -f .device/openmpi/env.sh ] || { echo "kwave_lfb_gpu: no .device/run or .device/openmpi here"; exit 1; }
# shellcheck source=/dev/null
source .device/openmpi/env.sh
export PORTACL_NO_PROGRESS=1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
NT=${NT:-10}
IN=/tmp/k512_$NT.h5
{ echo "cores: $(nproc); GPUs: $gpus"; nvidia-smi -L; } > "$OUT/machine.txt" 2>&1
run() {  # ranks, name, portacl kwave options...
    local ranks=$1 name=$2
    shift 2
    timeout 150 mpirun --allow-run-as-root --bind-to none -n "$ranks" .device/run portacl kwave -i "$IN" -o "/tmp/o512_$name.h5" \
        -p --p_final "$@" > "$OUT/kwave512_$name.txt" 2>&1 < /dev/null
    echo "rc=$?" >> "$OUT/kwave512_$name.txt"
    if [ "$name" != 1 ]; then
        python3 tools/kwave/compare_outputs.py /tmp/o512_1.h5 "/tmp/o512_$name.h5" --tol 1 --label "$name" > "$OUT/compare_$name.txt" 2>&1
    fi
    local step worst
    step=$(grep -h "Time per step" "$OUT/kwave512_$name.txt" | awk '{print $4, $5}')
    worst=$([ "$name" = 1 ] || tail -1 "$OUT/compare_$name.txt")
    printf '%-14s %3s GPUs  %-12s %s\n' "$name" "$ranks" "${step:-failed}" "$worst" | tee -a "$OUT/summary.txt"
}
[ -f "$IN" ] || python3 scripts/kwave_example_input.py "$IN" 512 --nt "$NT" > /dev/null
: > "$OUT/summary.txt"
run 1 1
for R in ${RANKS:-2 4}; do
    [ "$R" -le "$gpus" ] || { echo "only $gpus GPUs: $R ranks left out" | tee -a "$OUT/summary.txt"; continue; }
    run "$R" "global_$R"
    for N in ${OVERLAPS:-4 8 16}; do
        run "$R" "lfb_${R}_$N" --decomposition lfb --overlap "$N"
    done
done
grep -h -E "Transposes|all-to-all|Overlap exchanges|  MPI:" "$OUT"/kwave512_*.txt > "$OUT/exchanges.txt"

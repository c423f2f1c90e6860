#!/usr/bin/env bash
# The distributed k-Wave solver's exchange between the ranks of one host (docs/kwave.md, "The exchange
# between ranks of one host"), on the GPU machine with 2 or 4 GPUs: `portacl alltoall` (MPI_Alltoallv
# against the shared-memory window with 1, 2, 4, ... copy threads a rank) on the blocks of the 512^3
# and 1024^3 transposes, then, with KWAVE=1, the 512^3 k-Wave example on 2 and 4 ranks through each
# exchange (PORTACL_EXCHANGE=mpi, then the default). Run from the repository root with the packed
# programs and the carried Open MPI in .device/ (../shared/device/pack build/portacl &&
# tools/device/pack_openmpi.sh .device/openmpi):
#   tools/bench/kwave_exchange_gpu.sh            # meant to take under a minute; results in $OUT
#   KWAVE=1 tools/bench/kwave_exchange_gpu.sh    # and the k-Wave runs (input, 4 runs): a few minutes more
set -u
OUT=${OUT:-/tmp/kwave_exchange}
mkdir -p "$OUT"
[ -x .device/run ] && [ -f .device/openmpi/env.sh ] || { echo "kwave_exchange_gpu: no .device/run or .device/openmpi here"; exit 1; }
# shellcheck source=/dev/null
source .device/openmpi/env.sh
export PORTACL_NO_PROGRESS=1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
{ echo "cores: $(nproc); GPUs: $gpus"; df -h /dev/shm | tail -1; } > "$OUT/machine.txt"
run() {  # ranks, output file, command...
    local ranks=$1 out=$2
    shift 2
    timeout 300 mpirun --allow-run-as-root --bind-to none -n "$ranks" "$@" > "$OUT/$out" 2>&1 < /dev/null
    echo "rc=$?" >> "$OUT/$out"
}
run 2 alltoall_2_512.txt .device/run portacl alltoall --grid 512
run 4 alltoall_4_512.txt .device/run portacl alltoall --grid 512
run 4 alltoall_4_1024.txt .device/run portacl alltoall --grid 1024 --repeats 5
if [ "${KWAVE:-0}" = 1 ]; then
    [ -f /tmp/k512.h5 ] || python3 scripts/kwave_example_input.py /tmp/k512.h5 512 --nt 10 > /dev/null
    for R in 2 4; do
        [ "$R" -le "$gpus" ] || continue
        for m in mpi auto; do
            run "$R" "kwave512_${R}_$m.txt" -x PORTACL_EXCHANGE=$m .device/run portacl kwave -i /tmp/k512.h5 -o "/tmp/o512_${R}_$m.h5" -p --p_final
        done
    done
    for R in 2 4; do
        [ -f "/tmp/o512_${R}_auto.h5" ] && [ -f "/tmp/o512_${R}_mpi.h5" ] &&
            python3 tools/kwave/compare_outputs.py "/tmp/o512_${R}_mpi.h5" "/tmp/o512_${R}_auto.h5" --tol 0 > "$OUT/compare_512_${R}.txt" 2>&1
    done
fi
grep -h -E "^portacl alltoall|GB/s|MPI_Alltoallv|window|Time per step|all-to-all|worst" "$OUT"/*.txt

#!/usr/bin/env bash
# The distributed k-Wave solver's two decompositions where the global one stalls (docs/kwave.md,
# "The local Fourier basis decomposition"): the 512^3 example (10 steps) on 1 GPU, then on 2 and 4
# GPUs with the global slabs (transposes through host memory) and with the local Fourier basis at
# overlaps 4, 8 and 16; each run's time per step and exchange lines, and every output's relative L2
# against the one-GPU output (tools/kwave/compare_outputs.py). Run from the repository root with the
# packed programs and the carried Open MPI in .device/ (../shared/device/pack build/portacl &&
# tools/device/pack_openmpi.sh .device/openmpi), on the 4-GPU machine:
#   tools/bench/kwave_lfb_gpu.sh      # about 4 minutes (the input, 9 runs); results in $OUT
# and on the 2-GPU machine, one GPU and the local Fourier basis on 2 at overlaps 4 and 8 (about 2 minutes):
#   RANKS=2 OVERLAPS='4 8' GLOBAL=0 tools/bench/kwave_lfb_gpu.sh
# Five files come back: machine.txt (cores, GPUs), summary.txt (a line a run: time per step, the worst relative L2 and its
# dataset), exchanges.txt (the transposes' and overlap exchanges' summary lines), runs.txt (every
# run's output) and compare.txt (every comparison, dataset by dataset); the summary's local Fourier
# basis lines add the share of the simulation time the slowest rank's device waited for the overlap
# planes (the run's "Device waiting" line). OVERLAPS='4 8' and RANKS='2' narrow it, GLOBAL=0 leaves
# out the global slabs (not with ONE=0); NT sets the steps (10), SIZE the grid (512); MPI=1 adds each rank count's overlap-8 run
# with PORTACL_EXCHANGE=mpi (MPI point-to-point in place of the shared-memory window). For a grid one GPU
# cannot hold (SIZE=1024): ONE=0 leaves the one-GPU run out and holds each lfb run to the global run
# of its rank count instead; IN_DIR puts the input elsewhere (/dev/shm), RUN_TIMEOUT limits each run (150 s).
# PORTACL_KWAVE_SETUP_TRACE=1 reaches every rank (each part of the set-up on stderr, in runs.txt).
# CPU_CORES=16 runs the same on the first 16 cores through PoCL in place of the GPUs (the ranks share
# them: -t 16/R each, MPI yielding while it waits), for the strong scaling over ranks of one CPU:
#   CPU_CORES=16 SIZE=256 NT=20 RANKS='2 4' OVERLAPS=8 tools/bench/kwave_lfb_gpu.sh
set -u
OUT=${OUT:-/tmp/kwave_lfb}
LOGS=$(mktemp -d /tmp/kwave_lfb_logs.XXXXXX)
mkdir -p "$OUT"
[ -x .device/run ] && [ -f .device/openmpi/env.sh ] || { echo "kwave_lfb_gpu: no .device/run or .device/openmpi here"; exit 1; }
# shellcheck source=/dev/null
source .device/openmpi/env.sh
export PORTACL_NO_PROGRESS=1
.device/run true  # registers NVIDIA's OpenCL driver once, before the ranks start together
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
CPU_CORES=${CPU_CORES:-}
if [ -n "$CPU_CORES" ]; then
    gpus=$CPU_CORES  # the most ranks the cores take
    export OMPI_MCA_mpi_yield_when_idle=1
fi
NT=${NT:-10}
SIZE=${SIZE:-512}
IN=${IN_DIR:-/tmp}/k${SIZE}_$NT.h5
ONE=${ONE:-1}
{ echo "cores: $(nproc); GPUs: $gpus"; nvidia-smi -L; } > "$OUT/machine.txt" 2>&1
run() {  # ranks, name, portacl kwave options...
    local ranks=$1 name=$2
    shift 2
    local log="$LOGS/run_$name.txt" cmp="$LOGS/compare_$name.txt"
    [ -z "$CPU_CORES" ] || set -- "$@" --device pocl -t $((CPU_CORES / ranks))
    echo "== $name: $ranks ranks, $*" > "$log"
    timeout "${RUN_TIMEOUT:-150}" ${CPU_CORES:+taskset -c 0-$((CPU_CORES - 1))} mpirun --allow-run-as-root --bind-to none -n "$ranks" ${PORTACL_EXCHANGE:+-x PORTACL_EXCHANGE} ${PORTACL_KWAVE_SETUP_TRACE:+-x PORTACL_KWAVE_SETUP_TRACE} \
        .device/run portacl kwave -i "$IN" -o "${IN_DIR:-/tmp}/o${SIZE}_$name.h5" -p --p_final "$@" >> "$log" 2>&1 < /dev/null
    echo "rc=$?" >> "$log"
    local step worst="" waiting
    step=$(grep -h "Time per step" "$log" | awk '{print $4, $5}')
    waiting=$(grep -h "Device waiting" "$log" | sed -E 's/.*, ([0-9]+ %).*/\1 waiting/')
    local reference=1
    [ "$ONE" = 1 ] || reference="global_$ranks"
    if [ "$name" != "$reference" ]; then
        echo "== $name against $reference" > "$cmp"
        python3 tools/kwave/compare_outputs.py "${IN_DIR:-/tmp}/o${SIZE}_$reference.h5" "${IN_DIR:-/tmp}/o${SIZE}_$name.h5" --tol 1 --label "$name" >> "$cmp" 2>&1
        worst=$(tail -1 "$cmp")
    fi
    printf '%-16s %s ranks  %-12s %-12s %s\n' "$name" "$ranks" "${step:-failed}" "$waiting" "$worst" | tee -a "$OUT/summary.txt"
}
[ -f "$IN" ] || python3 scripts/kwave_example_input.py "$IN" "$SIZE" --nt "$NT" > /dev/null
echo "${SIZE}^3 example, $NT steps, -p --p_final${CPU_CORES:+, PoCL on $CPU_CORES cores}: run, ranks, time per step, device waiting for overlap planes, worst relative L2 against $([ "$ONE" = 1 ] && echo "one rank" || echo "the global run")" > "$OUT/summary.txt"
[ "$ONE" = 1 ] && run 1 1
for R in ${RANKS:-2 4}; do
    [ "$R" -le "$gpus" ] || { echo "only $gpus GPUs: $R ranks left out" | tee -a "$OUT/summary.txt"; continue; }
    [ "${GLOBAL:-1}" = 0 ] || run "$R" "global_$R"
    for N in ${OVERLAPS:-4 8 16}; do
        run "$R" "lfb_${R}_$N" --decomposition lfb --overlap "$N"
    done
    if [ "${MPI:-0}" = 1 ]; then PORTACL_EXCHANGE=mpi run "$R" "lfb_${R}_8_mpi" --decomposition lfb --overlap 8; fi
done
cat "$LOGS"/run_*.txt > "$OUT/runs.txt"
cat "$LOGS"/compare_*.txt > "$OUT/compare.txt" 2>/dev/null
grep -h -E "^== |Transposes|all-to-all|Overlap exchanges|  MPI:|Device waiting" "$OUT/runs.txt" > "$OUT/exchanges.txt"
rm -rf "$LOGS"

#!/usr/bin/env bash
# Issue 33's k-Wave comparison on 16 cores of a larger GPU machine (64 cores): kspaceFirstOrder-OMP
# against `portacl kwave` on PoCL, both under `taskset -c 0-15`, 16 threads each (k-Wave's -t 16;
# ours -t 16, which sets PoCL's POCL_MAX_PTHREAD_COUNT and POCL_CPU_MAX_CU_COUNT, set here too), the
# same run, alternated rounds (tools/kwave/cpu_compare.sh). Results in $OUT; at most 4 minutes.
#
#   kwave_cpu16_machine.txt  lscpu, NUMA nodes, what 0-15 are, PoCL's devices as the runs see them
#                            (16 compute units, not the machine's 64)
#   kwave_cpu16_128.txt      128^3, 40 steps, 3 rounds, with a --profile run of each variant:
#                              default  the pocl.profile of this tree ([kwave] row_group = 16) and
#                                       cl/kwave.cl (the row kernels' arrays restrict)
#                              before   [kwave] row_group = 0 (the row kernels' work-groups as PoCL
#                                       chooses them: one per thread) and cl/kwave.cl without
#                                       restrict (PORTACL_KERNEL_DIR): the code of before
#                              tasks    [fft] fftw_host_tasks = 1: each transform a host task in the queue
#   kwave_cpu16_scaling.txt  128^3, 20 steps: ours (--profile) with VkFFT's kernels on PoCL in place
#                            of FFTW (the element-wise kernels' times with no FFTW threads between
#                            them); where the 16 cores span NUMA nodes, both programs under
#                            `numactl --interleave` of them; ours (--profile) and k-Wave at 8 and 4
#                            threads on the first 8 and 4 of the cores (whether the kernels and FFTW
#                            scale to 16)
#   kwave_cpu16_fftw.txt     FFTW alone (tools/bench/fftw_threads.cpp, if .device/bin/fftw_threads is
#                            there), 128^3 and 256^3 on the 16 cores: its loops on OpenMP threads (as
#                            kspaceFirstOrder-OMP), on our loop pool, on FFTW's own threads; back to
#                            back and after a 2 ms gap (what handing the cores over costs a transform)
#   kwave_cpu16_vectorizer.txt  LLVM's loop vectorizer on PoCL's builds of the k-Wave kernels
#                            (POCL_VECTORIZER_REMARKS, a fresh kernel cache, 32^3), per kernel, with and
#                            without restrict: whether this PoCL vectorises the row kernels' loops
#   kwave_cpu16_256.txt      256^3, 20 steps, 1 round: default and before
#
#   cmake --build build -j2 --target portacl_cli
#   ../shared/device/pack build/portacl
#   cp /path/to/kspaceFirstOrder-OMP .device/bin/   # k-Wave's, static, built as docs/kwave.md says
#   cp build/fftw_threads .device/bin/               # static; its header says how to build it
#   then on the GPU machine (carry [".device"]), from the repository root:
#   tools/kwave/cpu16_sweep.sh
# CPUS (default 0-15) and THREADS (16) choose other cores; N1 and N2 (128, 256) other grids.
set -u
cd "$(dirname "$0")/../.."
export PACK=${PACK:-.device}
export PORTACL_PLATFORMS_DIR=$PWD/platforms  # the packed program does not know where this tree is
export PORTACL_NO_PROGRESS=1
: "${OUT:?set OUT to the folder for the results}"
omp=$PACK/bin/kspaceFirstOrder-OMP
[ -x "$omp" ] || { echo "no $omp: copy k-Wave's kspaceFirstOrder-OMP there"; exit 1; }
cpus=${CPUS:-0-15}
threads=${THREADS:-16}
n1=${N1:-128} n2=${N2:-256}
# PoCL's thread count for every command here (portacl devices too); -t sets the same for ours.
export POCL_MAX_PTHREAD_COUNT=$threads POCL_CPU_MAX_CU_COUNT=$threads
py=python3
$py -c 'import h5py, numpy' 2>/dev/null || py=/usr/bin/python3
start=$SECONDS

# The NUMA nodes of the chosen cores (for the interleaved runs); empty when there is one.
nodes=$(lscpu -p=CPU,NODE 2>/dev/null | grep -v '^#' | awk -F, -v list="$(taskset -c "$cpus" sh -c 'taskset -cp $$' | sed 's/.*: //')" '
    BEGIN {n = split(list, parts, ","); for (i = 1; i <= n; i++) {split(parts[i], r, "-"); hi = (r[2] == "" ? r[1] : r[2]); for (c = r[1]; c <= hi; c++) on[c] = 1}}
    on[$1] {seen[$2] = 1} END {s = ""; k = 0; for (nd in seen) {s = s (k++ ? "," : "") nd}; if (k > 1) print s}')

{
    echo "== lscpu"; lscpu
    echo; echo "== numactl --hardware"; numactl --hardware 2>&1 || echo "(no numactl)"
    echo; echo "== CPUs $cpus: nproc under taskset $(taskset -c "$cpus" nproc); NUMA nodes of them: ${nodes:-one}"
    echo; echo "== transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
    echo; echo "== portacl devices (POCL_MAX_PTHREAD_COUNT=$threads, taskset -c $cpus)"
    taskset -c "$cpus" "$PACK/run" portacl devices
} > "$OUT/kwave_cpu16_machine.txt" 2>&1
echo "machine: $((SECONDS - start)) s"

# cl/kwave.cl as it was before restrict, for the variant "before".
norestrict=$(mktemp -d)
sed 's/^#define RESTRICT_ROWS restrict$/#define RESTRICT_ROWS/' cl/kwave.cl > "$norestrict/kwave.cl"
before="before:kwave.row_group=0,env.PORTACL_KERNEL_DIR=$norestrict"
variants="$before tasks:fft.fftw_host_tasks=1"
PIN=$cpus ROUNDS=3 PROFILE=1 VARIANTS=$variants timeout 80 tools/kwave/cpu_compare.sh "$omp" "$n1" 40 "$threads" > "$OUT/kwave_cpu16_128.txt" 2>&1
echo "${n1}^3: exit $? at $((SECONDS - start)) s"
PIN=$cpus ROUNDS=1 VARIANTS=$before timeout 85 tools/kwave/cpu_compare.sh "$omp" "$n2" 20 "$threads" > "$OUT/kwave_cpu16_256.txt" 2>&1
echo "${n2}^3: exit $? at $((SECONDS - start)) s"

# Scaling: the same case at fewer threads on fewer of the cores, ours with --profile.
scaling() {
    local work
    work=$(mktemp -d)
    $py scripts/kwave_example_input.py "$work/in.h5" "$n1" --nt 20 > /dev/null || { echo "input file not written"; return; }
    step_of_kwave() { $py -c "import h5py; f=h5py.File('$1','r'); print('%.2f' % (1e3 * float(f.attrs['simulation_phase_execution_time'].decode().strip().rstrip('s')) / 20))"; }
    ours_profile() {  # ours_profile LABEL PREFIX...: one --profile run, its step and busiest rows
        local label=$1
        shift
        if "$@" "$PACK/run" portacl kwave -i "$work/in.h5" -o "$work/ocl.h5" --device pocl -t "$t" ${FFTARG:-} --profile -p > "$work/ocl.log" 2>&1; then
            echo "ours, $label: $(grep -m1 'Threads:' "$work/ocl.log" | tr -s ' ')"
            grep -E 'Time per step' "$work/ocl.log"
            sed -n '/^Profile:/,$p' "$work/ocl.log" | awk 'NR >= 2 && (NR <= 12 || /kwave_(velocity|density|pressure) /)'
        else
            echo "ours, $label: failed"; tail -4 "$work/ocl.log"
        fi
    }
    omp_run() {  # omp_run LABEL PREFIX...
        local label=$1
        shift
        if "$@" "$omp" -t "$t" -i "$work/in.h5" -o "$work/omp.h5" -p > "$work/omp.log" 2>&1; then
            echo "kspaceFirstOrder-OMP, $label: $(step_of_kwave "$work/omp.h5") ms per step"
        else
            echo "kspaceFirstOrder-OMP, $label: failed"; tail -4 "$work/omp.log"
        fi
    }
    local first=${cpus%%[-,]*} t=$threads
    echo "== $t threads on CPUs $cpus, ${n1}^3, 20 steps, the FFTs by VkFFT's kernels on PoCL (fused_z = 0: the same kernels as with FFTW)"
    mkdir -p "$work/unfused" && cp "${PORTACL_PLATFORMS_DIR%%:*}/pocl.profile" "$work/unfused/" && printf '\n[kwave]\nfused_z = 0\n' >> "$work/unfused/pocl.profile"
    PORTACL_PLATFORMS_DIR="$work/unfused:$PORTACL_PLATFORMS_DIR" FFTARG="--fft vkfft" ours_profile "-t $t --fft vkfft" taskset -c "$cpus"
    if [ -n "$nodes" ] && command -v numactl > /dev/null; then
        echo; echo "== $t threads on CPUs $cpus, memory interleaved over NUMA nodes $nodes"
        omp_run "-t $t, numactl --interleave=$nodes" taskset -c "$cpus" numactl --interleave="$nodes"
        ours_profile "-t $t, numactl --interleave=$nodes" taskset -c "$cpus" numactl --interleave="$nodes"
    else
        echo; echo "== CPUs $cpus lie on one NUMA node (or numactl is missing): no interleaved runs"
    fi
    for t in ${SCALING:-8 4}; do
        echo; echo "== $t threads on CPUs $first-$((first + t - 1)), ${n1}^3, 20 steps"
        omp_run "-t $t" taskset -c "$first-$((first + t - 1))"
        POCL_MAX_PTHREAD_COUNT=$t POCL_CPU_MAX_CU_COUNT=$t ours_profile "-t $t" taskset -c "$first-$((first + t - 1))"
    done
    rm -rf "$work"
}
export omp py cpus threads nodes n1
timeout 35 bash -c "$(declare -f scaling); scaling" > "$OUT/kwave_cpu16_scaling.txt" 2>&1
echo "scaling: exit $? at $((SECONDS - start)) s"

if [ -x "$PACK/bin/fftw_threads" ]; then
    timeout 15 bash -c "taskset -c $cpus $PACK/bin/fftw_threads $n1 $threads 10 2; taskset -c $cpus $PACK/bin/fftw_threads $n2 $threads 3 2" > "$OUT/kwave_cpu16_fftw.txt" 2>&1
    echo "FFTW alone: exit $? at $((SECONDS - start)) s"
fi

# The vectorizer's remarks, each attributed to the work-group function they follow.
vectorizer() {
    local work kd what
    work=$(mktemp -d)
    $py scripts/kwave_example_input.py "$work/in.h5" 32 --nt 4 > /dev/null || return
    for kd in "" "$norestrict"; do
        if [ -n "$kd" ]; then what="kwave.cl without restrict"; else what="kwave.cl as built"; fi
        echo "== $what: LLVM's loop vectorizer on PoCL's work-group functions (remark counts, each under the last function named before it)"
        POCL_VECTORIZER_REMARKS=1 POCL_CACHE_DIR="$work/pocl$RANDOM" PORTACL_KERNEL_DIR=$kd taskset -c "$cpus" \
            "$PACK/run" portacl kwave -i "$work/in.h5" -o "$work/out.h5" --device pocl -t "$threads" --no-cache --benchmark 2 -p 2>&1 |
            grep -o -E "inlined into '_pocl_kernel_[a-z_0-9]+_workgroup'|vectorized loop \([^)]*\)|loop not vectorized[^<]*" |
            awk '/inlined into/ {k = $0; sub(/.*_pocl_kernel_/, "", k); sub(/_workgroup.*/, "", k); next}
                 k != "" {n[k ": " $0]++} END {for (x in n) print n[x] "x " x}' | sort -k2
    done
    rm -rf "$work"
}
export norestrict
timeout 20 bash -c "$(declare -f vectorizer); vectorizer" > "$OUT/kwave_cpu16_vectorizer.txt" 2>&1
echo "vectorizer: exit $? at $((SECONDS - start)) s"

tail -n 7 "$OUT/kwave_cpu16_128.txt" "$OUT/kwave_cpu16_256.txt"
grep -E '^ours|^kspace|Time per step|kwave_velocity |kwave_density |fftw' "$OUT/kwave_cpu16_scaling.txt"
[ -f "$OUT/kwave_cpu16_fftw.txt" ] && cat "$OUT/kwave_cpu16_fftw.txt"
rm -rf "$norestrict"

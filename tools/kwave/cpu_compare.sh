#!/bin/bash
# k-Wave's kspaceFirstOrder-OMP against kspaceFirstOrder-OpenCL on a CPU device, on the same cores: an
# N^3 heterogeneous, power-law absorbing, nonlinear p0 case (scripts/kwave_example_input.py) through
# `kspaceFirstOrder-OMP -t T` and `portacl kwave --device pocl -t T`. Prints the time per step of
# each, and the relative L2 error of our outputs against k-Wave's; everything goes to stdout.
#
# usage (from the repository root):
#   PACK=leadpack tools/kwave/cpu_compare.sh /path/to/kspaceFirstOrder-OMP [N] [NT] [T]
# N = grid size (128), NT = time steps (40; k-Wave prints its times with 10 ms resolution),
# T = threads (all cores). Without PACK, OPENCL names our command (default build/portacl).
# FFT=vkfft (or clfft, fftw) passes --fft to ours; by default the device profile chooses (FFTW on PoCL).
# DEVICE=intel runs ours on Intel's CPU runtime (profile platforms/intel-cpu.profile) instead of PoCL
# (-t then limits nothing: Intel's runtime takes every core).
# VARIANTS='NAME:SECTION.KEY=VALUE,SECTION.KEY=VALUE NAME2:...' adds a run of ours per variant to
# every round, with the device's profile plus those keys (appended, so they override; the copy goes
# first on PORTACL_PLATFORMS_DIR), e.g. VARIANTS='batched:fft.fftw_batch_loop=0 tasks:fft.fftw_host_tasks=1';
# a key env.NAME=VALUE sets an environment variable for that variant's runs instead (e.g.
# 'pinned:env.POCL_AFFINITY=1').
# PIN=CPUS runs both programs under `taskset -c CPUS` (e.g. PIN=0-15 with T=16 on a larger machine).
# Ours runs 2 steps first (--benchmark 2), which builds PoCL's kernels and fills its caches. Then
# ROUNDS (default 1) rounds of k-Wave OMP and ours, alternated, each under `nice -n NICE` (default 0);
# the table gives each program's median over the rounds and the ratio of the medians, the first
# round's outputs the error. About a minute a round on 16 cores.
# PROFILE=1 adds one run of ours with --profile after the rounds: its busiest rows and the time per
# step beside the sum of the commands' own times per step. FFTW's transforms are rows of their own
# with the profile's [fft] fftw_host_tasks = 1; mapped (the default), their time falls in the rest.
set -u
omp=${1:?usage: PACK=... cpu_compare.sh /path/to/kspaceFirstOrder-OMP [N] [NT] [THREADS]}
n=${2:-128}
nt=${3:-40}
threads=${4:-$(nproc)}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${PACK:-}" ]; then ours=("$PACK/run" portacl kwave); else read -r -a ours <<< "${OPENCL:-$root/build/portacl kwave}"; fi
[ -n "${FFT:-}" ] && ours+=(--fft "$FFT")
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
py=python3
$py -c 'import h5py, numpy' 2>/dev/null || py=/usr/bin/python3
export PORTACL_NO_PROGRESS=1
outputs=(-p --p_rms --p_max --p_final -u)
rounds=${ROUNDS:-1}
niceness=${NICE:-0}
device=${DEVICE:-pocl}
case $device in
    pocl) profile_file=pocl.profile ;;
    intel) profile_file=intel-cpu.profile ;;
    *) echo "DEVICE must be pocl or intel, not '$device'"; exit 1 ;;
esac
# The profiles: PORTACL_PLATFORMS_DIR where set, else this tree's (a packed program on another machine
# would not find the folder it was built beside); a variant's folder goes first.
platforms=${PORTACL_PLATFORMS_DIR:-$root/platforms}
# Ours: the default profile, then one run per variant (its profile folder, made below).
names=(default) folders=("") VARIANTS_OF=("") envs=("")
pin=()
[ -n "${PIN:-}" ] && pin=(taskset -c "$PIN")
for v in ${VARIANTS:-}; do
    name=${v%%:*} d="$work/profile-${v%%:*}"
    [ "$name" != "$v" ] && [ -n "$name" ] || { echo "a variant is NAME:SECTION.KEY=VALUE,..., not '$v'"; exit 1; }
    mkdir -p "$d" && cp "${platforms%%:*}/$profile_file" "$d/"
    IFS=, read -r -a keys <<< "${v#*:}"
    e=""
    for kv in "${keys[@]}"; do
        sk=${kv%%=*}
        [ "$sk" != "$kv" ] && [ "${sk#*.}" != "$sk" ] || { echo "a variant's key is SECTION.KEY=VALUE, not '$kv'"; exit 1; }
        if [ "${sk%%.*}" = env ]; then e="$e ${sk#*.}=${kv#*=}"; continue; fi
        printf '\n[%s]\n%s = %s\n' "${sk%%.*}" "${sk#*.}" "${kv#*=}" >> "$d/$profile_file"
    done
    names+=("$name") folders+=("$d") VARIANTS_OF+=("${v#*:}") envs+=("$e")
done
ours_in() {  # ours_in I ARGS...: ours with variant I's profile folder and environment
    local d=${folders[$1]} e
    read -r -a e <<< "${envs[$1]}"
    shift
    env PORTACL_PLATFORMS_DIR="${d:+$d:}$platforms" "${e[@]}" "${pin[@]}" "$@"
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "failed"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.2f\n", (v[NR/2]+v[NR/2+1])/2}'; }

echo "== cpu_compare: ${n}^3 heterogeneous power-law absorbing nonlinear p0, $nt steps, $threads threads; $(nproc) cores${PIN:+, pinned to CPUs $PIN}; ours on $device (${names[*]})"
grep -m1 'model name' /proc/cpuinfo
t0=$SECONDS
$py "$root/scripts/kwave_example_input.py" "$work/in.h5" "$n" --nt "$nt" || { echo "input file not written"; exit 1; }

step_of_kwave() {  # ms per step from the output file's simulation phase time
    $py -c "import h5py; f=h5py.File('$1','r'); print('%.2f' % (1e3 * float(f.attrs['simulation_phase_execution_time'].decode().strip().rstrip('s')) / $nt))"
}

for i in "${!names[@]}"; do
    ours_in "$i" "${ours[@]}" -i "$work/in.h5" -o "$work/warm.h5" --device "$device" -t "$threads" --benchmark 2 "${outputs[@]}" > "$work/warm.log" 2>&1
    echo "== warm-up of ours, ${names[$i]} (2 steps, kernel builds, FFTW's plans): $(awk '/Total time/ {print $3}' "$work/warm.log") s"
done
omp_all="" err=-
declare -A ocl_all
for r in $(seq "$rounds"); do
    echo
    echo "== round $r: kspaceFirstOrder-OMP -t $threads (load average $(cut -d' ' -f1 /proc/loadavg))"
    if "${pin[@]}" nice -n "$niceness" "$omp" -t "$threads" -i "$work/in.h5" -o "$work/omp.h5" "${outputs[@]}" > "$work/omp.log" 2>&1; then
        step=$(step_of_kwave "$work/omp.h5")
        omp_all="$omp_all $step"
        grep -E 'Elapsed time|Peak memory|Total execution' "$work/omp.log" | tr -s ' ' | sed 's/^/  /'
        echo "  time per step $step ms"
    else
        echo "  k-Wave OMP failed:"; tail -8 "$work/omp.log"
    fi
    for i in "${!names[@]}"; do
        echo "== round $r: portacl kwave --device $device -t $threads, ${names[$i]} (load average $(cut -d' ' -f1 /proc/loadavg))"
        if ours_in "$i" nice -n "$niceness" "${ours[@]}" -i "$work/in.h5" -o "$work/ocl.h5" --device "$device" -t "$threads" "${outputs[@]}" > "$work/ocl.log" 2>&1; then
            grep -E 'Time per step|Simulation time|Host memory' "$work/ocl.log" | sed 's/^/  /'
            ocl_all[$i]="${ocl_all[$i]:-} $(awk '/Time per step/ {print $4}' "$work/ocl.log")"
            if [ "$r" = 1 ] && [ "$i" = 0 ] && [ -f "$work/omp.h5" ]; then
                $py "$root/tools/kwave/compare_outputs.py" "$work/omp.h5" "$work/ocl.h5" --tol 1e-4 > "$work/cmp.txt"
                grep -E 'PROBLEM' "$work/cmp.txt" | sed 's/^/  /'
                err=$(awk '/^worst/ {print $3 " (" $4 ")"}' "$work/cmp.txt")
            fi
        else
            echo "  failed:"; tail -8 "$work/ocl.log"
        fi
    done
done
if [ -n "${PROFILE:-}" ]; then
    for i in "${!names[@]}"; do
        echo
        echo "== profile: portacl kwave --device $device -t $threads --profile, ${names[$i]}"
        if ours_in "$i" "${ours[@]}" -i "$work/in.h5" -o "$work/prof.h5" --device "$device" -t "$threads" --profile "${outputs[@]}" > "$work/prof.log" 2>&1; then
            sed -n '/^Profile:/,$p' "$work/prof.log" | head -16
            # Commands of the time loop: those run once per step or more (nt + 1 with the warm-up
            # step); mapped FFTW transforms are rows of kind host.
            awk -v nt="$nt" '/Time per step/ {wall = $4}
                /^Profile:/ {p = 1; next}
                p && $(NF-3) + 0 >= nt {busy += $(NF-2)}
                END {printf "time per step %.2f ms; the commands and transforms of a step %.2f ms; the rest (hand-overs between them) %.2f ms\n", wall, busy / (nt + 1), wall - busy / (nt + 1)}' "$work/prof.log"
        else
            echo "  failed:"; tail -8 "$work/prof.log"
        fi
    done
fi
omp_step=$(echo "$omp_all" | median)

echo
echo "| ${n}^3, $nt steps, $threads threads, median of $rounds (nice $niceness) | ms per step | ratio to k-Wave OMP | worst relative L2 vs k-Wave OMP |"
echo "| --- | --- | --- | --- |"
echo "| kspaceFirstOrder-OMP | $omp_step | 1 | - |"
for i in "${!names[@]}"; do
    step=$(echo "${ocl_all[$i]:-}" | median)
    ratio=-
    [ "$omp_step" != failed ] && [ "$step" != failed ] && ratio=$(awk -v a="$step" -v b="$omp_step" 'BEGIN {printf "%.2f", a / b}')
    what="kspaceFirstOrder-OpenCL on $device (single, FFT ${FFT:-from the profile})"
    [ "$i" != 0 ] && what="$what, ${names[$i]}: ${VARIANTS_OF[$i]:-}"
    echo "| $what | $step | $ratio | $([ "$i" = 0 ] && echo "$err" || echo -) |"
done
echo "total $((SECONDS - t0)) s"
[ -z "${WORK:-}" ] && rm -rf "$work"
exit 0

#!/bin/bash
# k-Wave's kspaceFirstOrder-OMP against kspaceFirstOrder-OpenCL on PoCL, on the same CPU cores: an
# N^3 heterogeneous, power-law absorbing, nonlinear p0 case (scripts/kwave_example_input.py) through
# `kspaceFirstOrder-OMP -t T` and `portacl kwave --device pocl -t T`. Prints the time per step of
# each, and the relative L2 error of our outputs against k-Wave's; everything goes to stdout.
#
# usage (from the repository root):
#   PACK=leadpack tools/kwave/cpu_compare.sh /path/to/kspaceFirstOrder-OMP [N] [NT] [T]
# N = grid size (128), NT = time steps (40; k-Wave prints its times with 10 ms resolution),
# T = threads (all cores). Without PACK, OPENCL names our command (default build/portacl).
# FFT=vkfft (or clfft, fftw) passes --fft to ours; by default the device profile chooses (FFTW on PoCL).
# Ours runs twice: 2 steps first (--benchmark 2), which builds PoCL's kernels and fills its caches,
# then the timed run. About a minute on 16 cores.
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

echo "== cpu_compare: ${n}^3 heterogeneous power-law absorbing nonlinear p0, $nt steps, $threads threads; $(nproc) cores"
grep -m1 'model name' /proc/cpuinfo
t0=$SECONDS
$py "$root/scripts/kwave_example_input.py" "$work/in.h5" "$n" --nt "$nt" || { echo "input file not written"; exit 1; }

step_of_kwave() {  # ms per step from the output file's simulation phase time
    $py -c "import h5py; f=h5py.File('$1','r'); print('%.2f' % (1e3 * float(f.attrs['simulation_phase_execution_time'].decode().strip().rstrip('s')) / $nt))"
}

echo
echo "== kspaceFirstOrder-OMP -t $threads"
omp_step=failed
if "$omp" -t "$threads" -i "$work/in.h5" -o "$work/omp.h5" "${outputs[@]}" > "$work/omp.log" 2>&1; then
    omp_step=$(step_of_kwave "$work/omp.h5")
    grep -E 'Elapsed time|Peak memory|Total execution' "$work/omp.log" | tr -s ' ' | sed 's/^/  /'
    echo "  time per step $omp_step ms"
else
    echo "  k-Wave OMP failed:"; tail -8 "$work/omp.log"
fi

echo
echo "== portacl kwave --device pocl -t $threads"
ocl_step=failed err=-
"${ours[@]}" -i "$work/in.h5" -o "$work/warm.h5" --device pocl -t "$threads" --benchmark 2 "${outputs[@]}" > "$work/warm.log" 2>&1
echo "  warm-up (2 steps, kernel builds): $(awk '/Total time/ {print $3}' "$work/warm.log") s"
if "${ours[@]}" -i "$work/in.h5" -o "$work/ocl.h5" --device pocl -t "$threads" "${outputs[@]}" > "$work/ocl.log" 2>&1; then
    grep -E 'Time per step|Simulation time|Host memory' "$work/ocl.log" | sed 's/^/  /'
    ocl_step=$(awk '/Time per step/ {print $4}' "$work/ocl.log")
    if [ -f "$work/omp.h5" ]; then
        $py "$root/tools/kwave/compare_outputs.py" "$work/omp.h5" "$work/ocl.h5" --tol 1e-4 > "$work/cmp.txt"
        grep -E 'PROBLEM' "$work/cmp.txt" | sed 's/^/  /'
        err=$(awk '/^worst/ {print $3 " (" $4 ")"}' "$work/cmp.txt")
    fi
else
    echo "  failed:"; tail -8 "$work/ocl.log"
fi

echo
echo "| ${n}^3, $nt steps, $threads threads | ms per step | worst relative L2 vs k-Wave OMP |"
echo "| --- | --- | --- |"
echo "| kspaceFirstOrder-OMP | $omp_step | - |"
echo "| kspaceFirstOrder-OpenCL on PoCL (single, FFT ${FFT:-from the profile}) | $ocl_step | $err |"
[ "$omp_step" != failed ] && [ "$ocl_step" != failed ] && echo "ratio (ours / k-Wave OMP): $(awk -v a="$ocl_step" -v b="$omp_step" 'BEGIN {printf "%.2f", a / b}')"
echo "total $((SECONDS - t0)) s"
[ -z "${WORK:-}" ] && rm -rf "$work"
exit 0

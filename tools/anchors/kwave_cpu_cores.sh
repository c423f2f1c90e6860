#!/usr/bin/env bash
# Issue 33's k-Wave comparison on the GPU machine's CPU cores: kspaceFirstOrder-OMP against
# `portacl kwave` on PoCL, same cores, same run (tools/kwave/cpu_compare.sh), at 128^3 (40 steps, 3
# alternated rounds, with a --profile run of each configuration) and 256^3 (20 steps, 1 round).
# Beside the default profile, the FFTW hand-overs and batches of before and the host-task variant,
# each the same build with profile keys appended:
#   before  [fft] fftw_map_shared = 1, fftw_batch_loop = 0: two maps and two unmaps a transform,
#           FFTW's batch plans (the profile of commit e79eac2)
#   batched [fft] fftw_batch_loop = 0: the wait for the queue, FFTW's batch plans
#   tasks   [fft] fftw_host_tasks = 1: every transform a host task in the queue
# Results in $OUT (kwave_cpu_128.txt, kwave_cpu_256.txt, kwave_cpu_machine.txt: lscpu, NUMA nodes,
# devices); about 3 minutes on 16 cores.
#
#   cmake --build build -j2 --target portacl_cli
#   ../shared/device/pack build/portacl
#   cp /path/to/kspaceFirstOrder-OMP .device/bin/   # k-Wave's, static, built as docs/kwave.md says (the
#                                                    # pack script stops at a static program: ldd fails)
#   then on the GPU machine (carry [".device"]), from the repository root:
#   tools/anchors/kwave_cpu_cores.sh
set -u
cd "$(dirname "$0")/../.."
export PACK=${PACK:-.device}
export PORTACL_PLATFORMS_DIR=$PWD/platforms  # the packed program does not know where this tree is
: "${OUT:?set OUT to the folder for the results}"
omp=$PACK/bin/kspaceFirstOrder-OMP
[ -x "$omp" ] || { echo "no $omp: pack k-Wave's kspaceFirstOrder-OMP with the engine"; exit 1; }
# The cores, their caches and NUMA nodes, and the OpenCL devices, beside the figures.
{ lscpu; numactl --hardware 2>/dev/null; "$PACK/run" portacl devices; } > "$OUT/kwave_cpu_machine.txt" 2>&1
variants='before:fft.fftw_map_shared=1,fft.fftw_batch_loop=0 batched:fft.fftw_batch_loop=0 tasks:fft.fftw_host_tasks=1'
ROUNDS=3 PROFILE=1 VARIANTS=$variants timeout 170 tools/kwave/cpu_compare.sh "$omp" 128 40 > "$OUT/kwave_cpu_128.txt" 2>&1
echo "128^3: exit $? after $SECONDS s"
ROUNDS=1 VARIANTS='before:fft.fftw_map_shared=1,fft.fftw_batch_loop=0' timeout 120 tools/kwave/cpu_compare.sh "$omp" 256 20 > "$OUT/kwave_cpu_256.txt" 2>&1
echo "256^3: exit $? after $SECONDS s"
tail -8 "$OUT/kwave_cpu_128.txt" "$OUT/kwave_cpu_256.txt"

#!/usr/bin/env bash
# Issue 33's workload rows on 16 cores of the GPU machine (taskset -c 0-15, PoCL told 16 compute
# units), each beside its peer in the same run: GEMM beside OpenBLAS (linked into the bench), the
# Voronoi diagram beside Voronota's calculate-vertices on one core (voronota on the PATH: packed as
# .device/bin/voronota), the lineal path and the reconstruction beside the serial reference (one core).
# Results in $OUT/cpu16_workloads.{txt,csv}; a few minutes.
#   ../shared/device/pack build/portacl && cp "$(command -v voronota)" .device/bin/   (here)
#   tools/anchors/cpu16_workloads.sh                                                   (there)
set -u
cd "$(dirname "$0")/../.."
PACK=${PACK:-.device}
: "${OUT:?set OUT to the folder for the results}"
# PoCL's thread count: POCL_MAX_PTHREAD_COUNT (every version), POCL_CPU_MAX_CU_COUNT (4.0 on).
export PORTACL_PLATFORMS_DIR=$PWD/platforms PORTACL_NO_PROGRESS=1 POCL_MAX_PTHREAD_COUNT=16 POCL_CPU_MAX_CU_COUNT=16 PATH=$PWD/$PACK/bin:$PATH
command -v voronota > /dev/null || echo "cpu16_workloads: no voronota on the PATH; the Voronoi rows will have no peer"
timeout "${LIMIT:-300}" taskset -c 0-15 "$PACK/run" portacl bench --device pocl --only gemm,voronoi,lineal_path,lineal_path_reconstruct \
    --repeats 3 --csv "$OUT/cpu16_workloads.csv" > "$OUT/cpu16_workloads.txt" 2>&1
echo "cpu16_workloads: exit $? after $SECONDS s"
grep -E "gemm|voronoi|lineal" "$OUT/cpu16_workloads.txt"

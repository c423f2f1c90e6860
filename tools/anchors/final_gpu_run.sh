#!/usr/bin/env bash
# The session's measurement runs on the GPU machine, three parts of under 10 minutes each, results
# under $OUT. Run from the repository root with the programs packed in $PACK (../shared/device/pack; PDB files
# in $PACK/data/pdb, the vendor profiles in $PACK/platforms, k-Wave's own solvers, where built, as
# $PACK/bin/kspaceFirstOrder-CUDA and -OMP):
#   gpu: the devices; cuBLAS, cuFFT and OpenCV anchors; the engine's table (vector sum, GEMM, FFT,
#        predicates) on the NVIDIA GPU and the PoCL CPU device in one `portacl bench --device all`;
#        every other workload on the GPU; the filter goals of issue 3 checked (filter_goals.txt).
#   pocl:    every other workload on PoCL, and the filter thesis tables there.
#   compare: k-Wave CUDA against ours on the GPU, k-Wave OMP against ours on PoCL, the filter thesis
#            tables on the GPU.
# Several parts may be given; they run in order.
set -u
[ $# -gt 0 ] || { echo "usage: final_gpu_run.sh gpu|pocl|compare ..."; exit 2; }
export PACK=${PACK:-leadpack}
export PORTACL_PLATFORMS_DIR=$PWD/$PACK/platforms PORTACL_DATA_DIR=$PWD/$PACK/data PORTACL_NO_PROGRESS=1
bench() { # name timeout-seconds bench-arguments...
    local name=$1 limit=$2; shift 2
    timeout "$limit" "$PACK/run" portacl bench "$@" --json "$OUT/$name.json" --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2>&1
    echo "$name: exit $? after $SECONDS s"
}
for part in "$@"; do
case $part in
gpu)
    "$PACK/run" portacl devices > "$OUT/devices.txt" 2>&1
    timeout 50 python3 tools/anchors/cuda_anchors.py > "$OUT/cuda_anchors.txt" 2>&1
    timeout 75 python3 tools/anchors/opencv_filter_anchors.py > "$OUT/opencv_anchors.txt" 2>&1
    bench engine_all 150 --device all --only vector_sum,gemm,fft,predicates --repeats 5
    bench workloads_nvidia 300 --device nvidia --only filter,lineal_path,lineal_path_reconstruct,voronoi,kwave --repeats 5
    python3 tools/anchors/filter_goals.py "$OUT/workloads_nvidia.csv" "$OUT/opencv_anchors.txt" > "$OUT/filter_goals.txt" 2>&1
    ;;
pocl)
    bench workloads_pocl 250 --device pocl --only filter,lineal_path,lineal_path_reconstruct,voronoi,kwave --repeats 3 --no-serial
    timeout 60 "$PACK/run" portacl filter --bench --device pocl --bench-sizes 128,512,2048 > "$OUT/filter_thesis_pocl.txt" 2>&1
    ;;
compare)
    if [ -x "$PACK/bin/kspaceFirstOrder-CUDA" ]; then
        timeout 150 tools/kwave/gpu_compare.sh "$PACK/bin/kspaceFirstOrder-CUDA" > "$OUT/kwave_cuda.txt" 2>&1
    fi
    if [ -x "$PACK/bin/kspaceFirstOrder-OMP" ]; then
        timeout 70 tools/kwave/cpu_compare.sh "$PACK/bin/kspaceFirstOrder-OMP" > "$OUT/kwave_omp.txt" 2>&1
    fi
    timeout 90 "$PACK/run" portacl filter --bench --device nvidia > "$OUT/filter_thesis_nvidia.txt" 2>&1
    ;;
*) echo "final_gpu_run.sh: unknown part $part"; exit 2 ;;
esac
done
tail -n 4 "$OUT"/*.txt

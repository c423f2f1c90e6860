#!/usr/bin/env bash
# The session's measurement run on the GPU machine: devices, the CUDA and OpenCV anchors, then
# `portacl bench` on the NVIDIA GPU and on the PoCL CPU device, results under $OUT.
# Run with the programs packed in $PACK (../shared/device/pack), PDB data in $PACK/data.
set -u
PACK=${PACK:-leadpack}
export PORTACL_PLATFORMS_DIR=$PWD/platforms PORTACL_DATA_DIR=$PWD/$PACK/data PORTACL_NO_PROGRESS=1
$PACK/run portacl devices > $OUT/devices.txt 2>&1
timeout 60 python3 tools/anchors/cuda_anchors.py > $OUT/cuda_anchors.txt 2>&1
timeout 90 python3 tools/anchors/opencv_filter_anchors.py > $OUT/opencv_anchors.txt 2>&1
timeout 300 $PACK/run portacl bench --device nvidia --repeats 5 --json $OUT/bench_nvidia.json --csv $OUT/bench_nvidia.csv > $OUT/bench_nvidia.txt 2>&1
timeout ${POCL_SECONDS:-200} $PACK/run portacl bench --device pocl --repeats 3 --no-serial --json $OUT/bench_pocl.json --csv $OUT/bench_pocl.csv > $OUT/bench_pocl.txt 2>&1
tail -5 $OUT/*.txt

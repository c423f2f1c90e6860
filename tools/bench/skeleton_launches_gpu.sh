#!/usr/bin/env bash
# Issue 28's thinnings on one GPU: the three methods at 256^3 and 512^3, three alternated runs each
# (device time, and every skeleton against the method's first run), and a --trace of each method at
# 256^3 read by tools/trace_gaps.py (where the device idled, and whether the host or the runtime made
# it wait). Results under $OUT: runs.txt, gaps.txt, trace_<method>.json.
#
# Run from the repository root on the GPU machine with the programs packed in .device/ and the
# binary_blobs volumes (seed 1, blob size 0.1, volume fraction 0.3) as $VOLUMES/b256.npy and b512.npy:
#   VOLUMES=.device/data tools/bench/skeleton_launches_gpu.sh      (about a minute)
set -u
: "${OUT:?set OUT to the folder for the results}"
: "${VOLUMES:?set VOLUMES to the folder of b256.npy and b512.npy}"
PORTACL=${PORTACL:-.device/run portacl}
DEVICE=${DEVICE:-nvidia}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export PORTACL_NO_PROGRESS=1
for n in 256 512; do
    for r in 1 2 3; do
        for method in lee parallel psimple; do
            out=$scratch/s${n}_${method}_$r.npy
            line=$(timeout 60 $PORTACL skeleton "$VOLUMES/b$n.npy" -o "$out" --method $method --device "$DEVICE" 2>&1 |
                   grep -o "([0-9.e-]* s of device time)")
            echo "$method $n run=$r $line"
            [ "$r" = 1 ] || cmp -s "$out" "$scratch/s${n}_${method}_1.npy" || echo "  DIFFERS from the first run"
        done
    done
done > "$OUT/runs.txt" 2>&1
for method in lee parallel psimple; do
    timeout 60 $PORTACL skeleton "$VOLUMES/b256.npy" -o "$scratch/t.npy" --method $method --device "$DEVICE" \
        --trace "$OUT/trace_$method.json" > /dev/null 2>&1
    echo "== $method, 256^3"
    python3 tools/trace_gaps.py "$OUT/trace_$method.json"
done > "$OUT/gaps.txt" 2>&1
cat "$OUT/runs.txt" "$OUT/gaps.txt"

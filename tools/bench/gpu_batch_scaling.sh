#!/usr/bin/env bash
# Issue 29's scaling tables on a machine of four GPUs of one host, each part well under 5 minutes,
# results under $OUT (the table in <part>.md, every run's batch report in <part>.log):
#   voronoi  2JUY's 24 models x 417 (10 008 frames, mixed precision): one, two and four GPUs in one
#            process (two members per GPU, the default) and one rank per GPU, the outputs on tmpfs;
#            one and four GPUs with one member each; then one and four GPUs with the outputs on the
#            disk (its bandwidth, not the engine, capped the earlier runs at about 275 MB/s)
#   filter   1000 random 8-bit 4096^2 PGM images, median:5 + sobel, the same rows on tmpfs (200 images
#            on the disk where /dev/shm lacks the 40 GB two runs take); then 200 PNG images on one
#            and four GPUs (the host's deflate against the devices)
# Run from the repository root with the programs packed in .device/ (../shared/device/pack build/portacl
# build/portacl-compile-worker) and Open MPI in .device/openmpi (tools/device/pack_openmpi.sh):
#   tools/bench/gpu_batch_scaling.sh voronoi     (about 3 minutes)
#   tools/bench/gpu_batch_scaling.sh filter      (about 3 minutes)
# NV names NVIDIA's platform index (default 1: PoCL is platform 0 there); PORTACL the program;
# PORTACL_DATA_DIR the folder holding pdb/nmr_neopetrosiamide_2JUY.pdb (default ../shared/data).
set -u
: "${OUT:?set OUT to the folder for the results}"
PORTACL=${PORTACL:-.device/run portacl}
NV=${NV:-1}
[ -f .device/openmpi/env.sh ] && source .device/openmpi/env.sh
MPIRUN="mpirun --allow-run-as-root --bind-to none"
# tmpfs when it has room for two runs' outputs (the filter's are 2 x 17 GB), else the disk.
scratch_for() {
    local need_gb=$1 free_gb
    free_gb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print int($4 / 1048576)}')
    if [ "${free_gb:-0}" -ge "$need_gb" ]; then echo /dev/shm; else echo "${TMPDIR:-/tmp}"; fi
}
table() { # part timeout-seconds batch_scaling-arguments...
    local part=$1 limit=$2; shift 2
    timeout "$limit" python3 tools/bench/batch_scaling.py --portacl "$PORTACL" --mpirun "$MPIRUN" --runs 2 --verbose "$@" \
        >> "$OUT/$part.md" 2>> "$OUT/$part.log"
    echo "$part: exit $? after $SECONDS s" | tee -a "$OUT/$part.md"
}
# With four GPUs visible, `mpirun -n 2 ... --device auto` gives each rank two of them (GPU g to local
# rank g mod 2): the two-rank rows run with CUDA_VISIBLE_DEVICES=0,1, and their own one-GPU row.
for part in "$@"; do
case $part in
voronoi)
    "$PORTACL" devices > "$OUT/devices.txt" 2>&1
    table voronoi 150 --workload voronoi --repeat 417 --scratch "$(scratch_for 4)" \
        --sets "$NV:0=1;$NV:0,$NV:1=2;gpu=4;$NV:0*1=1;gpu*1=4;4xauto=4"
    CUDA_VISIBLE_DEVICES=0,1 table voronoi 60 --workload voronoi --repeat 417 --scratch "$(scratch_for 4)" --no-warmup \
        --sets "$NV:0=1;2xauto=2"
    table voronoi 90 --workload voronoi --repeat 417 --no-warmup --sets "$NV:0=1;gpu=4"
    ;;
filter)
    # 1000 4096^2 images, 17 GB a run: uncompressed PGM (the devices' work and the copies), then PNG
    # (deflate on the host; 200 images). tmpfs where it has room for two runs, else the disk with 200.
    scratch=$(scratch_for 40)
    images=1000
    [ "$scratch" = /dev/shm ] || images=200
    table filter 200 --workload filter --format pgm --images $images --side 4096 --scratch "$scratch" \
        --sets "$NV:0=1;$NV:0,$NV:1=2;gpu=4;4xauto=4"
    CUDA_VISIBLE_DEVICES=0,1 table filter 100 --workload filter --format pgm --images $images --side 4096 --scratch "$scratch" \
        --no-warmup --sets "$NV:0=1;2xauto=2"
    table filter 100 --workload filter --format png --images 200 --side 4096 --scratch "$scratch" --no-warmup \
        --sets "$NV:0=1;gpu=4"
    ;;
*) echo "gpu_batch_scaling.sh: unknown part $part (voronoi, filter)"; exit 2 ;;
esac
done

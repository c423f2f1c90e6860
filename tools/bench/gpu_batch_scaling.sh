#!/usr/bin/env bash
# Issue 29's scaling tables on a machine of four GPUs of one host, each part well under 5 minutes,
# results under $OUT (the table in <part>.md, every run's batch report in <part>.log):
#   voronoi  2JUY's 24 models x 417 (10 008 frames, mixed precision), the outputs on tmpfs: one, two
#            and four GPUs in one process with the default members (one per core of each GPU's share
#            of the host, each tracing its frames on its own thread, the members of a GPU sharing its
#            OpenCL context) and one rank per GPU; then once each the members per GPU swept on one
#            GPU (8, 16, 32), and the former default (two members per GPU, each splitting its host
#            work over 16 or 8 threads) and 16 members per GPU with a context each
#            (PORTACL_MEMBER_CONTEXTS=separate);
#            then one GPU and two ranks with two GPUs visible; the host's CPU time per frame
#            (voronoi-host.log: 2400 frames on one member of one thread, each phase in CPU time:
#            PORTACL_VORONOI_TIMES=cpu), and those frames' files on one GPU's default members against
#            that one member's, byte for byte; with voronota on the PATH, how the machine's cores hold
#            up under load (host_cores.txt, tools/bench/host_core_scaling.sh)
#   filter   1000 random 8-bit 4096^2 PGM images, median:5 + sobel, the same rows on tmpfs (200 images
#            on the disk where /dev/shm lacks the 40 GB two runs take); then 200 PNG images on one
#            and four GPUs (the host's deflate against the devices)
# Run from the repository root with the programs packed in .device/ (../shared/device/pack build/portacl
# build/portacl-compile-worker) and Open MPI in .device/openmpi (tools/device/pack_openmpi.sh):
#   tools/bench/gpu_batch_scaling.sh voronoi     (about 2 to 3 minutes)
#   tools/bench/gpu_batch_scaling.sh filter      (about 3 minutes)
# On a machine of two GPUs the same parts run one GPU, both GPUs in one process and one rank per GPU,
# and leave out the rows that need four (the count comes from nvidia-smi; GPUS overrides it).
# NV names NVIDIA's platform index (default 1: PoCL is platform 0 there); PORTACL the program;
# PORTACL_DATA_DIR the folder holding pdb/nmr_neopetrosiamide_2JUY.pdb (default ../shared/data).
set -u
: "${OUT:?set OUT to the folder for the results}"
PORTACL=${PORTACL:-.device/run portacl}
NV=${NV:-1}
[ -f .device/openmpi/env.sh ] && source .device/openmpi/env.sh
MPIRUN="mpirun --allow-run-as-root --bind-to none"
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
ALL="$NV:0=1;$NV:0,$NV:1=2;gpu=4;4xauto=4"
[ "$GPUS" -ge 4 ] || ALL="$NV:0=1;$NV:0,$NV:1=2;2xauto=2"
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
    $PORTACL devices > "$OUT/devices.txt" 2>&1
    scratch=$(scratch_for 4)
    table voronoi 120 --workload voronoi --repeat 417 --scratch "$scratch" \
        --sets "$ALL"
    table voronoi 60 --workload voronoi --repeat 417 --scratch "$scratch" --no-warmup --runs 1 \
        --sets "$NV:0*8=1;$NV:0*16=1;$NV:0*32=1"
    if [ "$GPUS" -ge 4 ]; then
    PORTACL_MEMBER_CONTEXTS=separate table voronoi 90 --workload voronoi --repeat 417 --scratch "$scratch" --no-warmup --runs 1 \
        --sets "$NV:0*2=1;gpu*2=4;gpu*16=4"
    CUDA_VISIBLE_DEVICES=0,1 table voronoi 60 --workload voronoi --repeat 417 --scratch "$scratch" --no-warmup \
        --sets "$NV:0=1;2xauto=2"
    fi
    # The host's work per frame on this machine's cores: one member, one host thread, 2400 frames.
    host=$(mktemp -d "$scratch/voronoi-host.XXXXXX")
    python3 -c "import sys; sys.path.insert(0, 'tools/bench'); import batch_scaling as b; b.make_ensemble(sys.argv[1], 100, sys.argv[2])" \
        "${PORTACL_DATA_DIR:-../shared/data}/pdb/nmr_neopetrosiamide_2JUY.pdb" "$host/ensemble.pdb"
    mkdir -p "$host/one" "$host/set"
    PORTACL_LOG=debug PORTACL_VORONOI_TIMES=cpu PORTACL_VORONOI_THREADS=1 timeout 60 $PORTACL voronoi "$host/ensemble.pdb" \
        -o "$host/one/v.txt" --edges "$host/one/e.txt" --device "$NV:0*1" > /dev/null 2>> "$OUT/voronoi-host.log"
    echo "voronoi-host: exit $? after $SECONDS s" | tee -a "$OUT/voronoi.md"
    # The same frames on the default members of one GPU (a member per core, one context): the same bytes.
    timeout 60 $PORTACL voronoi "$host/ensemble.pdb" -o "$host/set/v.txt" --edges "$host/set/e.txt" --device "$NV:0" \
        > /dev/null 2>> "$OUT/voronoi-host.log"
    echo "voronoi-same-bytes: exit $?, $(ls "$host/one" | wc -l) files, $(diff -rq "$host/one" "$host/set" | wc -l) differ" | tee -a "$OUT/voronoi.md"
    rm -rf "$host"
    # The ceiling of a host-bound batch on this machine: one-core jobs run N at once (needs voronota).
    if command -v voronota > /dev/null; then
        timeout 60 tools/bench/host_core_scaling.sh 1 $(( $(nproc) / 4 )) $(( $(nproc) / 2 )) "$(nproc)" > "$OUT/host_cores.txt" 2>&1
        echo "host-cores: exit $? after $SECONDS s" | tee -a "$OUT/voronoi.md"
    fi
    ;;
filter)
    # 1000 4096^2 images, 17 GB a run: uncompressed PGM (the devices' work and the copies), then PNG
    # (deflate on the host; 200 images). tmpfs where it has room for two runs, else the disk with 200.
    scratch=$(scratch_for 40)
    images=1000
    [ "$scratch" = /dev/shm ] || images=200
    table filter 200 --workload filter --format pgm --images $images --side 4096 --scratch "$scratch" \
        --sets "$ALL"
    [ "$GPUS" -lt 4 ] || CUDA_VISIBLE_DEVICES=0,1 table filter 100 --workload filter --format pgm --images $images --side 4096 --scratch "$scratch" \
        --no-warmup --sets "$NV:0=1;2xauto=2"
    table filter 100 --workload filter --format png --images 200 --side 4096 --scratch "$scratch" --no-warmup \
        --sets "$NV:0=1;gpu=$GPUS"
    ;;
*) echo "gpu_batch_scaling.sh: unknown part $part (voronoi, filter)"; exit 2 ;;
esac
done

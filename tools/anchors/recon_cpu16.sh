#!/usr/bin/env bash
# Issue 33's reconstruction case on the GPU machine's 16 CPU cores through PoCL: `portacl bench --only
# lineal_path_reconstruct` (256x256 cell, ML 64; float and double; the serial reference on one core
# beside it), then float alone on 1, 4 and 16 cores (what does not scale), and once on 16 cores with
# the whole-image kernel of before (profile key [lineal_path] anneal_windows = 0; the batch rule of
# now). Results in $OUT: recon_cpu16.txt (and .json), recon_cpu_cores.txt, recon_cpu_machine.txt.
# About a minute.
#
#   cmake --build build -j2 --target portacl_cli
#   ../shared/device/pack build/portacl
#   then on the GPU machine (carry [".device"]), from the repository root:
#   tools/anchors/recon_cpu16.sh
set -u
cd "$(dirname "$0")/../.."
PACK=${PACK:-.device}
export PORTACL_PLATFORMS_DIR=$PWD/platforms  # the packed program does not know where this tree is
: "${OUT:?set OUT to the folder for the results}"
{ lscpu; "$PACK/run" portacl devices; } > "$OUT/recon_cpu_machine.txt" 2>&1
bench() {  # bench CORES ARGS...: the case pinned to cores 0..CORES-1 with as many PoCL threads
    local cores=$1
    shift
    POCL_MAX_PTHREAD_COUNT=$cores timeout 100 taskset -c 0-$((cores - 1)) \
        "$PACK/run" portacl bench --device pocl --only lineal_path_reconstruct "$@"
}
bench 16 --repeats 3 --json "$OUT/recon_cpu16.json" > "$OUT/recon_cpu16.txt" 2>&1
echo "16 cores: exit $? after $SECONDS s"
for cores in 1 4 16; do
    echo "== $cores cores, float"
    bench "$cores" --repeats 1 -p float --no-serial 2>&1 | grep -E "^(device|PoCL)"
done > "$OUT/recon_cpu_cores.txt"
# The whole-image kernel: a copy of the PoCL profile with the key appended, first on the search path.
before=$(mktemp -d)
cp platforms/pocl.profile "$before/" && printf '\n[lineal_path]\nanneal_windows = 0\n' >> "$before/pocl.profile"
{
    echo "== 16 cores, float, anneal_windows = 0 (the whole-image kernel), --profile"
    PORTACL_PLATFORMS_DIR=$before:$PORTACL_PLATFORMS_DIR bench 16 --repeats 1 -p float --no-serial --profile 2>&1 |
        grep -E "anneal|^(device|PoCL)"
    echo "== 16 cores, float, default (windows), --profile"
    bench 16 --repeats 1 -p float --no-serial --profile 2>&1 | grep -E "anneal|^(device|PoCL)"
} >> "$OUT/recon_cpu_cores.txt"
rm -rf "$before"
echo "all: after $SECONDS s"
grep -E "^(device|PoCL)" "$OUT/recon_cpu16.txt"
cat "$OUT/recon_cpu_cores.txt"

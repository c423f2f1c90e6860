#!/usr/bin/env bash
# Whether the reconstruction's candidate windows (on by default on CPU devices only) help the H200:
# `portacl bench --device nvidia --only lineal_path_reconstruct -p float` with the Hopper profile as
# shipped (anneal_delta on the whole image) and with [lineal_path] anneal_windows = 1 appended,
# alternated twice, then one --profile run of each (per-kernel times). Results in $OUT:
# recon_gpu_windows.txt. About a minute.
#
#   cmake --build build -j2 --target portacl_cli
#   ../shared/device/pack build/portacl
#   then on the GPU machine (carry [".device"]), from the repository root:
#   tools/anchors/recon_gpu_windows.sh
set -u
cd "$(dirname "$0")/../.."
PACK=${PACK:-.device}
export PORTACL_PLATFORMS_DIR=$PWD/platforms  # the packed program does not know where this tree is
: "${OUT:?set OUT to the folder for the results}"
windows=$(mktemp -d)
cp platforms/nvidia-hopper.profile "$windows/" && printf '\n[lineal_path]\nanneal_windows = 1\n' >> "$windows/nvidia-hopper.profile"
run() {  # run whole|windows ARGS...
    local dirs=$PORTACL_PLATFORMS_DIR
    [ "$1" = windows ] && dirs=$windows:$dirs
    shift
    PORTACL_PLATFORMS_DIR=$dirs timeout 100 "$PACK/run" portacl bench --device nvidia --only lineal_path_reconstruct \
        -p float --no-serial "$@" 2>&1 | grep -E "anneal|lineal_path_reconstruct  |^device  "
}
{
    for round in 1 2; do
        for v in whole windows; do
            echo "== round $round, $v"
            run "$v" --repeats 3
        done
    done
    for v in whole windows; do
        echo "== --profile, $v"
        run "$v" --repeats 1 --profile
    done
} > "$OUT/recon_gpu_windows.txt"
rm -rf "$windows"
echo "after $SECONDS s"
cat "$OUT/recon_gpu_windows.txt"

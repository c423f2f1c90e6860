#!/usr/bin/env bash
# How a machine's cores hold up under load: N copies of one single-threaded job (Voronota's
# calculate-vertices on 2BEG's balls, four runs each) started at once, for N = 1, 16, 32, 64 (or
# the counts given). A host-bound batch cannot scale past what this gives (docs/multi_device.md,
# "On four H200s"). Needs voronota on the PATH; PORTACL_DATA_DIR names the data (../shared/data).
#   tools/bench/host_core_scaling.sh [N ...]
set -eu
command -v voronota > /dev/null || { echo "host_core_scaling: no voronota on the PATH" >&2; exit 2; }
data=${PORTACL_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/data}
balls=$(mktemp)
trap 'rm -f "$balls"' EXIT
voronota get-balls-from-atoms-file < "$data/pdb/2BEG.pdb" > "$balls"
[ $# -gt 0 ] || set -- 1 16 32 64
for n in "$@"; do
    start=$EPOCHREALTIME
    for _ in $(seq "$n"); do
        (for _ in 1 2 3 4; do voronota calculate-vertices < "$balls" > /dev/null; done) &
    done
    wait
    python3 -c "import sys; print(f'{sys.argv[1]:>3} copies at once: {float(sys.argv[3]) - float(sys.argv[2]):.2f} s')" "$n" "$start" "$EPOCHREALTIME"
done

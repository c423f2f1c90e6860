#!/usr/bin/env bash
# The whole drainage pipeline in forced tiles beside the same run in one piece, on the bench's rough
# bowl (z = r (1 + 0.15 sin 12θ) plus up to 4 m of noise, 10 m cells, Float32): D8 (fill, flats,
# directions, accumulation, streams, Strahler order, watersheds) and D∞ (fill, angles, accumulation),
# every output file compared byte for byte (exit status 1 when any differs). Each run's --profile
# goes beside its outputs; the wall times are printed.
#
#   bash tools/anchors/drainage_tiles_check.sh [N] [TILE] [DEVICE] [WORK]
#     N       the bowl's side in cells (default 8192)
#     TILE    --tile of the tiled runs (default N/4 x N/4: 16 tiles)
#     DEVICE  --device (default auto)
#     WORK    where the DEM and the outputs go (default a new folder under /tmp)
#   PORTACL: the command that runs portacl (default build/portacl; "leadpack/run portacl" for a pack).
# Needs Python with NumPy (PYTHON, default /usr/bin/python3; the DEM is written as an ESRI .bil
# with its .hdr).
set -u
n=${1:-8192}
tile=${2:-$((n / 4))x$((n / 4))}
device=${3:-auto}
work=${4:-$(mktemp -d /tmp/drainage-tiles-XXXXXX)}
portacl=${PORTACL:-build/portacl}
mkdir -p "$work"
${PYTHON:-/usr/bin/python3} - "$n" "$work/bowl.bil" <<'EOF' || exit 2
import sys
import numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
z = np.empty((n, n), np.float32)
rng = np.random.default_rng(1)
for r0 in range(0, n, 1024):  # in bands: a few hundred MB at most
    r, c = np.mgrid[r0:min(n, r0 + 1024), 0:n].astype(np.float64)
    z[r0:r0 + r.shape[0]] = (np.hypot(r, c) * (1 + 0.15 * np.sin(12 * np.arctan2(r, c)))).astype(np.float32)
z += rng.uniform(0, 4, z.shape).astype(np.float32)
z.astype("<f4").tofile(path)
with open(path[:-4] + ".hdr", "w") as f:
    f.write(f"NROWS {n}\nNCOLS {n}\nNBANDS 1\nNBITS 32\nPIXELTYPE FLOAT\nBYTEORDER I\n"
            f"ULXMAP 5\nULYMAP {10 * n - 5}\nXDIM 10\nYDIM 10\n")
EOF
d8=(filled directions accumulation streams order watersheds)
dinf=(filled directions accumulation)
status=0
run() { # tag method-arguments output-names...
    local tag=$1 method=$2; shift 2
    local args=()
    for o in "$@"; do args+=("--$o" "$work/${o}_$tag.tif"); done
    [ "${tag#*tiled}" != "$tag" ] && args+=(--tile "$tile")
    local start=$SECONDS
    # shellcheck disable=SC2086
    $portacl drainage "$work/bowl.bil" $method "${args[@]}" --precision float --device "$device" --profile \
        > "$work/$tag.txt" 2>&1 || { echo "$tag: portacl failed ($work/$tag.txt)"; tail -3 "$work/$tag.txt"; status=1; }
    echo "$tag: $((SECONDS - start)) s wall"
}
compare() { # tag-a tag-b output-names...
    local a=$1 b=$2; shift 2
    for o in "$@"; do
        if cmp -s "$work/${o}_$a.tif" "$work/${o}_$b.tif"; then echo "$o: the same in $a and $b"
        else echo "$o: DIFFERS between $a and $b"; status=1; fi
    done
}
run d8_one "--fill --flats --threshold 1000" "${d8[@]}"
run d8_tiled "--fill --flats --threshold 1000" "${d8[@]}"
compare d8_one d8_tiled "${d8[@]}"
run dinf_one "--method dinf --fill" "${dinf[@]}"
run dinf_tiled "--method dinf --fill" "${dinf[@]}"
compare dinf_one dinf_tiled "${dinf[@]}"
echo "outputs and profiles in $work"
exit $status

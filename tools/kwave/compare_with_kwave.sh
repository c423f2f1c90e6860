#!/bin/bash
# Runs every case of tools/kwave/kwave_cases.py through k-Wave's own kspaceFirstOrder-OMP (or -CUDA)
# and through kspaceFirstOrder-OpenCL, and compares every output dataset (relative L2 within --tol).
#
# usage: tools/kwave/compare_with_kwave.sh --kwave /path/to/kspaceFirstOrder-OMP \
#            --opencl "/path/to/kspaceFirstOrder-OpenCL" [--device pocl] [--precision single]
#            [--work DIR] [--tol 1e-4] [--only REGEX] [--threads N]
# --opencl is a command (it may have words, e.g. "$PACK/run portacl kwave"). Prints one line per case
# and a table at the end; exit status 1 when any case differs or fails to run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
kwave="" opencl="" device="" precision="single" work="" tol="1e-4" only="." threads=""
while [ $# -gt 0 ]; do
    case "$1" in
        --kwave|--omp) kwave=$2; shift 2 ;;
        --opencl) opencl=$2; shift 2 ;;
        --device) device=$2; shift 2 ;;
        --precision) precision=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --tol) tol=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        *) echo "compare_with_kwave.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
if [ -z "$kwave" ] || [ -z "$opencl" ]; then
    echo "compare_with_kwave.sh: --kwave (k-Wave's binary) and --opencl (our command) are required" >&2
    exit 2
fi
[ -x "$kwave" ] || { echo "compare_with_kwave.sh: $kwave is not an executable" >&2; exit 2; }
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work"
kwave_threads=()
[ -n "$threads" ] && kwave_threads=(-t "$threads")
device_args=()
[ -n "$device" ] && device_args=(--device "$device")

failed=0
table=()
while IFS=$'\t' read -r name flags what; do
    [[ "$name" =~ $only ]] || continue
    in="$work/$name.in.h5" ref="$work/$name.kwave.h5" out="$work/$name.opencl.h5"
    rm -f "$ref" "$out"
    if ! $py "$here/kwave_cases.py" "$name" "$in"; then
        table+=("$name|input not written|FAIL"); failed=1; continue
    fi
    # shellcheck disable=SC2086  # the flags are words
    if ! "$kwave" -i "$in" -o "$ref" "${kwave_threads[@]}" $flags > "$work/$name.kwave.log" 2>&1; then
        echo "$name: k-Wave failed:"; tail -5 "$work/$name.kwave.log"
        table+=("$name|k-Wave failed|FAIL"); failed=1; continue
    fi
    # shellcheck disable=SC2086
    if ! $opencl -i "$in" -o "$out" "${device_args[@]}" --precision "$precision" $flags > "$work/$name.opencl.log" 2>&1; then
        echo "$name: kspaceFirstOrder-OpenCL failed:"; tail -5 "$work/$name.opencl.log"
        table+=("$name|OpenCL failed|FAIL"); failed=1; continue
    fi
    echo "== $name: $what"
    if $py "$here/compare_outputs.py" "$ref" "$out" --tol "$tol" --label "$name" > "$work/$name.compare.txt"; then
        status=ok
    else
        status=FAIL; failed=1
        cat "$work/$name.compare.txt"
    fi
    # The largest error and its dataset.
    worst=$(awk '/^worst/ {print $3}' "$work/$name.compare.txt")
    which=$(awk '/^worst/ {print $4}' "$work/$name.compare.txt")
    echo "   worst relative L2 $worst ($which): $status"
    table+=("$name|$worst ($which)|$status")
done < <($py "$here/kwave_cases.py" --list)

echo
echo "| case | worst relative L2 (dataset) | within $tol |"
echo "| --- | --- | --- |"
for row in "${table[@]}"; do
    IFS='|' read -r a b c <<< "$row"
    echo "| $a | $b | $c |"
done
exit $failed

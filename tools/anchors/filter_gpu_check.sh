#!/usr/bin/env bash
# The GPU tile kernels of 8-bit planes (separable_tile, rotating_tile: host/filter/gpu_tiles.cpp) on
# the NVIDIA GPU, in one command of about 2 minutes: their tests against the serial reference, then
# `portacl filter --bench` at 4096^2 of the separable 9x9 masks, the rotating masks and box 9 under
# profile variants side by side, in two rounds:
#   before       separable_tile = 0, rotating_tile = 0 (the register path and the tile kernels)
#   tiles        the profile as committed (fixed-point rank-1 masks and the rotating mask on the tiles)
#   double       separable_tile_double = 1 (the fixed-point column sums in double)
#   all          separable_tile_all = 1 (box 9, binomial 9 and the integer rank-1 mask on the tiles too)
#   sep32x4x8, sep32x8x8, sep16x8x4   the separable tile's work-group x rows a work-item
#   rot16x8, walk8, walk16            the rotating tile's work-group (16 x 8), its walks of 8 and 16
#                                     rows (the default: 11 for 256 work-items, 32 for 128)
# Each bench table gives the copy bandwidth it measured and the same-size copy's row. Run from the
# repository root on the GPU machine with the programs packed in $PACK (default .device):
#   ../shared/device/pack build/portacl build/tests/test_filter_gpu_tiles build/tests/test_filter
#   .device/run bash tools/anchors/filter_gpu_check.sh        # results under $OUT (default ./out)
# (DEVICE, default nvidia, SIZE, default 4096, and PROFILES, the profiles the variants change, default
# "nvidia nvidia-hopper", try it elsewhere: DEVICE=pocl SIZE=512 PROFILES=pocl PACK=...)
# Writes $OUT/filter_gpu_tests.txt (the tests), $OUT/filter_gpu_bench.txt (every table, each line
# prefixed by its variant and round) and $OUT/filter_gpu_summary.txt (µs alone and % of the copy
# bandwidth, one line per operation and variant). Exit status 1 when a test fails.
set -uo pipefail
PACK=${PACK:-.device}
OUT=${OUT:-out}
DEVICE=${DEVICE:-nvidia}
SIZE=${SIZE:-4096}
mkdir -p "$OUT"
export PORTACL_NO_PROGRESS=1
status=0

# The tests, on the GPU: the tile kernels forced (every border, odd sizes, layouts), and the filter
# suite's device tests through the NVIDIA profile (which now sends the Gaussians and rotating masks
# up to 9x9 to the tiles). A test binary that fails or does not finish in 50 s fails the check.
run_test() { # program [arguments]
  echo "== $*"
  PORTACL_TEST_DEVICE=$DEVICE timeout 50 "$PACK/run" "$@" > "$OUT/.test.txt" 2>&1
  local rc=$?
  grep -E '^\[ *(OK|FAILED|PASSED|SKIPPED) |Failure|differing|does not take' "$OUT/.test.txt"
  echo "exit status $rc"
  rm -f "$OUT/.test.txt"
  [ $rc = 0 ] || status=1
}
{
  run_test test_filter_gpu_tiles
  run_test test_filter --gtest_filter='FilterDevice.*'
} > "$OUT/filter_gpu_tests.txt"
echo "tests: $(grep -c '^\[ *OK' "$OUT/filter_gpu_tests.txt") passed; exit statuses $(grep '^exit status' "$OUT/filter_gpu_tests.txt" | awk '{printf "%s ", $3}')"
grep -E 'FAILED' "$OUT/filter_gpu_tests.txt" | head -5

# A 9x9 rank-1 user mask with integer weights (divisor 625, its sums in int) and one with decimal
# weights (fixed point, as the Gaussian).
outer() { # the outer product of a weight list with itself as a conv mask's rows
  local -a w=($1); local rows=() r c row
  for r in "${w[@]}"; do
    row=()
    for c in "${w[@]}"; do row+=("$(awk -v a="$r" -v b="$c" 'BEGIN { printf "%.6g", a * b }')"); done
    rows+=("$(IFS=,; echo "${row[*]}")")
  done
  (IFS=';'; echo "${rows[*]}")
}
rank1_int="conv:$(outer "1 2 3 4 5 4 3 2 1"):sum"
rank1_dec="conv:$(outer "0.02 0.05 0.1 0.15 0.36 0.15 0.1 0.05 0.02")"
ops=(--op gaussian:9:2.0 --op "$rank1_dec" --op "$rank1_int" --op binomial:9 --op box:9 --op rotating:3 --op rotating:5 --op rotating:7)

# Round 1 runs every variant, round 2 the first four again (per-launch differences under about 10 %
# need rounds to show).
variants=(
  "before=separable_tile = 0;rotating_tile = 0"
  "tiles="
  "double=separable_tile_double = 1"
  "all=separable_tile_all = 1"
  "sep32x4x8=separable_tile_group_y = 4;separable_tile_rows = 8"
  "sep32x8x8=separable_tile_rows = 8"
  "sep16x8x4=separable_tile_group_x = 16"
  "rot16x8=rotating_tile_group_y = 8"
  "walk8=rotating_tile_walk = 8"
  "walk16=rotating_tile_walk = 16"
)
: > "$OUT/filter_gpu_bench.txt"
for round in 1 2; do
  for v in "${variants[@]}"; do
    [ "$round" = 2 ] && [ "$v" = "${variants[4]}" ] && break
    name=${v%%=*} lines=${v#*=}
    dir=$(mktemp -d)
    for p in ${PROFILES:-nvidia nvidia-hopper}; do
      cp "platforms/$p.profile" "$dir/$p.profile"
      printf '\n[filter]\n%s\n' "$(tr ';' '\n' <<< "$lines")" >> "$dir/$p.profile"
    done
    PORTACL_PLATFORMS_DIR="$dir:$PWD/platforms" timeout 30 "$PACK/run" portacl filter --bench --device "$DEVICE" --bench-sizes "$SIZE" "${ops[@]}" 2>&1 |
      sed "s/^/$name r$round | /" >> "$OUT/filter_gpu_bench.txt"
    rm -rf "$dir"
  done
done

# One line per operation and variant: µs alone in each round (% of the copy bandwidth). The bench
# cuts names at 27 characters: the two user masks are named here.
awk '
  / copy bandwidth measured now: / { match($0, /measured now: [0-9.]+ GB\/s/); print $1 " " $2 ": copy " substr($0, RSTART + 14, RLENGTH - 14) }
  {
    variant = $1; rest = $0; sub(/^[^|]*\| /, "", rest)
    n = split(rest, t, " ")
    for (i = 2; i <= n; ++i) if (t[i] ~ /^[0-9]+\^2$/) break
    if (i > n || t[1] == "operation") next
    name = t[1]; for (k = 2; k < i; ++k) name = name " " t[k]
    if (name ~ /^conv:0\.0004/) name = "rank-1 9x9 decimal conv"
    if (name ~ /^conv:1,2,3/) name = "rank-1 9x9 integer conv"
    key = sprintf("%-28s %-10s", name, variant)
    if (!(key in seen)) { seen[key] = 1; order[++count] = key }
    times[key] = times[key] sprintf("  %9s us (%s %%)", t[i + 1], t[i + 2])
  }
  END { for (i = 1; i <= count; ++i) print order[i] times[order[i]] }' "$OUT/filter_gpu_bench.txt" > "$OUT/filter_gpu_summary.txt"
cat "$OUT/filter_gpu_summary.txt"
exit $status

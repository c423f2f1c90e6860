#!/usr/bin/env bash
# Sweeps the tuning keys a CPU device's profile sets, on that device, back to back in one run (the
# machine may be shared: compare values within one run only). Each variant is a generated profile
# folder: the device's profile with one section appended (later keys override), put first on
# PORTACL_PLATFORMS_DIR. Prints one line per variant and case: the section's keys and the device time.
#
#   tools/anchors/cpu_profile_sweep.sh intel platforms/intel-cpu.profile [vector gemm tiled filter median voronoi]
#   RUSTICL_ENABLE=llvmpipe tools/anchors/cpu_profile_sweep.sh rusticl platforms/mesa-llvmpipe.profile
#
# vector: `portacl bench --only vector_sum` (2^24 floats); gemm and tiled: `portacl bench --only gemm`
# (1024^3, the register-blocked and the tiled kernel); filter: `portacl filter --bench` at 2048^2 8-bit
# (box 3, Sobel, median 3 and 5, box 9); voronoi: `portacl voronoi` on 2XHE (6267 balls), the median of
# 3 wall times, in mixed precision. ROUNDS (default 2) repeats every variant, round after round;
# GEMM_VARIANTS, TILED_VARIANTS, FILTER_VARIANTS, MEDIAN_VARIANTS, VORONOI_VARIANTS replace the
# default lists; BENCH_REPEATS (default 7) sets the bench's timed runs, VORONOI_PDB (default 2XHE)
# the structure of ../shared/data/pdb/.
set -u
cd "$(dirname "$0")/../.."
DEVICE=${1:?device spec}
BASE=${2:?profile file}
shift 2
FAMILIES=${*:-vector gemm tiled filter median voronoi}
CLI=${PORTACL_CLI:-build/portacl}
DATA=${PORTACL_DATA_DIR:-../shared/data}
export PORTACL_NO_PROGRESS=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# profile SECTION "k=v k=v": a folder with BASE plus [SECTION] and those keys; prints the folder.
profile() {
  local d
  d=$(mktemp -d -p "$scratch")
  cp "$BASE" "$d/$(basename "$BASE")"
  { printf '\n[%s]\n' "$1"; for kv in $2; do printf '%s = %s\n' "${kv%%=*}" "${kv#*=}"; done; } >>"$d/$(basename "$BASE")"
  echo "$d"
}

# run LABEL SECTION "k=v ..." COMMAND...: the command with that profile; its table rows with the label.
run() {
  local label=$1 section=$2 keys=$3 d
  shift 3
  d=$(profile "$section" "$keys")
  PORTACL_PLATFORMS_DIR="$d:$PWD/platforms" "$@" 2>&1 | awk -v l="$label [$section] $keys" '
    /(^| )(gemm\/|vector_sum)/ { for (i = 1; i <= NF; ++i) if ($i ~ /^(gemm|vector_sum)/) { printf "%-60s %-24s %-7s %10s ms\n", l, $i, $(i + 2), $(i + 3) }; next }
    /^(box|sobel|median|gaussian)/ && /\^2/ { printf "%-60s %-24s %10.1f us\n", l, $1, $3; next }
    /^runs_seconds/ { n = split($0, t, " "); m = t[2]; if (n >= 4) { a = t[2]; b = t[3]; c = t[4]; m = (a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b))) }; printf "%-60s %-24s %10.3f s\n", l, "voronoi", m; next }
    /error|cannot|refused|not one/ { print l ": " $0 }'
}

bench() { "$CLI" bench --device "$DEVICE" --no-serial --repeats "${BENCH_REPEATS:-7}" "$@"; }

ROUNDS=${ROUNDS:-2}
fb() { "$CLI" filter --bench --device "$DEVICE" --bench-sizes 2048 --op box:3 --op sobel --op median:3 --op median:5 --op box:9; }
vo() { "$CLI" voronoi "$DATA/pdb/${VORONOI_PDB:-2XHE}.pdb" -o /dev/null --device "$DEVICE" --precision mixed --repeats 3; }
# Every variant of the chosen families once per round, the rounds one after another, so that a change
# in the machine's load shows as a difference between rounds rather than between variants.
for round in $(seq "$ROUNDS"); do
  echo "# round $round"
  for family in $FAMILIES; do
    case $family in
      vector)
        for wg in 64 128 256 1024; do run "vector" vector "work_group=$wg" bench --only vector_sum -p float; done ;;
      gemm)
        for v in ${GEMM_VARIANTS:-"32,32,16,4,4" "32,32,16,8,4" "64,64,16,4,4" "64,64,16,8,8" "128,64,16,8,8" "64,64,32,8,8"}; do
          IFS=, read -r m n k wm wn <<<"$v"
          PORTACL_GEMM_KERNELS=register-blocked run "gemm" gemm "tile_m=$m tile_n=$n tile_k=$k wpt_m=$wm wpt_n=$wn" bench --only gemm -p "${GEMM_PRECISIONS:-float,double}"
        done ;;
      tiled)
        for t in ${TILED_VARIANTS:-8 16 32}; do PORTACL_GEMM_KERNELS=tiled run "tiled" gemm "tile=$t" bench --only gemm -p float; done ;;
      filter)
        run "filter" filter "strip=0" fb
        # strip layouts of the small and separable masks; the medians keep 8 x 2 work-groups
        for v in ${FILTER_VARIANTS:-"8,4,8,2" "8,8,8,2" "16,4,8,2" "8,4,16,2" "8,4,32,1" "8,8,32,1"}; do
          IFS=, read -r w r gx gy <<<"$v"
          run "filter" filter "strip=1 strip_width=$w strip_rows=$r separable_strip_width=$w separable_strip_rows=$r strip_group_x=$gx strip_group_y=$gy median3_group_x=8 median3_group_y=2 median5_group_x=8 median5_group_y=2" fb
        done ;;
      median)
        for v in ${MEDIAN_VARIANTS:-"8,2,8,2" "16,2,8,2" "8,4,8,2" "8,2,16,2" "8,2,32,1"}; do
          IFS=, read -r w r gx gy <<<"$v"
          run "median" filter "median3_strip_width=$w median3_strip_rows=$r median3_group_x=$gx median3_group_y=$gy" fb
        done ;;
      voronoi)
        for v in ${VORONOI_VARIANTS:-"1,1,64" "2,1,64" "4,1,64" "8,1,64" "2,2,64" "2,1,32"}; do
          IFS=, read -r lanes flagged wide <<<"$v"
          run "voronoi" voronoi "lanes=$lanes flagged_lanes=$flagged wide_group=$wide" vo
        done ;;
    esac
  done
done

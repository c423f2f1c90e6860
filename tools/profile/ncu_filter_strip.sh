#!/usr/bin/env bash
# Profiles the filters' register path (cl/filter_strip.cl) with Nsight Compute on an NVIDIA GPU.
# Nsight Compute sees no OpenCL kernel, so: portacl builds the operations (its program cache then
# holds the PTX NVIDIA's OpenCL driver made), cached_ptx.py writes that PTX out, and ptx_launch
# runs it through CUDA at 4096^2 with the layout read from its build options, once for timing and
# once under ncu (speed of light, occupancy, warp states, instruction counts). With $OUT set, the
# SASS of each program (for $ARCH, default sm_90) is written there too. Run from the repo root on the GPU machine, with the
# CUDA toolkit on the path and the packed programs in $PACK (default .device):
#   tools/profile/ncu_filter_strip.sh "[filter] lines, ';'-separated, or empty" --op box:9 --op sobel
set -eu
PACK=${PACK:-.device}
LINES=$1
shift
work=$(mktemp -d)
nvcc -O2 -o "$work/ptx_launch" tools/profile/ptx_launch.cpp -lcuda
mkdir -p "$work/profiles"
cp platforms/nvidia-hopper.profile "$work/profiles/"
printf '\n[filter]\n%s\n' "$(echo "$LINES" | tr ';' '\n')" >> "$work/profiles/nvidia-hopper.profile"
PORTACL_CACHE_DIR="$work/cache" PORTACL_NO_PROGRESS=1 PORTACL_PLATFORMS_DIR="$work/profiles:$PWD/platforms" \
  "$PACK/run" portacl filter --bench --device nvidia --bench-sizes 4096 "$@"
# define NAME OPTIONS: the value of -D NAME=... in a program's build options.
define() { echo "$2" | sed -n "s/.*-D $1=\([0-9]*\).*/\1/p"; }
python3 tools/profile/cached_ptx.py "$work/cache" filter_strip "$work/ptx" | while read -r ptx options; do
  echo "== $ptx: $options"
  layout=(4096 4096 "$(define SW "$options")" "$(define RPI "$options")" "$(define GX "$options")" "$(define GY "$options")")
  "$work/ptx_launch" "$ptx" "${layout[@]}" 50
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --launch-skip 2 --launch-count 1 \
    "$work/ptx_launch" "$ptx" "${layout[@]}" 3 | grep -vE '^==PROF==|^\s*$|^\s*-+\s*$|ms per launch' || true  # (set -e: a profile with no matching line is no error)
  if [ -n "${OUT:-}" ]; then
    ptxas -arch="${ARCH:-sm_90}" -O3 "$ptx" -o "$work/k.cubin" && cuobjdump -sass "$work/k.cubin" > "$OUT/$(basename "$ptx" .ptx).sass"
  fi
done
rm -rf "$work"

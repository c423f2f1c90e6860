#!/usr/bin/env bash
# Sweeps the layouts of the filters' register path (cl/filter_strip.cl) on the NVIDIA GPU.
# Each variant is a generated profile folder: the repo's nvidia-hopper.profile with a [filter] block
# appended (later keys override), put first on PORTACL_PLATFORMS_DIR. Every family has its own
# strip and work-group keys, so one run tries one layout of each family: masks up to 3x3 ("small":
# box 3, Sobel, Laplace 3, a 3x3 conv), rank-1 masks ("sep": box 9), median 3 and median 5.
# "float" is strip_float (the sums of small and sep in float, exact). Each run times the operations
# at 4096^2 8-bit grey on the device and prints one line per operation:
#   variant  layout  operation  us-alone  %-of-copy-bandwidth  us-in-a-stream
# then the best variant of each operation. Variant "tiles" is the tile kernels (strip = 0).
# About 20 runs of 7-12 s (compiles included). Run from the repo root with the packed programs in
# $PACK (default leadpack):
#   tools/anchors/filter_sweep.sh
set -u
PACK=${PACK:-leadpack}
export PORTACL_NO_PROGRESS=1
BASE=platforms/nvidia-hopper.profile
OPS=(--op box:3 --op sobel --op laplace:4:3 --op conv:1,2,1\;0,3,0\;1,2,1:sum --op median:3 --op median:5 --op box:9)
RESULTS=$(mktemp)

# variant NAME STRIP FLOAT SMALL SEP MED3 MED5, each family as WxR/GXxGY (strip width x rows per
# work-item / work-group)
variant() {
  local d name=$1 strip=$2 float=$3
  d=$(mktemp -d)
  cp "$BASE" "$d/nvidia-hopper.profile"
  {
    printf '\n[filter]\nstrip = %s\nstrip_float = %s\n' "$strip" "$float"
    local prefix spec
    for pair in "strip_:$4" "separable_strip_:$5" "median3_strip_:$6" "median5_strip_:$7"; do
      prefix=${pair%%:*} spec=${pair#*:}
      local s=${spec%/*} g=${spec#*/}
      printf '%swidth = %s\n%srows = %s\n' "$prefix" "${s%x*}" "$prefix" "${s#*x}"
      local gp=${prefix%strip_}
      [ -z "$gp" ] && gp=strip_
      printf '%sgroup_x = %s\n%sgroup_y = %s\n' "$gp" "${g%x*}" "$gp" "${g#*x}"
    done
    # An optional 8th argument: extra build options (a register cap), appended to the profile's own
    # in a later [build] block.
    [ -n "${8:-}" ] && printf '\n[build]\noptions = %s %s\n' "$(sed -n 's/^options = //p' "$BASE" | head -n 1)" "$8"
  } >> "$d/nvidia-hopper.profile"
  local layout="small=$4 sep=$5 med3=$6 med5=$7 float=$float ${8:-}"
  [ "$strip" = 0 ] && layout="tile kernels"
  PORTACL_PLATFORMS_DIR="$d:$PWD/platforms" timeout 90 "$PACK/run" portacl filter --bench --device nvidia --bench-sizes 4096 "${OPS[@]}" 2>&1 |
    awk -v v="$name" -v l="$layout" '/^\(/ { next } /4096\^2/ { printf "%-6s %-70s %-30s %9s us %6s %% %9s us-stream\n", v, l, $1, $3, $4, $6; next }
                                     /^operation/ { next } { print v ": " $0 }' | tee -a "$RESULTS"
  rm -rf "$d"
}

#        name  strip float small         sep          med3         med5
variant tiles 0 0 8x8/32x2 4x8/32x2 8x4/32x2 8x2/16x8
variant D     1 0 8x8/32x2 8x8/16x8 8x4/32x2 8x2/16x8    # the profiles' layouts (int sums)
variant F1    1 1 8x8/32x2 8x8/16x8 8x4/32x2 8x2/16x8
variant F2    1 1 8x16/32x2 8x8/16x8 8x4/16x8 8x2/32x4
variant F3    1 1 4x16/32x2 4x16/32x2 4x8/32x2 8x4/16x8
variant F4    1 1 8x8/16x8 8x16/32x4 8x8/32x2 4x2/16x8
variant F5    1 1 8x8/64x2 4x8/64x2 8x4/64x2 8x2/64x2
variant F6    1 1 8x4/32x4 8x8/32x4 16x4/16x8 8x2/32x2
variant F7    1 1 16x8/16x8 4x8/16x8 8x2/32x4 16x2/16x8
variant I1    1 0 8x16/32x2 8x8/16x8 4x4/32x2 8x4/32x4
variant I2    1 0 4x16/32x2 4x16/32x2 16x2/32x2 4x4/16x8
# Register caps and smaller or wider groups (third session: box 3 stayed at 21.5-28 us).
variant R64   1 0 8x8/32x2 8x8/16x8 8x4/32x2 8x2/16x8 -cl-nv-maxrregcount=64
variant R48   1 0 8x4/32x4 4x8/32x4 8x2/32x4 8x2/16x8 -cl-nv-maxrregcount=48
variant S1    1 0 8x2/64x2 8x4/64x2 8x2/64x2 8x2/64x2
variant S2    1 0 8x4/64x2 4x4/64x2 4x4/64x2 4x2/64x2
variant S3    1 0 16x2/32x4 16x4/32x4 16x2/32x4 8x2/32x4
variant S4    1 0 4x4/128x1 4x8/128x1 4x4/128x1 4x2/128x1
variant S5    1 0 16x4/64x1 16x8/64x1 8x8/64x1 8x4/64x1 -cl-nv-maxrregcount=96
variant S6    1 0 8x16/32x2 8x16/32x2 8x8/32x2 8x4/32x2 -cl-nv-maxrregcount=128
variant F8    1 1 8x4/64x2 8x8/64x2 8x4/64x2 8x2/64x2 -cl-nv-maxrregcount=64

echo "best of each operation:"
awk 'NF >= 8 && $(NF-4) == "us" { op = $(NF-6); t = $(NF-5) + 0; if (!(op in best) || t < best[op]) { best[op] = t; line[op] = $0 } }
     END { for (op in line) print line[op] }' "$RESULTS" | sort -k2
rm -f "$RESULTS"

#!/usr/bin/env bash
# Sweeps the strip layouts of the filters' register path (cl/filter_strip.cl) on the NVIDIA GPU.
# Each variant is a generated profile folder: the repo's nvidia-hopper.profile with a [filter] block
# appended (later keys override), put first on PORTACL_PLATFORMS_DIR. Each run times the operations
# the layouts touch, at 4096^2 8-bit grey on the device, and prints one line per operation:
#   variant  layout  operation  device-ms  GB/s  %-of-copy-bandwidth
# Variant "tiles" is the tile kernels (strip = 0), for comparison. About 12 runs of 5-10 s.
# Run from the repo root with the packed programs in $PACK (default leadpack):
#   tools/anchors/filter_sweep.sh
set -u
PACK=${PACK:-leadpack}
export PORTACL_NO_PROGRESS=1
BASE=platforms/nvidia-hopper.profile
OPS=(--op box:3 --op sobel --op laplace:4:3 --op conv:1,2,1\;0,3,0\;1,2,1:sum --op median:3 --op median:5 --op box:9)

# variant strip small_w small_r sep_w sep_r med3_w med3_r med5_w med5_r group_x group_y
variant() {
  local d
  d=$(mktemp -d)
  cp "$BASE" "$d/nvidia-hopper.profile"
  cat >> "$d/nvidia-hopper.profile" <<P

[filter]
strip = $2
strip_width = $3
strip_rows = $4
separable_strip_width = $5
separable_strip_rows = $6
median3_strip_width = $7
median3_strip_rows = $8
median5_strip_width = $9
median5_strip_rows = ${10}
strip_group_x = ${11}
strip_group_y = ${12}
P
  local layout="small=$3x$4 sep=$5x$6 med3=$7x$8 med5=$9x${10} group=${11}x${12}"
  [ "$2" = 0 ] && layout="tile kernels"
  PORTACL_PLATFORMS_DIR="$d:$PWD/platforms" timeout 60 "$PACK/run" portacl filter --bench --device nvidia --bench-sizes 4096 "${OPS[@]}" 2>&1 |
    awk -v v="$1" -v l="$layout" '/4096\^2/ { printf "%-6s %-52s %-30s %9s ms %8s GB/s %6s %%\n", v, l, $1, $3, $4, $5; next }
                                   /^operation/ { next } { print v ": " $0 }'
  rm -rf "$d"
}

variant tiles 0 16 8 8 8 16 4 8 2 32 2
variant A 1 16 8 8 8 16 4 8 2 32 2
variant B 1 16 4 8 4 16 2 4 2 32 2
variant C 1 16 16 8 16 16 8 8 4 32 2
variant D 1 8 8 4 8 8 4 16 2 32 2
variant E 1 8 16 16 8 8 8 4 4 32 2
variant F 1 4 16 4 16 4 8 8 6 32 2
variant G 1 16 8 8 8 16 4 8 2 64 1
variant H 1 16 8 8 8 16 4 8 2 32 4
variant I 1 16 8 8 8 16 4 8 2 16 8
variant J 1 16 8 8 8 16 4 8 2 128 1
variant K 1 8 4 16 4 8 2 4 2 64 2

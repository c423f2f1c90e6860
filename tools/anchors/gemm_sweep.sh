#!/usr/bin/env bash
# Sweeps register-blocked GEMM tile sizes on the NVIDIA GPU (one profile folder per variant).
set -u
sweep() { # name tm tn tk wm wn extra-options
  d=$(mktemp -d); cat > $d/nvidia-hopper.profile <<P
[match]
vendor = nvidia
type = GPU
compute_capability_min = 9.0
priority = 20
[build]
options = -cl-mad-enable -cl-nv-opt-level=3 $7
defines = PORTACL_WARP_SIZE=32 PORTACL_NVIDIA=1
[gemm]
tile_m = $2
tile_n = $3
tile_k = $4
wpt_m = $5
wpt_n = $6
unroll_k = $8
warp_tile = ${9:-0}
tile = 16
P
  echo "== $1: $2x$3x$4 wpt $5x$6 $7 unroll $8"
  PORTACL_PLATFORMS_DIR=$d .device/run portacl bench --device nvidia --only gemm --no-serial --repeats 5 2>&1 | grep register-blocked
}
sweep u8 128 128 16 8 8 "" 8 0
sweep u8w 128 128 16 8 8 "" 8 1
sweep tk32u8w 128 128 32 8 8 "" 8 1
sweep u4w 128 128 16 8 8 "" 4 1

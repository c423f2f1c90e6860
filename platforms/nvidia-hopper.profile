# NVIDIA Hopper (H100, H200: compute capability 9.0) through NVIDIA's OpenCL driver.
[match]
vendor = nvidia
type = GPU
compute_capability_min = 9.0
priority = 20

[build]
options = -cl-mad-enable -cl-nv-opt-level=3
defines = PORTACL_WARP_SIZE=32 PORTACL_NVIDIA=1

[vector]
work_group = 256

[gemm]
tile_m = 128
tile_n = 128
tile_k = 16
wpt_m = 8
wpt_n = 8
# Measured on an H200: unrolling the K-loop by 8 (not 16) keeps registers for two work-groups per SM
# (26.8 against 24.0 TFLOP/s in float).
unroll_k = 8
tile = 16

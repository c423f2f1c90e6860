# NVIDIA GPUs through NVIDIA's OpenCL driver. Warps of 32; 48 KiB of local memory per work-group;
# no cl_khr_fp16 (half precision is storage only); NVIDIA's compiler options (cl_nv_compiler_options).
[match]
vendor = nvidia
type = GPU
priority = 10

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

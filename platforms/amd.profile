# AMD GPUs (ROCm or legacy AMDGPU-PRO OpenCL). Wavefronts of 64 (GCN/CDNA) or 32 (RDNA).
[match]
vendor = Advanced Micro Devices
type = GPU
priority = 10

[build]
options = -cl-mad-enable
defines = PORTACL_WARP_SIZE=64 PORTACL_AMD=1

[vector]
work_group = 256

[gemm]
tile_m = 64
tile_n = 64
tile_k = 16
wpt_m = 4
wpt_n = 4
tile = 16

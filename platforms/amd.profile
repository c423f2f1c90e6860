# AMD GPUs (ROCm or AMDGPU-PRO OpenCL). Written from AMD's documented limits, untested on hardware:
# wavefronts of 64 work-items (GCN, CDNA) or 32 (RDNA, which also runs wave64), 64 KiB of local
# memory (LDS) per work-group, work-groups of up to 256 (1024 on ROCm), fp64 on every GCN/CDNA/RDNA
# part. The engine checks every size against what the device and each kernel report, so a value
# that does not fit is reduced, not refused.
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
# 16 x 16 work-items (four wavefronts) of 4 x 4 outputs each; two 64 x 16 tiles of A and B in
# float (10 KiB), double (20 KiB): well within 64 KiB.
tile_m = 64
tile_n = 64
tile_k = 16
wpt_m = 4
wpt_n = 4
tile = 16

[filter]
# Work-groups one wavefront wide.
tile_x = 64
tile_y = 4
pixels_per_item = 4
strip_group_x = 64
strip_group_y = 1

[voronoi]
lanes = 16
group = 64
flagged_lanes = 64
wide_group = 64
wide_candidates = 512

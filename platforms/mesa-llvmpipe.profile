# Mesa's rusticl on llvmpipe (Debian mesa-opencl-icd, RUSTICL_ENABLE=llvmpipe; docs/portability.md):
# a CPU device of 8 threads with 256-bit vectors, 32 KiB of local memory, work-groups of up to 1024,
# no fp64 (double and mixed workloads take mixed precision's double-float path or refuse double).
# The values below were compared on this driver by tools/anchors/cpu_profile_sweep.sh
# (docs/engineering/measurements.md).
[match]
platform = rusticl
device = llvmpipe
priority = 10

[build]
options = -cl-mad-enable
defines = PORTACL_LLVMPIPE=1

[vector]
# 256 ran faster than 64 and 128, and as fast as 1024.
work_group = 256

[gemm]
# Two 32 x 16 tiles in float: 4.5 KiB of the 32 KiB. llvmpipe allows the register-blocked kernel
# 32 work-items per work-group (CL_KERNEL_WORK_GROUP_SIZE, Mesa 22.3.6): 8 x 4 outputs each, the
# fastest of the blocks tried (fewer work-items, larger blocks or longer K-steps were slower).
tile_m = 32
tile_n = 32
tile_k = 16
wpt_m = 8
wpt_n = 4
# The tiled kernel is slow here at every tile size tried (8, 16, 32).
tile = 16

[filter]
# The register path, several times faster than the tile kernels here, in PoCL's layout (both compile
# through LLVM 15 for the same CPU): other work-group shapes differed by less than run-to-run noise.
strip = 1
strip_width = 8
strip_rows = 4
separable_strip_width = 8
separable_strip_rows = 4
median3_strip_width = 8
median3_strip_rows = 2
median5_strip_width = 8
median5_strip_rows = 2
strip_group_x = 8
strip_group_y = 2

[voronoi]
# One work-item per narrow search: two or four lanes were slower on this driver. llvmpipe allows
# the wide-search kernels 32 work-items per work-group (CL_KERNEL_WORK_GROUP_SIZE, Mesa 22.3.6):
# asked for here so that the engine does not build them twice (16 ran no faster).
lanes = 1
flagged_lanes = 1
wide_group = 32
wide_candidates = 512

[mesh]
# The hierarchy's boxes in passes: the one-launch refit's hand-over through atomics is not ordered
# here (every walk read its sibling's flag as not yet set), so its boxes stayed unfitted.
refit = levels

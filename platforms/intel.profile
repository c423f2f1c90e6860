# Intel GPUs (compute-runtime / NEO: Gen9 to Xe). Written from Intel's documented limits, untested on
# hardware: sub-groups of 8, 16 or 32 work-items (the compiler chooses; cl_intel_subgroups), 64 KiB
# of shared local memory per work-group (Xe; Gen9 reports 64 KiB too), work-groups of up to 256
# (512 or 1024 on Xe-HPC), fp64 only on some parts (Xe-HPC, Gen9 with emulation off: the engine
# asks the device). Sizes the device or a kernel does not allow are reduced by the engine.
[match]
vendor = Intel
type = GPU
priority = 10

[build]
options = -cl-mad-enable
defines = PORTACL_INTEL=1

[vector]
work_group = 256

[gemm]
tile_m = 64
tile_n = 64
tile_k = 16
wpt_m = 4
wpt_n = 4
tile = 16

[filter]
# Work-groups of two 16-wide sub-groups along a row.
tile_x = 32
tile_y = 4
pixels_per_item = 4
strip_group_x = 16
strip_group_y = 2

[voronoi]
lanes = 16
group = 64
flagged_lanes = 16
wide_group = 64
wide_candidates = 512

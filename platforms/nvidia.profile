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
# Double on the FP64 tensor cores (cl/gemm_mma.cl) wherever the GPU has them (compute capability
# 8.0 and up): --kernel fast and the library's default take it; --kernel register-blocked stays on FMA.
# Float stays on FMA; --kernel tensor-3xtf32 takes the TF32 tensor cores (the tensor_* keys below
# shape both tensor kernels; tensor_*_double the FP64 one alone).
tensor_cores = 1
tensor_m = 128
tensor_n = 64
tensor_k = 8
tensor_warps_m = 4
tensor_warps_n = 2
tile_m = 128
tile_n = 128
tile_k = 16
wpt_m = 8
wpt_n = 8
# Measured on an H200 with the earlier kernel (vload4 staging): warps of 8 x 4 work-items and the
# K-loop unrolled by 4 (float) or 8 (double): 31.7 and 16.6 TFLOP/s, against 24.0 and 11.0 fully
# unrolled without warp tiling. tools/anchors/gemm_sweep.sh times the variants of the current kernel.
warp_tile = 1
unroll_k = 4
unroll_k_double = 8
# Double: two 128 x 8 tiles of A and B (34 KiB) fit the 48 KiB of local memory OpenCL drivers commonly
# report; two 128 x 16 tiles (68 KiB) would be refused on such a device.
tile_k_double = 8
tile = 16

[filter]
# Measured on an H200 (portacl bench --only filter, 4096^2 u8): work-groups of 32 x 4 items, each
# computing 8 outputs one below the other (input rows read once from local memory serve every output
# whose window holds them), beat 32 x 8 x 4 by about 10 %; 64 x 2 x 8 and 32 x 4 x 16 within 6 %.
# Integer rank-1 masks (box, Gaussian on 8/16-bit): one kernel, both passes in local memory.
tile_x = 32
tile_y = 4
pixels_per_item = 8
fused_separable = 1
# The register path of 8-bit planes (cl/filter_strip.cl; strip = 0 goes back to the tile kernels
# above for everything): strips of *_width outputs side by side x *_rows rows per work-item, for
# masks up to 3x3, rank-1 and 1-D masks up to 9 taps a side, and the 3x3 and 5x5 medians; work-groups of
# strip_group_x x strip_group_y work-items. Chosen by tools/anchors/filter_sweep.sh on an H200
# (4096^2 u8, groups of 32 x 2): strips 8 wide x 8 rows gave box 3 in 22.5 us against 29.6 for 16 x 4
# and 37.2 for 16 x 8 (the tile kernels: 62.9); median 3 best at 8 x 4 (37.1 us), median 5 at 8 x 2
# (125 us; 16 x 2 took 173), box 9 at 4 x 8 (56 us).
strip = 1
strip_width = 8
strip_rows = 8
separable_strip_width = 8
separable_strip_rows = 8
separable_group_x = 16
separable_group_y = 8
median3_strip_width = 8
median3_strip_rows = 4
median5_strip_width = 8
median5_strip_rows = 2
median5_group_x = 16
median5_group_y = 8
strip_group_x = 32
strip_group_y = 2
# Each family may have its own work-group (separable_group_x/y, median3_group_x/y,
# median5_group_x/y; else strip_group_x/y): box 9 ran in 53.3 us with 8 x 8 strips in groups of
# 16 x 8 (56.2 with 4 x 8 in 32 x 2; both before the sliding sums), median 5 in 119.5 us with 8 x 2 in 16 x 8 (125 in 32 x 2).
# strip_float = 1 sums linear masks in float (exact; the float units run twice the integer rate):
# faster for the 9x1 row pass, slower for the others (docs/filter.md), so it stays off.
strip_float = 0
# strip_dot (default 1 from compute capability 6.1, which has dp4a): masks up to 3x3 sum each mask
# row as one byte dot product. H200, 4096^2: Sobel 16.1-17.7 -> 14.0-14.9 us, box 3 13.8-14.8 -> 12.0-12.7.
# strip_pack (default 1 from compute capability 7.2, which has cvt.pack): outputs saturated to bytes
# as the store packs them, two instructions per four bytes.
# strip_fixed_width = 1: the image width compiled into the register path's kernels (one program per
# width), so that every row is an immediate offset of one pointer. H200, Sobel at 4096^2 through
# CUDA back to back: 7.36 -> 6.54 million instructions, 11.9 -> 11.1 us (tools/profile/ncu_filter_strip.sh).
strip_fixed_width = 1
# Medians of 7x7 and larger from histograms: `median_histogram = 3` sends them to the GPU tile of
# column histograms of cl/filter_median.cl (2: the portable column walk). Timed on Hopper only
# (nvidia-hopper.profile takes the tile there: 9x9 2.4 times faster than the network), so the
# selection network and the bitwise search keep them here (median_histogram = 0, the default).
# Medians of 7x7 to 15x15 by the tile's shared selection network (cl/filter_median_network.cl), two
# 4 x 2 tiles a work-item in 16-bit lanes, work-groups of 16 x 8. Timed on Hopper with its packed
# min/max switched off (median_network_u16x2 = 0, what GPUs before compute capability 9.0 run):
# median 7 252 us, 9 434, 11 642, 15 3583 at 4096^2, against 695, 1783, - and 4571 for the
# selection network of the tile kernels that keeps them otherwise (docs/engineering/filter.md).
median_network = 1
median_network_min = 7
median_network_max = 15

# The GPU tile kernels of 8-bit planes (host/filter/gpu_tiles.cpp), taken before the register path:
# rank-1 masks up to 9x9 whose column sums pass 32 bits (fixed-point Gaussians, decimal masks) in one
# kernel with each tile's row sums in local memory and 4 columns a work-item (separable_tile_all = 1
# would take box, binomial and integer masks too, which the register path runs in 16-bit lanes), and
# the rotating mask up to 9x9 as a separable minimum over its windows' (dispersion, dy, dx).
# On an H200 at 4096^2 (tools/anchors/filter_gpu_check.sh, two rounds; docs/engineering/filter.md):
# the rotating tile took rotating 3, 5 and 7 from 97, 147 and 233 us to 52, 70 and 93; the separable
# tile was slower on the Gaussian 9x9 (57-68 us against the register path's 51-52) in every layout
# tried, so it stays off.
separable_tile = 0
rotating_tile = 1

[voronoi]
# Edge searches (docs/voronoi.md, "Tuning"; tools/anchors/voronoi_sweep.sh tries others): 16 work-items
# share a search's candidates, 4 searches per work-group of 64; a work-group of 64 for each search
# phase 2 of mixed mode redoes in double and for each wide search (more than wide_candidates balls).
# Chosen before a GPU measurement of the split searches: to be set from the sweep.
lanes = 16
group = 64
flagged_lanes = 64
wide_group = 64
wide_candidates = 512

[mesh]
# The exact predicates' expansions out of line in the mesh kernels: NVIDIA's compiler otherwise
# copies them into every call site (docs/mesh.md gives the build times and the checks).
build_options = -DPRED_EXACT_OUT_OF_LINE=1

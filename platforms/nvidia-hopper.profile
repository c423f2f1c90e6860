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
# Double on the FP64 tensor cores (cl/gemm_mma.cl) wherever the GPU has them (compute capability
# 8.0 and up): --kernel fast and the library's default take it; --kernel register-blocked stays on FMA.
# Float stays on FMA; --kernel tensor-3xtf32 takes the TF32 tensor cores (the tensor_* keys below
# shape both tensor kernels; tensor_*_double the FP64 one alone).
tensor_cores = 1
# The 3xTF32 kernel (and the FP64 one where no tensor_*_double key says otherwise): 64 x 256 tiles in
# 1 x 4 warps (a warp's part 64 x 64), staged as floats through cp.async in 4 stages of K 8 and split
# into their TF32 parts as the fragments are read. On an H200 (docs/engineering/gemm.md) the 3xTF32
# SGEMM 4096^3 ran at 52.3 TFLOP/s in that shape against cuBLAS SGEMM's 50.4 in the same call, and at
# 24.1 in 128 x 128 tiles of 2 x 4 warps staged through registers (split as stored).
tensor_m = 64
tensor_n = 256
tensor_k = 8
tensor_warps_m = 1
tensor_warps_n = 4
tensor_stages = 4
# K of one mma.sync instruction (4, 8 or 16; compute capability 9.0 and up, 8.x always uses 4)
tensor_instruction_k = 4
# The FP64 kernel alone: 128 x 64 tiles in 2 x 2 warps (a warp's part 64 x 32, 229 registers, two
# work-groups an SM), staged through cp.async in 2 stages of K 16, 16 bytes a copy where K and N are
# even. On an H200 (`bash tools/anchors/gemm_tf32_check.sh dgemm`, docs/engineering/gemm.md) DGEMM
# 4096^3 ran at 52.2 TFLOP/s in that shape against 44.7 in 4 x 2 warps of 4 stages of K 8 capped at
# 128 registers (8-byte copies); cuBLAS 61.2 in the same run.
tensor_m_double = 128
tensor_n_double = 64
tensor_k_double = 16
tensor_warps_m_double = 2
tensor_warps_n_double = 2
tensor_stages_double = 2
# Measured on an H200 (tools/anchors/gemm_sweep.sh, 4096^3; cuBLAS in the same run: SGEMM 50.8,
# DGEMM 60.3 TFLOP/s): float blocks of 64 x 128 with 8 x 8 outputs per work-item in warps of 8 x 4,
# K-steps of 16 fully unrolled, at most 128 registers: 42.4 TFLOP/s (83 %), against 40.4 for
# 128 x 128 unrolled by 4 and 41.9 for 256 x 128. Double: 128 x 128 with K-steps of 8 (two tiles in
# the 48 KiB of local memory the driver reports; 16 would need 68 KiB): 18.9 TFLOP/s.
tile_m = 64
tile_n = 128
tile_k = 16
wpt_m = 8
wpt_n = 8
warp_tile = 1
unroll_k = 16
build_options = -cl-nv-maxrregcount=128
tile_m_double = 128
tile_k_double = 8
unroll_k_double = 8
build_options_double =
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
# Medians of 7x7 and larger from histograms: the GPU tile of column histograms (cl/filter_median.cl,
# method 3: a work-group of 64 output columns walking down bands of 32 rows, a histogram per column of
# its tile in local memory). H200, 8-bit 4096^2, tools/anchors/filter_variants.sh, two rounds each:
# median 7 695 -> 679 us (the network before), 9 1783 -> 733, 15 4571 -> 1282; the column walk
# (method 2, bands of 64, groups of 32) took 743, 878 and 1342, and median 5 stays on the network
# (115 against 545). Groups of 32 and bands of 64 ran within 5 % of these.
median_histogram = 3
median_histogram_min = 7
median_histogram_band = 32
median_histogram_group = 64
# Medians of 5x5 to 15x15 by the tile's shared selection network (cl/filter_median_network.cl,
# host/filter/median_network.cpp), ahead of the histograms and the 5x5 register path: each work-item
# two 8 x 2 tiles (4 x 2 from 13x13) in the 16-bit lanes of min.u16x2 and max.u16x2, work-groups of
# 16 x 8. On an H200 (4096^2, tools/anchors/filter_variants.sh, two rounds; docs/engineering/filter.md)
# median 5 111 -> 57 us (the register path), 7 673 -> 99, 9 728 -> 163, 11 977 -> 255 against the
# histogram tile (stream times); 8 x 2 tiles against 4 x 2: 5-6 % faster up to 11x11, 7 % and 74 %
# slower at 13x13 and 15x15; tiles of 16 x 2, 12 x 2, 8 x 1, 4 x 4, 4 x 3, 6 x 2, 3 x 2, 2 x 4 and
# 2 x 2 and work-groups of 16 x 4, 8 x 8, 32 x 4 and 16 x 16 were slower.
median_network = 1
median_network_min = 5
median_network_max = 15
median_network_tile_x = 8
median_network_tile_x_large = 4
median_network_tile_y = 2
median_network_group_x = 16
median_network_group_y = 8

# strip_gradient_lanes (default 1 from compute capability 8.0, which has min.f16x2): 3x3 gradient
# pairs |Gx| + |Gy| (Sobel, Scharr, Prewitt) in 16-bit fp16x2 lanes instead of dot products. H100,
# Sobel at 4096^2 through CUDA back to back: 95 -> 72 registers, 6.46 -> 5.01 million instructions,
# 12.4 -> 10.7 us (tools/profile/ncu_filter_strip.sh). The gradient pairs and the 1-D rows (the
# 9x1 row pass) have layouts of their own: strips of 16 x 4 (H100, 4096^2 per launch, three rounds
# in one run: Sobel 13.4-13.7 us against 13.9-14.6 in 8 x 8; the 9x1 row pass 14.3-14.6 against 16.2-16.9),
# and 16 x 6 for the gradient pairs (H100, through CUDA back to back: Sobel 4.43 -> 4.14 million
# instructions, 10.3 -> 9.9 us, Scharr 10.6 -> 10.1; 16 x 8 took 10.0 and 10.3 in 124 registers).
gradient_strip_width = 16
gradient_strip_rows = 6
row_strip_width = 16
row_strip_rows = 4

# The GPU tile kernels of 8-bit planes (host/filter/gpu_tiles.cpp), taken before the register path:
# rank-1 masks up to 9x9 whose column sums pass 32 bits (fixed-point Gaussians, decimal masks) in one
# kernel with each tile's row sums in local memory and 4 columns a work-item (separable_tile_all = 1
# would take box, binomial and integer masks too, which the register path runs in 16-bit lanes), and
# the rotating mask up to 9x9 as a separable minimum over its windows' (dispersion, dy, dx).
# On an H200 at 4096^2 (tools/anchors/filter_gpu_check.sh, two rounds; docs/engineering/filter.md):
# the rotating tile took rotating 3, 5 and 7 from 97, 147 and 233 us to 52, 70 and 93; the separable
# tile was slower on the Gaussian 9x9 (57-68 us against the register path's 51-52) in every layout
# tried, so it stays off. Tiles of 64 x 64 outputs (with 3x3's mean carried in its key, and rows of
# windows 5 wide and up by dp4a, the default) took rotating 3, 5, 7 and 9 from 53, 71, 95 and 173 us
# to 43-45, 61-62, 67-68 and 175-177 (H200, portacl filter --bench, two rounds each in three calls;
# tiles of 60 x 64: 42, 58, 71 and 185). So windows up to 5x5 take tiles 60 wide
# (rotating_tile_x_small): rotating 3 41.4-43.7 us against 43.5-44.1 in 64 x 64, 39.0-39.2 against
# 41.1-41.3 in a stream; rotating 5 57.0-59.6 against 60.7-61.4 (H200, 4096^2, two rounds, one call).
separable_tile = 0
rotating_tile = 1
rotating_tile_y = 64
rotating_tile_x_small = 60

[voronoi]
# Edge searches (docs/voronoi.md, "Tuning"; tools/anchors/voronoi_sweep.sh tries others): 16 work-items
# share a search's candidates, 4 searches per work-group of 64; a work-group of 64 for each search
# phase 2 of mixed mode redoes in double and for each wide search (more than wide_candidates balls).
# Chosen before a GPU measurement of the split searches; a sweep on an H200 found 32 lanes, groups
# of 128 and wide_candidates 2048 within run-to-run noise of these (docs/voronoi.md).
lanes = 16
group = 64
flagged_lanes = 64
wide_group = 64
wide_candidates = 512

[predicates]
# The batch's float pass gathers 4 or 5 points per query from a cloud the L2 holds: the caller's
# packed 12-byte points take three 4-byte loads each (the compiler cannot prove 16-byte alignment),
# a padded copy of the cloud one 16-byte load, for one more pass over the cloud per call
# (docs/engineering/predicates.md). On an H100 at 2^24 the padded points ran orient3d in float at 62 % of
# the copy peak against 45 % packed, insphere 64 % against 51 % (tools/anchors/predicates_bandwidth.sh).
pad_points = 1
work_group = 256

[mesh]
# The exact predicates' expansions out of line in the mesh kernels: NVIDIA's compiler otherwise
# copies them into every call site (docs/mesh.md gives the build times and the checks).
build_options = -DPRED_EXACT_OUT_OF_LINE=1

[lineal_path]
# The reconstruction's candidate windows (cl/lineal_path_anneal.cl, anneal_window): on an H200 the
# 256^2, ML 64 bench case evaluated 16 702-16 828 swaps a second with them against 10 029-10 094
# without, alternated in one run (tools/anchors/recon_gpu_windows.sh, docs/engineering/lineal_path.md).
anneal_windows = 1

[drainage]
# The largest frontier level the one work-group takes (host/drainage/frontier.cpp): on an H200 the
# 8192^2 rough bowl's D8 accumulation took 88.0-88.9 ms at 256 cells against 102.4-102.5 at the
# default 1024 (91 at 64, 151 at 4096), its D-infinity accumulation 40.5-40.6 against 46.5-46.6, the
# files the same (docs/drainage.md, "The frontiers' narrow levels on an H200").
narrow_cells = 256

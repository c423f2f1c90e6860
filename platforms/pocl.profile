# PoCL on CPUs: work-groups become loops over vector lanes, so larger groups amortize scheduling;
# local memory is ordinary cache-resident memory.
[match]
platform = Portable Computing Language
type = CPU
priority = 10

[build]
options = -cl-mad-enable
defines = PORTACL_POCL=1

[vector]
work_group = 256

[gemm]
# The register-blocked product in its CPU shape (cl/gemm_cpu.cl): a work-item per block of 12 rows
# x 2 native vectors (AVX-512: 12 x 32 floats, 12 x 16 doubles; 24 of its 32 vector registers), its
# accumulators in registers over the whole of K; 12 ran faster than 6, 8 and 14 rows on 2 cores
# (docs/gemm.md). Where the native vector is narrower (AVX2's 16 registers) the host takes fewer
# rows. The tiles below are the GPU shape's, for a profile without these keys.
cpu_block_m = 12
cpu_block_vectors = 2
tile_m = 32
tile_n = 32
tile_k = 16
wpt_m = 4
wpt_n = 4
tile = 16

[filter]
# The row-band path of 8-bit planes (cl/filter_rows.cl): a work-item walks a band of rows across
# the whole row: 8 rows for the 3x3 median; for the rest, at least 24, more while the walk's rows
# (the band's and the window's) span at most 96 KiB of the image and 4 bands per core remain.
# Its rows are each read in order, few enough streams for the hardware prefetchers: bands of 64
# rows by 512 columns took twice the CPU time at 4096^2, bands of 40 across it a third more than
# 24; at 2048^2 bands of 40-64 took the Gaussian 8 % less than 24. Vectors of 32 bytes (medians,
# 2-D masks, 1-D columns, wide column sums below) or 16 (rank-1 masks wider than a column, whose
# row pass loads 9 unaligned vectors a row). It takes every single-mask
# linear filter up to 9x9 and the 3x3 and 5x5 medians before the register path below, which it
# outran on every one measured (docs/engineering/filter.md).
cpu_rows = 1
# PoCL's compiler is clang's: vectors of 32 and 64 bytes are its extended vectors.
cpu_rows_extended_vectors = 1
cpu_rows_band = 24
cpu_rows_median3_band = 8
cpu_rows_window_bytes = 98304
cpu_rows_segment = 8192
cpu_rows_median_vector = 32
cpu_rows_linear_vector = 32
cpu_rows_row_vector = 16
# Masks whose column sums pass 31 bits (fixed-point Gaussians) in vectors of 32 bytes: their rows'
# sums are in the walk's ring, not in registers (Gaussian 9 at 2048^2: 3.1 ms of CPU time against
# 3.3-3.5 in 16 bytes, 2 cores).
cpu_rows_double_vector = 32
# Rank-1 masks (box, Gaussian, separable and 1-D passes) walk along the rows instead: a work-item's
# ring of the last rows' sums spans a segment of 4096 columns (at most 256 KiB of private memory,
# in the second-level cache), so bands are tall (4 per core) and their first rows few. At 4096^2 on
# 2 cores, CPU time per launch: Gaussian 9 17.1-17.4 -> 13.6-13.9 ms, box 9 7.9-8.0 -> 5.2-6.3;
# segments of 256-1024 columns were slower (a walk's rows then short).
cpu_rows_walk_segment = 4096
# Medians of 7x7 and larger windows from histograms (cl/filter_median.cl): a work-item walks a band of
# rows over a segment of 256 columns with a histogram per column (Perreault and Hebert), whose cost
# does not grow with the window. At 2048^2 on 2 cores, CPU time per launch: median 7 110 -> 89-95 ms,
# median 9 281 -> 87-91 (the selection network before); the 5x5 network stays far faster (1.4 ms of
# CPU at 2048^2). Segments of 128 and 512 columns ran alike (docs/engineering/filter.md).
median_histogram = 1
median_histogram_min = 7
median_histogram_segment = 256
# Medians of 7x7 to 11x11 by the tile's shared selection network (cl/filter_median_network.cl), ahead
# of the histograms, each column's shared rows sorted once a work-group (median_network_sorted_columns):
# at 2048^2 on 2 cores (PoCL 3.1), CPU time per launch: median 7 87-88 -> 26-27 ms, median 9 84-86
# -> 39-40, median 11 78 -> 56 (without the sorted columns 30, 47-48 and 78); 13x13 and 15x15 slower,
# so the histograms keep those. Work-groups of 16 x 8 with tiles of 4 x 2 (the defaults); 32 x 4,
# 8 x 8 alike, 8 x 2 and 4 x 4 tiles slower at 9x9.
median_network = 1
median_network_min = 7
median_network_max = 11
median_network_sorted_columns = 1
# The register path of 8-bit planes (cl/filter_strip.cl): on PoCL at 1024^2, strips of 8 x 4 ran
# box 3 in 0.65 ms, Sobel 0.78, median 3 0.89, median 5 5.1 and box 9 4.4, against 10.9, 11.3, 4.6,
# 19.9 and 31.9 ms for the tile kernels (portacl filter --bench --op ..., 2 shared cores); 16-wide
# strips ran about as fast and took twice as long to compile.
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
# CPUs: one work-item walks a search's candidates (the work-items of a group run one after another,
# so splitting a search only adds the merge), the wide ones too: a work-group runs on one core
# anyway, and a pruned search (below) walks a box of every ball faster alone than split over 64
# work-items that each prune by their own best (docs/engineering/voronoi.md, "Pruned searches").
# wide_group is for the tests that force wide searches.
lanes = 1
flagged_lanes = 1
wide_group = 64
wide_candidates = 1000000000
# Mixed precision runs every search in double: the same diagram, and on a CPU double costs what
# float does while phase 2 redoes the slowest searches (docs/engineering/voronoi.md).
mixed_phases = 1
# Double searches skip the balls whose line misses the arc up to the best found so far (the same
# answers; docs/engineering/voronoi.md, "Pruned searches").
prune = 1
# A work-group runs on one core: at least 8 work-groups a core in each launch, however few searches
# a wave has (a small structure's first and last waves left most of 16 cores idle in groups of 128),
# and work-groups of at most 32 one-work-item searches: on 16 cores (H200 host, PoCL 5.0) 1A8O, 2BEG,
# 2XHE and 4UN3 ran 4-18 % faster than with groups of 128 and 4 a core, in both rounds
# (docs/engineering/voronoi.md, "On 16 CPU cores with the pruned searches").
item_group = 32

[fft]
# FFTW on the host's threads (one per compute unit) on the buffers this CPU device shares with the
# host, mapped, in place of VkFFT's kernels: host/fft/fftw_plan.cpp, docs/engineering/measurements.md.
backend = fftw
# fftw_host_tasks = 1 would run each transform as a host task in the queue instead of waiting for the
# queue on the host (slower at 128^3 on 2 threads of PoCL 3.1; measurements.md, "FFTW's hand-over").
# A batch (k-Wave's two or three components) as one item's plan run on each item in turn, as k-Wave's
# OMP code transforms: FFTW's own batch plans stream every item through each pass. 128^3 float, one
# thread, per item and forward-inverse pair: 6.6-8.7 ms against 8.8-10.1 (32 MiB of L3); equal at
# 256^3 and within 4 % at 32^3-64^3 (docs/engineering/measurements.md, "FFTW's batches"). Only items
# of fftw_batch_loop_points (64^3 by default) and up: the distributed solver's batches of lines,
# run item by item, took 2.5 times as long a step (docs/engineering/kwave.md).
fftw_batch_loop = 1

[kwave]
# With FFTW doing the x-y transforms, the fused z kernels (OpenCL z transforms inside the spectral
# operators) are slower than FFTW's own 3-D transforms with the plain spectral kernels: 128^3 on
# 2 cores, 152 ms a step fused against 118 ms (docs/engineering/measurements.md).
fftw_fused_z = 0
# The operators stored, not computed per element (kappa's sinc, |k|^(y-2) and c^(y-1) through exp
# and log, which PoCL calls per lane): kwave_pressure 10.2 -> 0.43 ms, kwave_absorption_terms
# 6.0 -> 0.20 ms at 64^3 on 2 cores. The spectral and 3-D element-wise kernels a work-item per x
# row, looping along it (vectorised; a work-item per point of a spectrum is not):
# kwave_pressure_gradient 0.56 -> 0.22 ms, kwave_velocity 0.92 -> 0.73 ms (docs/engineering/measurements.md).
stored_operators = 1
row_kernels = 1
# The row kernels' work-groups of 16 rows (an x row each): many more groups than threads, which PoCL
# hands out in shrinking chunks, where its own choice is one group per thread (16 at 128^3 on 16
# threads), so that a kernel lasted as long as its latest thread (docs/engineering/kwave.md, "16 cores").
row_group = 16
# The 3-D element-wise row kernels (velocity, density) in explicit vectors of 16 points: PoCL 5's
# loop vectorizer leaves their row loops scalar (PoCL 3.1's vectorised them; the outputs are the
# same bit for bit either way). Grids whose nx is not a multiple run a point at a time.
row_lanes = 16
# FFTW's inverses left unscaled, 1/N carried by the spectral operators before them (FFTW's scaling
# is a pass over the whole output of its own).
fold_fft_scale = 1

[mesh]
# The self-intersection's default broad phase (--method auto): the uniform grid ran 1.04 to 3.6 times
# faster than the hierarchy on spot, the bunny and 4 copies of it, in every precision (portacl bench
# --only mesh_self_intersection, 2 shared cores; docs/mesh.md), and 1.5 times on 15 copies.
broad_phase = grid

[drainage]
# Depression filling's tiles, 8 x 8 cells a work-group (16 x 16 elsewhere): the same filled surface
# sooner on PoCL's cores, 32 and 64 slower (docs/drainage.md, "Depression filling's tiles on CPUs").
fill_tile = 8

# Intel's OpenCL CPU runtime (PyPI intel-opencl-rt; docs/portability.md). Work-groups are loops the
# compiler vectorises across work-items, as on PoCL; 256 KiB of local memory, fp64. The values below
# were chosen by tools/anchors/cpu_profile_sweep.sh on this runtime (docs/engineering/measurements.md).
[match]
platform = Intel(R) OpenCL
type = CPU
priority = 10

[build]
# OpenCL C 3.0 with its generic address space, as PoCL 5 builds by default: CI has no PoCL 5, and
# the 1.2 default lets a kernel pass a generic pointer where a private one is declared.
options = -cl-mad-enable -cl-std=CL3.0
defines = PORTACL_INTEL_CPU=1

[vector]
# The vector sum is bound by memory: every work-group size from 64 to 1024 ran alike.
work_group = 256

[gemm]
# The register-blocked product in its CPU shape (cl/gemm_cpu.cl): a work-item per block of 12 rows
# x 2 native vectors (AVX-512: 12 x 32 floats, 12 x 16 doubles; 24 of its 32 vector registers), its
# accumulators in registers over the whole of K; 12 ran faster than 6, 8 and 14 rows on 2 cores
# (docs/gemm.md). Where the native vector is narrower (AVX2's 16 registers) the host takes fewer
# rows. The tiles below are the GPU shape's, for a profile without these keys.
cpu_block_m = 12
cpu_block_vectors = 2
# 8 x 8 outputs per work-item in 64 x 64 blocks (work-groups of 64): the fastest in float and in
# double of the blocks tried; 128 x 64 blocks gain a little in float and lose in double.
tile_m = 64
tile_n = 64
tile_k = 16
wpt_m = 8
wpt_n = 8
# The tiled kernel: 32 x 32 tiles ran faster than 16 x 16, and 8 x 8 far slower.
tile = 32

[filter]
# The row-band path of 8-bit planes (cl/filter_rows.cl), as on PoCL but with wider vectors, which
# this runtime's compiler ran faster: 64 bytes for the medians, 32 for every linear mask; bands of
# 24 rows (8 for the 3x3 median) across whole rows. At
# 2048^2 against PoCL's vectors (32 and 16 bytes): box 9 2.8 ms against 3.8, the 9x1 row pass 1.9
# against 1.9, the medians alike (docs/filter.md's command, one run each). It outran the register
# path on every operation it takes (docs/engineering/filter.md).
cpu_rows = 1
# This runtime's compiler is clang's: vectors of 32 and 64 bytes are its extended vectors.
cpu_rows_extended_vectors = 1
cpu_rows_band = 24
cpu_rows_median3_band = 8
cpu_rows_segment = 8192
cpu_rows_median_vector = 64
cpu_rows_linear_vector = 32
cpu_rows_row_vector = 32
# Wide column sums (fixed-point Gaussians) in 32 bytes, as on PoCL: Gaussian 9 at 4096^2 12.6-13.0 ms
# of CPU time against 13.7-13.8 in 16 bytes and 14.5-14.9 in 64 (two runs).
cpu_rows_double_vector = 32
# Rank-1 masks walk along the rows, as on PoCL: at 4096^2 on 2 cores, CPU time per launch, Gaussian
# 9 20.9-21.1 -> 12.8-13.0 ms, box 9 11.3-11.5 -> 4.3-4.8 (two runs).
cpu_rows_walk_segment = 4096
# The register path (the tile kernels are several times slower here), with work-groups of 16 x 2
# strips of 8 x 4 for the linear masks, faster than PoCL's 8 x 2; the medians keep 8 x 2, which
# wider groups did not speed up.
strip_group_x = 16
strip_group_y = 2
median3_group_x = 8
median3_group_y = 2
median5_group_x = 8
median5_group_y = 2
# The runtime's compiler (2026.2) crashes on long fully unrolled integer min/max networks: the 5x5
# median's on the register path and the selection network of the tile kernels' medians from 5x5 up
# (docs/portability.md has the reproducer). Medians above 3x3 take the bitwise search instead.
median5_strip = 0
median_search_min = 10
# Medians of 7x7 and larger windows from histograms, as on PoCL (cl/filter_median.cl; a work-item a
# band of rows by 256 columns, a histogram per column): no long min/max network for the runtime's
# compiler, and a cost that does not grow with the window (docs/engineering/filter.md).
median_histogram = 1
median_histogram_min = 7
median_histogram_segment = 256

[voronoi]
# Two work-items per narrow search: one per search, as on PoCL, is several times slower on this
# runtime, and four or eight gain nothing over two.
lanes = 2
# Mixed precision runs every search in double, as on PoCL (docs/engineering/voronoi.md).
mixed_phases = 1
# Double searches skip the balls that cannot end the edge first, and no search is wide, as on PoCL.
prune = 1
wide_candidates = 1000000000
# The runtime's compiler (2026.2) gets the search kernels wrong when it optimises (27 807 vertices
# for the 719 of a planted degenerate set; docs/portability.md). Unoptimised, they equal the serial
# reference on every test.
build_options = -cl-opt-disable

[kwave]
# FFTW's 3-D transforms and the plain spectral kernels, not the fused z kernels (as on PoCL).
fftw_fused_z = 0
# The operators stored (as on PoCL: sin, exp and log per element cost a CPU more than the reads).
stored_operators = 1
# A work-item per point, not per x row (PoCL's choice): this runtime's own vectoriser takes
# consecutive work-items; 128^3 on 2 cores, optimised builds, per call: the velocity gradient
# 4.4-4.9 -> 2.1 ms, the pressure gradient 3.3 -> 2.0, the absorption terms 3.7 -> 0.4-0.5, the step
# 58.7-60.4 -> 50.3-53.3 ms (docs/engineering/measurements.md, "Intel's runtime optimised").
row_kernels = 0
# FFTW's inverses left unscaled, 1/N carried by the spectral operators (as on PoCL).
fold_fft_scale = 1

[predicates]
# The runtime's compiler (2026.2) gets the exact pass's insphere expansions wrong when it optimises
# on CPUs without AVX-512 (an AMD EPYC with AVX2: 23 to 26 wrong signs of the conformance batch in
# double and mixed; right with AVX-512). Unoptimised, every sign equals the serial reference's.
build_options = -cl-opt-disable

[mesh]
# The runtime's compiler (2026.2) gets the double builds of the mesh kernels wrong when it optimises
# (pairs that do not intersect reported; float builds are right). Unoptimised, they equal CGAL's.
build_options = -cl-opt-disable

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

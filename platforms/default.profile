# Defaults for any OpenCL device no other profile matches. Conservative sizes that every device
# accepts (work-groups of 64 to 256 items, 16x16 tiles).
[match]
priority = 0

[build]
options = -cl-mad-enable

[vector]
work_group = 256

[gemm]
# Register-blocked kernel: a work-group computes a TILE_M x TILE_N block of C with
# (TILE_M/WPT_M) x (TILE_N/WPT_N) work-items, each computing WPT_M x WPT_N outputs (multiples of 4),
# over K-steps of TILE_K (a multiple of 4). Further keys (docs/gemm.md): unroll_k, warp_tile,
# double_buffer, build_options; "<key>_double" overrides "<key>" for double.
tile_m = 64
tile_n = 64
tile_k = 16
wpt_m = 4
wpt_n = 4
# Local-memory tiled kernel of the slides: square tiles.
tile = 16

[lineal_path]
# Work-items per displacement in lineal_count (a power of two), displacements per launch, and the
# work-group of the annealing dE reduction. anneal_windows (0 or 1; default 1 on CPU devices, 0 on
# GPUs): the reconstruction reads each candidate's pixels from a window of the image around it;
# anneal_window_bytes (default 64 MiB) bounds the device memory of one evaluation's windows.
work_group = 256
chunk = 65536
anneal_work_group = 128

# Intel GPUs (compute-runtime / NEO). Sub-groups of 8 to 32.
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

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
tile_m = 32
tile_n = 32
tile_k = 16
wpt_m = 4
wpt_n = 4
tile = 16

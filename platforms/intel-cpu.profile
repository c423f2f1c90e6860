# Intel's OpenCL CPU runtime (PyPI intel-opencl-rt; docs/portability.md). Work-groups are loops the
# compiler vectorises across work-items, as on PoCL; 32 KiB of local memory, fp64.
[match]
platform = Intel(R) OpenCL
type = CPU
priority = 10

[build]
options = -cl-mad-enable
defines = PORTACL_INTEL_CPU=1

[vector]
work_group = 256

[filter]
# The runtime's compiler (2026.2) crashes on long fully unrolled integer min/max networks: the 5x5
# median's on the register path and the selection network of the tile kernels' medians from 5x5 up
# (docs/portability.md has the reproducer). Medians above 3x3 take the bitwise search instead.
median5_strip = 0
median_search_min = 10

[kwave]
# The runtime's compiler (2026.2) miscompiles kwave.cl when it optimises: every field stays zero
# (docs/portability.md). Unoptimised, the solver equals the serial reference.
build_options = -cl-opt-disable

// The lecture's first example, the vector sum, and the two kernels that measure a device's peaks:
// a streaming copy (bandwidth) and independent FMA chains (compute), in the manner of clpeak.
#include "common/real.h"

// c = a + b, one element per work-item (the slides' kernel), with a bounds check for any n.
__kernel void vector_sum(__global const real* a, __global const real* b, __global real* c, const ulong n) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

// dst = src with 4-wide loads: the device's streaming bandwidth (bytes read + written).
__kernel void stream_copy(__global const real4* src, __global real4* dst, const ulong n4) {
    const size_t i = get_global_id(0);
    if (i < n4) dst[i] = src[i];
}

// Each work-item runs 8 independent chains of x = x * y + z for `iterations` rounds: 16 flops per
// chain step, 128 per round. The result is stored so that the compiler keeps every chain.
__kernel void fma_peak(__global real* out, const real y, const int iterations) {
    const size_t gid = get_global_id(0);
    real x0 = (real)gid * (real)1e-9, x1 = x0 + (real)0.1, x2 = x0 + (real)0.2, x3 = x0 + (real)0.3;
    real x4 = x0 + (real)0.4, x5 = x0 + (real)0.5, x6 = x0 + (real)0.6, x7 = x0 + (real)0.7;
    const real z = (real)1e-7;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            x0 = mad(x0, y, z); x1 = mad(x1, y, z); x2 = mad(x2, y, z); x3 = mad(x3, y, z);
            x4 = mad(x4, y, z); x5 = mad(x5, y, z); x6 = mad(x6, y, z); x7 = mad(x7, y, z);
        }
    }
    out[gid] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

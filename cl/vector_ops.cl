// The lecture's first example, the vector sum, and the two kernels that measure a device's peaks:
// a streaming copy (bandwidth) and independent FMA chains (compute), in the manner of clpeak.
#include "common/real.h"

// c = a + b, the slides' kernel, with VECTOR_SUM_WIDTH consecutive elements per work-item so that
// each load moves 16 bytes (4 floats or 2 doubles), the width that measured fastest on GPUs; the
// last partial group is added one by one.
#if PORTACL_DOUBLE
#define VECTOR_SUM_WIDTH 2
#define VLOADW vload2
#define VSTOREW vstore2
#else
#define VECTOR_SUM_WIDTH 4
#define VLOADW vload4
#define VSTOREW vstore4
#endif
__kernel void vector_sum(__global const real* a, __global const real* b, __global real* c, const ulong n) {
    const size_t i = get_global_id(0) * VECTOR_SUM_WIDTH;
    if (i + VECTOR_SUM_WIDTH <= n) {
        VSTOREW(VLOADW(0, a + i) + VLOADW(0, b + i), 0, c + i);
    } else {
        for (size_t j = i; j < n; ++j) c[j] = a[j] + b[j];
    }
}

// dst = src with 4-wide loads: the device's streaming bandwidth (bytes read + written).
__kernel void stream_copy(__global const real4* src, __global real4* dst, const ulong n4) {
    const size_t i = get_global_id(0);
    if (i < n4) dst[i] = src[i];
}

// The same copy with four vectors per work-item, a grid apart (each of the four passes still
// coalesced): four loads in flight before the first store, which a short copy can need to reach the
// streaming rate.
__kernel void stream_copy_x4(__global const real4* src, __global real4* dst, const ulong n4) {
    const size_t i = get_global_id(0), g = get_global_size(0);
    real4 v[4];
    for (int k = 0; k < 4; ++k)
        if (i + k * g < n4) v[k] = src[i + k * g];
    for (int k = 0; k < 4; ++k)
        if (i + k * g < n4) dst[i + k * g] = v[k];
}

// Each work-item runs 4 independent chains of 8-wide vectors, x = x * y + z, for `iterations`
// rounds of 8 steps: 512 flops per round. Vectors let CPU devices (PoCL) use their SIMD lanes; GPUs
// split them into 32 independent scalar chains. The sum is stored so that every chain is kept.
#if PORTACL_DOUBLE
typedef double8 real8;
#else
typedef float8 real8;
#endif
__kernel void fma_peak(__global real* out, const real y, const int iterations) {
    const size_t gid = get_global_id(0);
    const real8 lane = (real8)(0, 1, 2, 3, 4, 5, 6, 7) * (real)1e-3;
    real8 x0 = (real)gid * (real)1e-9 + lane, x1 = x0 + (real)0.1, x2 = x0 + (real)0.2, x3 = x0 + (real)0.3;
    const real8 yv = (real8)(y), z = (real8)((real)1e-7);
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            x0 = mad(x0, yv, z); x1 = mad(x1, yv, z); x2 = mad(x2, yv, z); x3 = mad(x3, yv, z);
        }
    }
    const real8 s = x0 + x1 + x2 + x3;
    out[gid] = s.s0 + s.s1 + s.s2 + s.s3 + s.s4 + s.s5 + s.s6 + s.s7;
}

// Per-pixel conversions of channel planes: colour to grey (0.299 R + 0.587 G + 0.114 B; integers
// exactly, (299R + 587G + 114B + 500) / 1000, or floored with GREY_FLOOR) and samples to float.
// Defines: SRC_T, INTEGER, GREY_FLOOR.
#include "common/real.h"

// Defaults of the defines above (the host always sets them).
#ifndef SRC_T
#define SRC_T uchar
#endif
#ifndef INTEGER
#define INTEGER 1
#endif
#ifndef GREY_FLOOR
#define GREY_FLOOR 0
#endif
#pragma OPENCL FP_CONTRACT OFF

__kernel void filter_grey(__global const SRC_T* r, __global const SRC_T* g, __global const SRC_T* b,
                          __global SRC_T* grey, const int n) {
    const int i = get_global_id(0);
    if (i >= n) return;
#if INTEGER
    const long s = 299L * r[i] + 587L * g[i] + 114L * b[i];
#if GREY_FLOOR
    grey[i] = (SRC_T)(s / 1000);
#else
    grey[i] = (SRC_T)((s + 500) / 1000);
#endif
#else
    grey[i] = (SRC_T)((real)0.299 * (real)r[i] + (real)0.587 * (real)g[i] + (real)0.114 * (real)b[i]);
#endif
}

__kernel void filter_to_float(__global const SRC_T* src, __global float* dst, const int n) {
    const int i = get_global_id(0);
    if (i < n) dst[i] = (float)src[i];
}

// Shared by the filter kernels: OpenCV's border rules (BORDER: 0 constant, 1 replicate, 2 reflect,
// 3 reflect101, 4 wrap), the sample types, and the integer rounding rules of host/filter/
// filter_internal.hpp (the serial reference uses the same ones).
#ifndef PORTACL_FILTER_COMMON_H
#define PORTACL_FILTER_COMMON_H

// Defaults, so that a kernel file compiles on its own (an offline compiler, a quick check); the host
// always sets each of these (host/filter/pipeline.cpp). OUT_MAX (integer outputs), DIVISOR and SHIFT
// (constant divisors) are switches by their presence and have no default.
#ifndef SRC_T
#define SRC_T float
#endif
#ifndef DST_T
#define DST_T float
#endif
#ifndef INTEGER
#define INTEGER 0
#endif
#ifndef BORDER
#define BORDER 3
#endif
#ifndef TX
#define TX 16
#endif
#ifndef TY
#define TY 16
#endif
#ifndef RX
#define RX 1
#endif
#ifndef RY
#define RY 1
#endif

#include "common/real.h"
// Exact sums in a fixed order, like the serial reference: no fused multiply-add.
#pragma OPENCL FP_CONTRACT OFF

// The index in [0, n) that position p reads, or -1 for a constant-border read outside.
inline int border_index(int p, int n) {
    if (p >= 0 && p < n) return p;
#if BORDER == 0
    return -1;
#elif BORDER == 1
    return p < 0 ? 0 : n - 1;
#elif BORDER == 4
    return ((p % n) + n) % n;
#else
    if (n == 1) return 0;
#if BORDER == 3
    const int delta = 1;
#else
    const int delta = 0;
#endif
    while (p < 0 || p >= n) p = p < 0 ? -p - 1 + delta : 2 * n - p - 1 - delta;
    return p;
#endif
}

// round(acc / d), halves up; shift >= 0 when d == 2^shift.
inline long round_div(long acc, long d, int shift) {
    if (shift == 0) return acc;
    if (shift > 0) return (acc + (1L << (shift - 1))) >> shift;
    const long n = 2 * acc + d, q = n / (2 * d);
    return (n % (2 * d) != 0 && n < 0) ? q - 1 : q;
}

// The same in 32 bits, when the host has proved that 2 * |acc| + d fits (GPUs divide 64-bit
// integers in software, several times slower than 32-bit).
inline int round_div_int(int acc, int d, int shift) {
    if (shift == 0) return acc;
    if (shift > 0) return (acc + (1 << (shift - 1))) >> shift;
    const int n = 2 * acc + d, q = n / (2 * d);
    return (n % (2 * d) != 0 && n < 0) ? q - 1 : q;
}

// The divisor and its shift as compile-time constants when the host defines them (integer masks):
// a division by a constant becomes a multiplication, where a division by a kernel argument costs
// dozens of instructions on GPUs.
#ifdef DIVISOR
#define DIVISOR_OF(arg) ((long)(DIVISOR))
#define SHIFT_OF(arg) (SHIFT)
#else
#define DIVISOR_OF(arg) (arg)
#define SHIFT_OF(arg) (arg)
#endif

// round(sqrt(n)) exactly, for n >= 0.
inline long round_sqrt(long n) {
    long r = (long)sqrt((float)n);
    while (r > 0 && (2 * r - 1) * (2 * r - 1) > 4 * n) --r;
    while ((2 * r + 1) * (2 * r + 1) <= 4 * n) ++r;
    return r;
}

// atan2(gy, gx) in degrees, [0, 360).
inline real direction_degrees(real gx, real gy) {
    real a = atan2(gy, gx) * (real)57.29577951308232;
    if (a < (real)0) a += (real)360;
    if (a >= (real)360) a -= (real)360;
    return a;
}

// Integer images: values as int (exact), clamped into the output type (OUT_MAX: 255 or 65535).
#if INTEGER
typedef int val_t;
#else
typedef real val_t;
#endif

#ifdef SRC_T
// Loads a tw x th tile whose top-left pixel is (gx0, gy0) into local memory, every work-item of a
// tx x ty work-group taking its share. A tile inside the image is copied plainly; one that crosses
// the edge goes through border_index (a pixel outside under BORDER_CONSTANT becomes `outside`).
inline void load_tile(__local val_t* tile, __global const SRC_T* src, const int w, const int h, const int gx0,
                      const int gy0, const int tw, const int th, const val_t outside) {
    const int first = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int step = get_local_size(0) * get_local_size(1);
    if (gx0 >= 0 && gy0 >= 0 && gx0 + tw <= w && gy0 + th <= h) {
        __global const SRC_T* s0 = src + gy0 * w + gx0;
        for (int i = first; i < tw * th; i += step) {
            const int ty = i / tw, tx = i - ty * tw;
            tile[i] = (val_t)s0[ty * w + tx];
        }
    } else {
        for (int i = first; i < tw * th; i += step) {
            const int ty = i / tw, tx = i - ty * tw;
            const int xi = border_index(gx0 + tx, w), yi = border_index(gy0 + ty, h);
            tile[i] = (xi < 0 || yi < 0) ? outside : (val_t)src[yi * w + xi];
        }
    }
}
#endif

#ifdef OUT_MAX
inline DST_T store_int(long v) { return (DST_T)clamp(v, 0L, (long)OUT_MAX); }
#endif

#endif

// The row-band path of 8-bit planes, shaped for CPU devices (host/filter/rows.cpp says which
// operations it takes; the CPU profiles choose it). A work-item is one thread's task: a band of
// `band` output rows by `segment` columns (kernel arguments). It walks down the band VW columns at a time, one vector of VW
// bytes per input row and horizontal offset, so the compiler's SIMD registers hold VW pixels side
// by side and nothing depends on vectorising across work-items (work-groups are 1 x 1). Each input
// row is loaded and reduced once per VW columns and kept, in a ring of the last KH rows' values,
// for the KH output rows whose windows hold it:
//   OP 1  a linear mask of KW x KH (2-D, e.g. filter2D): each input row's KW shifted vectors are
//         multiplied by every mask row and added into the KH accumulators of the outputs that hold
//         the row (row-vector accumulation); the oldest accumulator is complete and stored.
//   OP 2  a rank-1 mask (row factor ROWW, column factor COLW: a separable mask, or a 1-D row or
//         column): the row pass of each input row once (the bytes of a symmetric pair of weights
//         added before their one multiplication), then the column pass over the ring of KH row
//         sums for each output row: both passes fused, so the band's row sums never leave the
//         registers. CSLIDE: the column factor is one weight (box masks), and the column sum
//         slides down the band.
//   OP 3  the median of KW x KH (3x3 or 5x5): each input row's KW horizontal neighbours sorted once
//         (shared by the KH outputs that hold the row). 3x3: the median of (largest row minimum,
//         median of the row medians, smallest row maximum), 18 min/max per VW outputs. 5x5: the
//         sorted rows merged in pairs (each pair shared by two outputs one above the other), two
//         pairs merged into ranks 7..12 of twenty and rank 12 of those with the fifth row
//         (common/filter_networks.h, the register path's networks, on vectors).
// Integer sums are exact (the host proves every bound): ACC 0 sums in 16-bit lanes, ACC 1 in 32-bit
// lanes, ACC 2 takes the row sums in 32-bit lanes and the column sums in double (every partial sum
// an integer below 2^53, so exact in any order: fixed-point Gaussians, whose column sums exceed 32
// bits); ACC 3, for such masks with non-negative weights, estimates the column sums in float and
// takes them in double only for the vectors where the estimate lies within EST_MARGIN of a rounding
// boundary. The results equal the serial reference's bit for bit.
// HWALK (OP 2 only): a work-item walks along the rows instead, keeping the last KH rows' sums of a
// segment of HSEG columns in private memory (the kernel at the end of this file).
// Defines: VW (16, 32 or 64; `segment` is a multiple of it), KW, KH, RX = KW/2, RY = KH/2, OP,
// BORDER (as in common/filter_common.h), ACC, MASK (KH x KW, OP 1), ROWW (KW) and COLW (KH) (OP 2),
// DIV_MODE (0 none, 1 shift by DIV_SHIFT, 2 (2v + DIV_BIAS) / DIV_2D on non-negative sums, 3
// multiply-shift ((uint)v DIV_MUL + DIV_BIAS) >> DIV_SHIFT - DIV_K). The host sends only images at
// least VW wide, wider than RX and taller than RY.
#include "common/filter_mask_shape.h"
#ifndef OP
#define OP 3
#endif
#ifndef ACC
#define ACC 1
#endif
#ifndef MASK
#define MASK 1, 1, 1, 1, 1, 1, 1, 1, 1
#endif
#ifndef ROWW
#define ROWW 1, 1, 1
#endif
#ifndef COLW
#define COLW 1, 1, 1
#endif
#ifndef DIV_MODE
#define DIV_MODE 0
#endif
#ifndef CSLIDE
#define CSLIDE 0
#endif
#ifndef HWALK
#define HWALK 0
#endif
#ifndef DIV_SHIFT
#define DIV_SHIFT 0
#endif
#ifndef DIV_MUL
#define DIV_MUL 1u
#endif
#ifndef DIV_BIAS
#define DIV_BIAS 0u
#endif
#ifndef DIV_2D
#define DIV_2D 2u
#endif
#ifndef DIV_K
#define DIV_K 0
#endif
#ifndef EST_MARGIN
#define EST_MARGIN 0x1p-10f
#endif

#ifndef VW
#define VW 16
#endif

#include "common/filter_common.h"

#if ACC >= 2
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
// Every sum here is an exact integer (in double too), so a fused multiply-add gives the same value.
#pragma OPENCL FP_CONTRACT ON

// VW lanes of each type. Where the profile says the compiler is clang's (ROWS_CLANG_VECTORS: PoCL,
// Intel's CPU runtime), clang's extended vectors, of any width, which take no built-in functions (the conversions are
// __builtin_convertvector, min and max a comparison and a select), and unaligned whole-vector loads
// and stores through a type of alignment 1 (vload16/vstore16 became 16 byte moves on PoCL).
// Elsewhere OpenCL C's own 16-lane vectors and built-ins.
#ifndef ROWS_CLANG_VECTORS
#define ROWS_CLANG_VECTORS 0
#endif
#if ROWS_CLANG_VECTORS
typedef uchar vu8 __attribute__((ext_vector_type(VW)));
typedef ushort vu16 __attribute__((ext_vector_type(VW)));
typedef int vi32 __attribute__((ext_vector_type(VW)));
typedef uint vu32 __attribute__((ext_vector_type(VW)));
#if ACC >= 2
typedef double vf64 __attribute__((ext_vector_type(VW)));
#endif
#if ACC == 3
typedef float vf32 __attribute__((ext_vector_type(VW)));
#endif
typedef vu8 __attribute__((aligned(1))) vu8_u;
#define ROWS_LOAD(p) (*(const global vu8_u*)(p))
#define ROWS_STORE(v, p) (*(global vu8_u*)(p) = (v))
#define CONVERT(v, T) __builtin_convertvector(v, T)
#define VMIN(a, b) ((a) < (b) ? (a) : (b))
#define VMAX(a, b) ((a) < (b) ? (b) : (a))
#else
#if VW != 16
#error "vectors wider than 16 bytes need clang's extended vectors (ROWS_CLANG_VECTORS, the profile's cpu_rows_extended_vectors)"
#endif
#define vu8 uchar16
#define vu16 ushort16
#define vi32 int16
#define vu32 uint16
#define vf64 double16
#define vf32 float16
#define ROWS_LOAD(p) vload16(0, p)
#define ROWS_STORE(v, p) vstore16(v, 0, p)
#define ROWS_CAT_(a, b) a##b
#define ROWS_CAT(a, b) ROWS_CAT_(a, b)
#define CONVERT(v, T) ROWS_CAT(convert_, T)(v)
#define VMIN min
#define VMAX max
#endif

#if OP == 3
#define NET_T vu8
#define NET_MIN VMIN
#define NET_MAX VMAX
#include "common/filter_networks.h"
#endif

#if ACC == 0
#define acc_t vu16
#else
#define acc_t vi32
#endif
#define TO_ACC(v) CONVERT(v, acc_t)

// The KW vectors of VW samples of row `row` (already through the border rule, -1: a constant-border
// row) from columns x - RX + dx, dx = 0..KW-1, into u: one unaligned vector load each inside the
// image. A chunk within the window's radius of the left or right edge gathers its VW + KW - 1 bytes
// through the border rule once, out of the loop's way (not inlined), and loads the vectors from them.
__attribute__((noinline)) void rows_gather(const global uchar* p, const int x, const int width, const uchar outside, vu8* u) {
    uchar v[VW + KW - 1];
    for (int i = 0; i < VW + KW - 1; ++i) {
        const int c = border_index(x - RX + i, width);
        v[i] = c < 0 ? outside : p[c];
    }
    for (int dx = 0; dx < KW; ++dx) {
#if ROWS_CLANG_VECTORS
        u[dx] = *(const vu8_u*)(v + dx);
#else
        u[dx] = vload16(0, v + dx);
#endif
    }
}

__attribute__((always_inline)) inline void rows_window(const global uchar* src, const int row, const int x, const int width, const uchar outside,
                                                       const bool edge, vu8* u) {
#if BORDER == 0
    if (row < 0) {  // (only the constant border reads rows outside)
        #pragma unroll
        for (int dx = 0; dx < KW; ++dx) u[dx] = (vu8)(outside);
        return;
    }
#endif
    const global uchar* p = src + (size_t)row * (size_t)width;
    if (edge) {
        rows_gather(p, x, width, outside, u);
    } else {
        #pragma unroll
        for (int dx = 0; dx < KW; ++dx) u[dx] = ROWS_LOAD(p + x - RX + dx);
    }
}

// Bytes saturated from 16- and 32-bit lanes.
inline vu8 rows_bytes16(const vu16 v) { return CONVERT(VMIN(v, (vu16)(255)), vu8); }
inline vu8 rows_bytes32(const vi32 v) { return CONVERT(VMIN(VMAX(v, (vi32)(0)), (vi32)(255)), vu8); }

#if OP == 1 || OP == 2
// The divisor's rounding (halves up) of a Single mask's integer sums, saturated to bytes.
inline vu8 rows_finish(const acc_t v) {
#if DIV_MODE == 0 || DIV_MODE == 1
#if DIV_MODE == 0
    const acc_t q = v;
#else
    const acc_t q = (v + (acc_t)(1 << (DIV_SHIFT - 1))) >> DIV_SHIFT;  // an arithmetic shift: the floor below zero too
#endif
#if ACC == 0
    return rows_bytes16(q);
#else
    return rows_bytes32(q);
#endif
#elif DIV_MODE == 2
    return rows_bytes32(CONVERT((CONVERT(v, vu32) * 2u + DIV_BIAS) / DIV_2D, vi32));
#else
    return rows_bytes32(CONVERT((CONVERT(v, vu32) * DIV_MUL + DIV_BIAS) >> DIV_SHIFT, vi32) - DIV_K);
#endif
}
#endif

#define CONVERT_F64(v) CONVERT(v, vf64)

#if OP == 2 && ACC >= 2
// Column sums in double: exact integers; the divisor is 2^DIV_SHIFT (fixed point). The quotient's
// conversion truncates towards zero where the rounding takes the floor: the two differ only below
// 0, which saturates to 0 either way.
inline vu8 rows_finish_double(const vf64 v) {
    const vf64 q = (v + (double)(1L << (DIV_SHIFT - 1))) * (1.0 / (double)(1L << DIV_SHIFT));
    return rows_bytes32(CONVERT(q, vi32));
}
#endif

#if OP == 1
constant int rows_mask[KH * KW] = {MASK};
#elif OP == 2
constant int rows_roww[KW] = {ROWW};
constant int rows_colw[KH] = {COLW};
#endif

#if OP == 2
// The row pass of one input row's KW shifted vectors, the bytes of a symmetric pair of weights added
// (in 16 bits) before their one multiplication.
__attribute__((always_inline)) inline acc_t rows_row_pass(const vu8* u) {
    acc_t sum = (acc_t)(rows_roww[RX]) * TO_ACC(u[RX]);
    #pragma unroll
    for (int dx = 0; dx < RX; ++dx) {
        if (rows_roww[dx] == rows_roww[KW - 1 - dx]) {
            sum += (acc_t)(rows_roww[dx]) * TO_ACC(CONVERT(u[dx], vu16) + CONVERT(u[KW - 1 - dx], vu16));
        } else {
            sum += (acc_t)(rows_roww[dx]) * TO_ACC(u[dx]);
            sum += (acc_t)(rows_roww[KW - 1 - dx]) * TO_ACC(u[KW - 1 - dx]);
        }
    }
    return sum;
}

#if !CSLIDE
// The column pass over the KH row sums rs (the oldest first), rounded, saturated and stored at out.
__attribute__((always_inline)) inline void rows_column_store(const acc_t* rs, global uchar* out) {
    // The column pass over the KH row sums, symmetric pairs first.
#if ACC == 3
    // The quotient estimated in float, the weights scaled by 1 / 2^DIV_SHIFT (exactly): every weight
    // and sample is non-negative, so its relative error is at most about 7 roundings (2^-21) and the
    // estimate v (below 256) is within 2^-13 of the exact quotient. Rounded to the nearest integer
    // it is the exact result (the quotient rounded halves up) unless v lies within EST_MARGIN (2^-10
    // or more) of a half; a vector with such a lane takes the exact column sums in double instead
    // (about 3 % of vectors on noise).
    const float scale = 1.0f / (float)(1L << DIV_SHIFT);
    vf32 v = (float)rows_colw[RY] * scale * CONVERT(rs[RY], vf32);
    #pragma unroll
    for (int k = 0; k < RY; ++k) {
        if (rows_colw[k] == rows_colw[KH - 1 - k]) {
            v += (float)rows_colw[k] * scale * CONVERT(rs[k] + rs[KH - 1 - k], vf32);
        } else {
            v += (float)rows_colw[k] * scale * CONVERT(rs[k], vf32);
            v += (float)rows_colw[KH - 1 - k] * scale * CONVERT(rs[KH - 1 - k], vf32);
        }
    }
    // v rounded to the nearest integer by adding and subtracting 1.5 * 2^23 (exact for v below 2^22).
    const vf32 r = (v + 12582912.0f) - 12582912.0f, d = v - r;
    const vi32 q = CONVERT(r, vi32);
    const vi32 near = VMAX(d, -d) > (vf32)(0.5f - EST_MARGIN);
#if ROWS_CLANG_VECTORS
    if (__builtin_reduce_or(near)) {
#else
    if (any(near)) {
#endif
#endif
#if ACC >= 2
    vf64 c = (double)rows_colw[RY] * CONVERT_F64(rs[RY]);
    #pragma unroll
    for (int k = 0; k < RY; ++k) {
        if (rows_colw[k] == rows_colw[KH - 1 - k]) {
            c += (double)rows_colw[k] * CONVERT_F64(rs[k] + rs[KH - 1 - k]);
        } else {
            c += (double)rows_colw[k] * CONVERT_F64(rs[k]);
            c += (double)rows_colw[KH - 1 - k] * CONVERT_F64(rs[KH - 1 - k]);
        }
    }
    ROWS_STORE(rows_finish_double(c), out);
#endif
#if ACC == 3
    } else {
        ROWS_STORE(rows_bytes32(q), out);
    }
#endif
#if ACC < 2
    acc_t c = (acc_t)(rows_colw[RY]) * rs[RY];
    #pragma unroll
    for (int k = 0; k < RY; ++k) {
        if (rows_colw[k] == rows_colw[KH - 1 - k]) {
            c += (acc_t)(rows_colw[k]) * (rs[k] + rs[KH - 1 - k]);
        } else {
            c += (acc_t)(rows_colw[k]) * rs[k];
            c += (acc_t)(rows_colw[KH - 1 - k]) * rs[KH - 1 - k];
        }
    }
    ROWS_STORE(rows_finish(c), out);
#endif
}
#endif
#endif

// One chunk of 16 columns from x on, down the output rows [y0, ye). Inlined twice, for the chunks
// that need the border rule along the row (edge) and for those that do not (no call in the loop).
// Its pointers are not marked restrict (the kernel's are): inlining a restrict parameter leaves an
// llvm.experimental.noalias.scope.decl call that oclgrind cannot run.
__attribute__((always_inline)) inline void rows_chunk(const global uchar* src, global uchar* dst, const int width,
                                                      const int height, const uchar outside, const int x, const int y0, const int ye,
                                                      const bool edge) {
#if OP == 1
    acc_t acc[KH];
    #pragma unroll
    for (int j = 0; j < KH; ++j) acc[j] = (acc_t)(0);
#elif OP == 2
    acc_t rs[KH];
#if CSLIDE
    acc_t cs = (acc_t)(0);  // the running sum of the ring's rows
#endif
#elif OP == 3 && KW == 3
    vu8 lo[3], md[3], hi[3];
#else
    vu8 s[2][5];
    vu8 pr[3][10];
#endif
    for (int r = y0 - RY; r < ye + RY; ++r) {
        const int row = border_index(r, height);
        global uchar* out = dst + (size_t)(r - RY) * (size_t)width + x;
        vu8 u[KW];
        rows_window(src, row, x, width, outside, edge, u);
#if OP == 1
        // Input row r adds into the output rows r - RY + j, each with its mask row KH - 1 - j.
        acc_t v[KW];
        #pragma unroll
        for (int dx = 0; dx < KW; ++dx) v[dx] = TO_ACC(u[dx]);
        #pragma unroll
        for (int j = 0; j < KH; ++j) {
            #pragma unroll
            for (int dx = 0; dx < KW; ++dx) acc[j] += (acc_t)(rows_mask[(KH - 1 - j) * KW + dx]) * v[dx];
        }
        if (r >= y0 + RY) ROWS_STORE(rows_finish(acc[0]), out);
        #pragma unroll
        for (int j = 0; j + 1 < KH; ++j) acc[j] = acc[j + 1];
        acc[KH - 1] = (acc_t)(0);
#elif OP == 2
        const acc_t sum = rows_row_pass(u);
        #pragma unroll
        for (int j = 0; j + 1 < KH; ++j) rs[j] = rs[j + 1];
        rs[KH - 1] = sum;
#if CSLIDE
        // One column weight for every row (box masks): the column sum slides down the band, one
        // add and one subtract per output instead of KH - 1 adds.
        cs += sum;
        if (r >= y0 + RY) {
            ROWS_STORE(rows_finish((acc_t)(rows_colw[0]) * cs), out);
            cs -= rs[0];
        }
#else
        if (r >= y0 + RY) {
            rows_column_store(rs, out);
        }
#endif
#elif OP == 3 && KW == 3
        // The row's three horizontal neighbours sorted (3 compare-exchanges).
        const vu8 a = u[0], b = u[1], c = u[2];
        const vu8 t = VMIN(a, b), w = VMAX(a, b);
        lo[0] = lo[1];
        lo[1] = lo[2];
        md[0] = md[1];
        md[1] = md[2];
        hi[0] = hi[1];
        hi[1] = hi[2];
        lo[2] = VMIN(t, c);
        hi[2] = VMAX(w, c);
        md[2] = VMAX(t, VMIN(w, c));
        if (r >= y0 + RY) {
            const vu8 mx = VMAX(VMAX(lo[0], lo[1]), lo[2]), mn = VMIN(VMIN(hi[0], hi[1]), hi[2]);
            const vu8 mm = NET_MED3(md[0], md[1], md[2]);
            ROWS_STORE(NET_MED3(mx, mm, mn), out);
        }
#else
        // The row's five horizontal neighbours sorted (9 compare-exchanges) into s[1], the row above's
        // in s[0]. Output r - 2 takes the pairs of rows r - 4, r - 3 (pr[0]) and r - 2, r - 1 (pr[2]),
        // and row r alone; then the pair of rows r - 1, r joins the ring.
        vu8 q[4];
        #pragma unroll
        for (int i = 0; i < 4; ++i) q[i] = u[i];
        NET_SORT4(q);
        #pragma unroll
        for (int k = 0; k < 5; ++k) s[0][k] = s[1][k];
        NET_INSERT4(q, u[4], s[1]);
        if (r >= y0 + RY) {
            vu8 mid[6];
            NET_MERGE1010_MID(pr[0], pr[2], mid);
            ROWS_STORE(NET_MED25_FINAL(mid, s[1]), out);
        }
        #pragma unroll
        for (int i = 0; i < 2; ++i) {
            #pragma unroll
            for (int k = 0; k < 10; ++k) pr[i][k] = pr[i + 1][k];
        }
        if (r > y0 - RY) NET_MERGE55(s[0], s[1], pr[2]);
#endif
    }
}

#if OP == 2 && HWALK
// Rank-1 masks, walked along the rows: a work-item takes a band of `band` output rows by HSEG
// columns (HSEG = `segment`), and for each input row of the band and its window, the row pass of
// every chunk of VW columns into a ring of the last KH rows' sums in private memory (KH x HSEG lanes,
// which the first-level cache holds), then the column pass of the output row those rows complete.
// The walk reads one input row and writes one output row at a time, in order: two streams for the
// hardware prefetchers whatever the band's height, so bands can be tall and the KH - 1 rows of the
// window read before a band's first output are few beside its rows.
kernel void filter_rows(const global uchar* restrict src, global uchar* restrict dst, const int width, const int height, const int outsideValue,
                        const int band, const int segment) {
    const uchar outside = (uchar)outsideValue;
    const int xs = (int)get_global_id(0) * HSEG, y0 = (int)get_global_id(1) * band;
    if (xs >= width || y0 >= height) return;
    const int ye = min(y0 + band, height), chunks = (min(xs + HSEG, width) - xs + VW - 1) / VW;
    acc_t ring[KH][HSEG / VW];
#if CSLIDE
    acc_t cs[HSEG / VW];  // the running sums of the ring's rows (box masks)
    for (int c = 0; c < chunks; ++c) cs[c] = (acc_t)(0);
#endif
    int slot = 0;  // the ring row that takes the next input row; the rows after it are the oldest
    int r = y0 - RY;
#if !CSLIDE
    // Two input rows at a time: the KH - 1 rows the two output rows share are loaded once for both.
    // (Each chunk's ring values are all loaded before its two new rows overwrite one of them.)
    for (; r + 1 < ye + RY; r += 2) {
        const int row0 = border_index(r, height), row1 = border_index(r + 1, height);
        global uchar* out0 = dst + (size_t)(r - RY) * (size_t)width;
        global uchar* out1 = out0 + width;
        const bool emit0 = r >= y0 + RY, emit1 = r + 1 >= y0 + RY;
        acc_t* rp[KH + 1];  // rows r - KH + 1 .. r + 1, the oldest first
        #pragma unroll
        for (int k = 0; k <= KH; ++k) rp[k] = ring[(slot + 1 + k) % KH];
        for (int c = 0; c < chunks; ++c) {
            const int x = min(xs + c * VW, width - VW);
            const bool edge = x < RX || x + VW + RX > width;
            vu8 u[KW];
            rows_window(src, row0, x, width, outside, edge, u);
            const acc_t s0 = rows_row_pass(u);
            rows_window(src, row1, x, width, outside, edge, u);
            const acc_t s1 = rows_row_pass(u);
            if (emit1) {
                acc_t v[KH + 1];
                #pragma unroll
                for (int k = 0; k + 1 < KH; ++k) v[k] = rp[k][c];
                v[KH - 1] = s0;
                v[KH] = s1;
                if (emit0) rows_column_store(v, out0 + x);
                rows_column_store(v + 1, out1 + x);
            }
            rp[KH - 1][c] = s0;
            rp[KH][c] = s1;
        }
        slot = (slot + 2) % KH;
    }
#endif
    for (; r < ye + RY; ++r) {
        const int row = border_index(r, height);
        global uchar* out = dst + (size_t)(r - RY) * (size_t)width;
        const bool emit = r >= y0 + RY;
        acc_t* rp[KH];  // the window's rows, the oldest first, this one last
        #pragma unroll
        for (int k = 0; k < KH; ++k) rp[k] = ring[(slot + 1 + k) % KH];
        for (int c = 0; c < chunks; ++c) {
            // The last chunk of a row that is not whole ends at the row's end.
            const int x = min(xs + c * VW, width - VW);
            vu8 u[KW];
            rows_window(src, row, x, width, outside, x < RX || x + VW + RX > width, u);
            const acc_t sum = rows_row_pass(u);
            rp[KH - 1][c] = sum;
#if CSLIDE
            acc_t t = cs[c] + sum;
            if (emit) {
                ROWS_STORE(rows_finish((acc_t)(rows_colw[0]) * t), out + x);
                t -= rp[0][c];
            }
            cs[c] = t;
#else
            if (emit) {
                acc_t v[KH];
                #pragma unroll
                for (int k = 0; k < KH; ++k) v[k] = rp[k][c];
                rows_column_store(v, out + x);
            }
#endif
        }
        slot = slot + 1 == KH ? 0 : slot + 1;
    }
}
#else
kernel void filter_rows(const global uchar* restrict src, global uchar* restrict dst, const int width, const int height, const int outsideValue,
                        const int band, const int segment) {
    const uchar outside = (uchar)outsideValue;
    const int xs = (int)get_global_id(0) * segment, y0 = (int)get_global_id(1) * band;
    if (xs >= width || y0 >= height) return;
    const int xe = min(xs + segment, width), ye = min(y0 + band, height);
    for (int cx = xs; cx < xe; cx += VW) {
        // The last chunk of a row that is not whole ends at the row's end (it recomputes a few
        // outputs of the chunk before it, the same values).
        const int x = min(cx, width - VW);
        if (x < RX || x + VW + RX > width) rows_chunk(src, dst, width, height, outside, x, y0, ye, true);
        else rows_chunk(src, dst, width, height, outside, x, y0, ye, false);
    }
}
#endif

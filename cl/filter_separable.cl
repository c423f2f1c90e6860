// Rank-1 masks as two 1-D passes over one channel plane. filter_rows: horizontal sums of each
// row (border in x) into an intermediate plane, unrounded. filter_cols: vertical sums of those
// (border in y; rows outside a constant border are the constant row's sum), divided and stored.
// Both read their input through a local-memory tile. Defines: SRC_T, DST_T, MID_T (int, long or
// real), ACC_T (int or long: the vertical sums; the host proves they fit), INTEGER, OUT_MAX, BORDER,
// TX, TY, RX, RY.
#include "common/filter_common.h"

// Defaults of the defines above (the host always sets them). PY, DIVISOR and SHIFT are switches by
// their presence (the fused kernel, constant divisors) and have none.
#ifndef MID_T
#define MID_T int
#endif
#ifndef ACC_T
#define ACC_T int
#endif
#ifndef DIV_NARROW
#define DIV_NARROW 1
#endif

#if INTEGER
typedef int weight_t;
#else
typedef real weight_t;
#endif

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void filter_rows(__global const SRC_T* src, __global MID_T* mid, const int w, const int h, const val_t outside,
                 __global const weight_t* row) {
    __local val_t tile[TY * (TX + 2 * RX)];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx0 = (int)get_group_id(0) * TX - RX, y = (int)get_group_id(1) * TY + ly;
    const int yc = min(y, h - 1);  // rows past the end load something valid and store nothing
    for (int i = lx; i < TX + 2 * RX; i += TX) {
        const int xi = border_index(gx0 + i, w);
        tile[ly * (TX + 2 * RX) + i] = xi < 0 ? outside : (val_t)src[yc * w + xi];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = gx0 + RX + lx;
    if (x >= w || y >= h) return;
    __local const val_t* p = tile + ly * (TX + 2 * RX) + lx;
    MID_T acc = 0;
#pragma unroll
    for (int dx = 0; dx < 2 * RX + 1; ++dx) acc = acc + (MID_T)row[dx] * (MID_T)p[dx];
    mid[y * w + x] = acc;
}

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void filter_cols(__global const MID_T* mid, __global DST_T* dst, const int w, const int h, const MID_T outsideRow,
                 __global const weight_t* col, const long divisor, const int shift) {
    __local MID_T tile[(TY + 2 * RY) * TX];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x = (int)get_group_id(0) * TX + lx, gy0 = (int)get_group_id(1) * TY - RY;
    const int xc = min(x, w - 1);
    for (int i = ly; i < TY + 2 * RY; i += TY) {
        const int yi = border_index(gy0 + i, h);
        tile[i * TX + lx] = yi < 0 ? outsideRow : mid[yi * w + xc];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int y = gy0 + RY + ly;
    if (x >= w || y >= h) return;
    __local const MID_T* p = tile + ly * TX + lx;
#if INTEGER
    ACC_T acc = 0;
#pragma unroll
    for (int dy = 0; dy < 2 * RY + 1; ++dy) acc += (ACC_T)col[dy] * (ACC_T)p[dy * TX];
#if DIV_NARROW
    dst[y * w + x] = store_int(round_div_int((int)acc, (int)divisor, shift));
#else
    dst[y * w + x] = store_int(round_div(acc, divisor, shift));
#endif
#else
    real acc = (real)0;
#pragma unroll
    for (int dy = 0; dy < 2 * RY + 1; ++dy) acc = acc + col[dy] * p[dy * TX];
    dst[y * w + x] = (DST_T)acc;
#endif
}

#ifdef PY
// Both passes in one kernel (integer images; GPUs): a (TX + 2 RX) x (TY*PY + 2 RY) input tile in
// local memory (border rules applied there, as in filter_window), the horizontal sums of each of its
// rows into a second local tile, then each work-item's PY vertical sums, one output below the other,
// every row sum read once. The sums are the two-pass ones exactly: integers, in the same order.
#define TW (TX + 2 * RX)
#define TH (TY * PY + 2 * RY)
__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void filter_separable_fused(__global const SRC_T* src, __global DST_T* dst, const int w, const int h, const val_t outside,
                            __constant weight_t* row, __constant weight_t* col, const long divisor, const int shift) {
    __local val_t tile[TH * TW];
    __local MID_T sums[TH * TX];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx0 = (int)get_group_id(0) * TX - RX, gy0 = (int)get_group_id(1) * (TY * PY) - RY;
    load_tile(tile, src, w, h, gx0, gy0, TW, TH, outside);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = ly; i < TH; i += TY) {
        __local const val_t* p = tile + i * TW + lx;
        MID_T acc = 0;
#pragma unroll
        for (int dx = 0; dx < 2 * RX + 1; ++dx) acc = acc + (MID_T)row[dx] * (MID_T)p[dx];
        sums[i * TX + lx] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = gx0 + RX + lx, y0 = gy0 + RY + ly * PY;
    if (x >= w || y0 >= h) return;
    ACC_T acc[PY];
#pragma unroll
    for (int r = 0; r < PY; ++r) acc[r] = 0;
#pragma unroll
    for (int j = 0; j < PY + 2 * RY; ++j) {
        const MID_T v = sums[(ly * PY + j) * TX + lx];
#pragma unroll
        for (int r = 0; r < PY; ++r) {
            const int dy = j - r;
            if (dy >= 0 && dy <= 2 * RY) acc[r] += (ACC_T)col[dy] * (ACC_T)v;
        }
    }
#pragma unroll
    for (int r = 0; r < PY; ++r) {
        if (y0 + r >= h) break;
#if DIV_NARROW
        dst[(y0 + r) * w + x] = store_int(round_div_int((int)acc[r], (int)DIVISOR_OF(divisor), SHIFT_OF(shift)));
#else
        dst[(y0 + r) * w + x] = store_int(round_div(acc[r], DIVISOR_OF(divisor), SHIFT_OF(shift)));
#endif
    }
}
#endif

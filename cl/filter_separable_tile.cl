// Rank-1 masks up to 9x9 on 8-bit planes, both passes in one kernel, shaped for GPUs (chosen by the
// [filter] key separable_tile; host/filter/gpu_tiles.cpp). A work-group of GX x GY work-items
// writes a tile of 4*GX columns by GY*PY rows:
//   1. its input rows (the tile's rows and RY more above and below) go into local memory as 32-bit
//      words, one word of halo each side (RX <= 4), through the border rule only where the tile
//      touches the image's edge;
//   2. the row pass: each work-item takes three neighbouring words of a staged row and writes the
//      row sums of the 4 columns of the middle one (an int4) into local memory;
//   3. the column pass: each work-item reads its 4 columns' row sums down PY + 2*RY rows (int4
//      loads) and writes PY output words (4 bytes each), rounded and saturated.
// Global memory sees one read of the input (plus the halo) and one write of the output, in whole
// words where the width is a multiple of 4. The integers are the serial reference's (the integer
// plan: row sums in int, column sums in int, long or, ACC 2, double, where every partial sum is an
// integer below 2^53 and so exact), so the bytes are the reference's.
// Defines: BORDER, RX, RY (<= 4), ROW_W, COL_W (the plan's integer factors, comma-separated),
// ROW_SYM, COL_SYM (1: the factor is symmetric, pairs added before their one multiplication),
// ACC (0 int, 1 long, 2 double column sums), DIVISOR, SHIFT (log2 of the divisor, -1 when it is
// not a power of two), DIV_NARROW (the rounding fits int), NO_CLAMP (the result cannot leave
// [0, 255]), GX, GY, PY.
#define SRC_T uchar
#define DST_T uchar
#define INTEGER 1
#include "common/filter_common.h"
#include "common/filter_byte_words.h"

#ifndef ROW_W
#define ROW_W 1, 2, 1
#endif
#ifndef COL_W
#define COL_W 1, 2, 1
#endif
#ifndef ROW_SYM
#define ROW_SYM 0
#endif
#ifndef COL_SYM
#define COL_SYM 0
#endif
#ifndef ACC
#define ACC 0
#endif
#ifndef DIVISOR
#define DIVISOR 16
#define SHIFT 4
#endif
#ifndef DIV_NARROW
#define DIV_NARROW 1
#endif
#ifndef NO_CLAMP
#define NO_CLAMP 0
#endif
#ifndef GX
#define GX 32
#endif
#ifndef GY
#define GY 8
#endif
#ifndef PY
#define PY 4
#endif

#define KW (2 * RX + 1)
#define KH (2 * RY + 1)
#define TWO (4 * GX)            // output columns of a tile
#define THO (GY * PY)           // output rows of a tile
#define IH (THO + 2 * RY)       // staged input rows
#define IW (GX + 2)             // staged words a row: the tile's and one each side

__constant int row_w[KW] = {ROW_W};
__constant int col_w[KH] = {COL_W};

#if ACC == 0
typedef int acc_t;
#elif ACC == 1
typedef long acc_t;
#else
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#endif

// The row sum of the column whose byte is b[c] (b: 12 bytes, the column's 4 middle ones at 4..7).
inline int row_sum(const int* b, const int c) {
#if ROW_SYM
    int s = row_w[RX] * b[c];
#pragma unroll
    for (int d = 1; d <= RX; ++d) s += row_w[RX + d] * (b[c - d] + b[c + d]);
#else
    int s = 0;
#pragma unroll
    for (int d = -RX; d <= RX; ++d) s += row_w[RX + d] * b[c + d];
#endif
    return s;
}

#if ACC == 2
// An int as a double without a conversion instruction (those run at a fraction of the rate on
// GPUs): the bit pattern of 2^52 + 2^31 + v, less 2^52 + 2^31, both exact.
inline double exact_double(const int v) { return as_double(0x4330000000000000UL | (ulong)((uint)v ^ 0x80000000u)) - 0x1.000008p52; }
#define TERM(acc, weight, v) acc = fma((double)(weight), exact_double(v), acc)
#define FIRST(weight, v) ((double)(weight) * exact_double(v))
#else
#define TERM(acc, weight, v) acc += (acc_t)(weight) * (acc_t)(v)
#define FIRST(weight, v) ((acc_t)(weight) * (acc_t)(v))
#endif

// round(acc / DIVISOR), halves up, saturated to a byte (the clamp left out where the host proved
// the result in range: NO_CLAMP).
#if NO_CLAMP
#define SATURATE(v, lo, hi) (v)
#else
#define SATURATE(v, lo, hi) clamp(v, lo, hi)
#endif
inline uint out_byte(const acc_t acc) {
#if ACC == 2
    // acc is an exact integer S, |S| < 2^51: 2^52 + 2^51 + S + DIVISOR/2 is an exact double in
    // [2^52, 2^53), whose 52 mantissa bits are the integer S + 2^51 + DIVISOR/2; shifted down by
    // SHIFT and less 2^(51 - SHIFT), it is round(S / DIVISOR) with no conversion instruction.
    const double biased = acc + (0x1.8p52 + (double)(DIVISOR / 2));
    const long q = (long)((as_ulong(biased) & 0xFFFFFFFFFFFFFUL) >> SHIFT) - (1L << (51 - SHIFT));
    return (uint)SATURATE(q, 0L, 255L);
#elif DIV_NARROW
    return (uint)SATURATE(round_div_int((int)acc, DIVISOR, SHIFT), 0, 255);
#else
    return (uint)SATURATE(round_div((long)acc, DIVISOR, SHIFT), 0L, 255L);
#endif
}

__kernel __attribute__((reqd_work_group_size(GX, GY, 1)))
void filter_separable_tile(__global const uchar* src, __global uchar* dst, const int w, const int h, const int outside) {
    __local uint in[IH * IW];
    __local int4 sums[IH * GX];
    const int lx = get_local_id(0), ly = get_local_id(1), first = ly * GX + lx;
    const int x0 = (int)get_group_id(0) * TWO, y0 = (int)get_group_id(1) * THO;

    // 1. Stage the input: whole aligned words inside the image, the border rule elsewhere.
    if ((w & 3) == 0 && x0 >= 4 && x0 + TWO + 4 <= w && y0 >= RY && y0 + THO + RY <= h) {
        __global const uint* s = (__global const uint*)(src + (y0 - RY) * w + x0 - 4);
        const int ww = w >> 2;
        for (int i = first; i < IH * IW; i += GX * GY) {
            const int r = i / IW;
            in[i] = s[r * ww + (i - r * IW)];
        }
    } else {
        for (int i = first; i < IH * IW; i += GX * GY) {
            const int r = i / IW;
            in[i] = gather_word(src, w, border_index(y0 - RY + r, h), x0 - 4 + 4 * (i - r * IW), outside);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // 2. The row pass: the sums of 4 columns from the 12 bytes around them.
    for (int r = ly; r < IH; r += GY) {
        __local const uint* p = in + r * IW + lx;
        const uchar4 a = as_uchar4(p[0]), m = as_uchar4(p[1]), c = as_uchar4(p[2]);
        const int b[12] = {a.s0, a.s1, a.s2, a.s3, m.s0, m.s1, m.s2, m.s3, c.s0, c.s1, c.s2, c.s3};
        sums[r * GX + lx] = (int4)(row_sum(b, 4), row_sum(b, 5), row_sum(b, 6), row_sum(b, 7));
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // 3. The column pass: PY outputs of 4 columns, each row sum read once.
    const int x = x0 + 4 * lx, yTop = y0 + ly * PY;
    if (x >= w || yTop >= h) return;
    int4 rs[PY + 2 * RY];
#pragma unroll
    for (int j = 0; j < PY + 2 * RY; ++j) rs[j] = sums[(ly * PY + j) * GX + lx];
#pragma unroll
    for (int r = 0; r < PY; ++r) {
        if (yTop + r >= h) break;
        acc_t s0, s1, s2, s3;
#if COL_SYM
        // Pairs of rows with equal weights added first (the host proved the pair sums fit int).
        {
            const int4 v = rs[r + RY];
            s0 = FIRST(col_w[RY], v.s0);
            s1 = FIRST(col_w[RY], v.s1);
            s2 = FIRST(col_w[RY], v.s2);
            s3 = FIRST(col_w[RY], v.s3);
        }
#pragma unroll
        for (int d = 1; d <= RY; ++d) {
            const int4 v = rs[r + RY - d] + rs[r + RY + d];
            TERM(s0, col_w[RY + d], v.s0);
            TERM(s1, col_w[RY + d], v.s1);
            TERM(s2, col_w[RY + d], v.s2);
            TERM(s3, col_w[RY + d], v.s3);
        }
#else
        {
            const int4 v = rs[r];
            s0 = FIRST(col_w[0], v.s0);
            s1 = FIRST(col_w[0], v.s1);
            s2 = FIRST(col_w[0], v.s2);
            s3 = FIRST(col_w[0], v.s3);
        }
#pragma unroll
        for (int d = 1; d < KH; ++d) {
            const int4 v = rs[r + d];
            TERM(s0, col_w[d], v.s0);
            TERM(s1, col_w[d], v.s1);
            TERM(s2, col_w[d], v.s2);
            TERM(s3, col_w[d], v.s3);
        }
#endif
        const uchar4 v = (uchar4)((uchar)out_byte(s0), (uchar)out_byte(s1), (uchar)out_byte(s2), (uchar)out_byte(s3));
        __global uchar* o = dst + (yTop + r) * w + x;
        if ((w & 3) == 0) {
            *(__global uchar4*)o = v;  // x and the row start are multiples of 4: one aligned word
        } else {
            o[0] = v.s0;
            if (x + 1 < w) o[1] = v.s1;
            if (x + 2 < w) o[2] = v.s2;
            if (x + 3 < w) o[3] = v.s3;
        }
    }
}

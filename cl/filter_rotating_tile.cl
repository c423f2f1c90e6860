// The rotating mask on 8-bit planes, shaped for GPUs (chosen by the [filter] key rotating_tile;
// host/filter/gpu_tiles.cpp). Windows up to 9x9. The output is the mean of the window of least
// dispersion among the KW x KH windows that hold the pixel, ties to the first in raster order (see
// docs/filter.md). That choice is a minimum of the key (D, dy, dx) over the windows, D = n*Q - S^2
// (n^2 times the variance, exact in int): a total order, so its minimum over the K x K centres is
// the minimum over the columns of each column's minimum, and the K^2 comparisons per output
// become KH + KW. A work-group writes a TX x TY tile in three steps through local memory, with no
// bank conflicts (neighbouring work-items take neighbouring bytes, words or vectors):
//   1. the input bytes (the tile grown by 2*RW, 2*RH, rounded out to words), through the border
//      rule only where the tile touches the image's edge;
//   2. walking down each column of window centres (the tile's columns grown by RW each side; the
//      local arrays have room for 4, RW <= 4), one a work-item: each staged row's sum and sum of
//      squares over KW bytes as the walk enters it, the window sums S, Q (KH of those, the row
//      entering added and the row leaving taken away), the window's rounded mean (kept in local
//      memory, or in the key) and its key D << 2B; then, for each output row, the least of the KH
//      keys of its column (dy in bits B..2B-1);
//   3. for 4 outputs a work-item, the least of each one's KW column keys (dx in bits 0..B-1, 3
//      vector loads), whose dy and dx name the window; its mean is the output.
// Where the key can carry the window's mean too (MEAN_IN_KEY: 3x3, whose ((D * n + dy * KW + dx) << 8)
// | mean fits 32 bits, ordered as (D, dy, dx)), the least key is the output and step 3 reads no means.
// ROW_DOTS: each staged row's sums from whole words, as byte dot products (NVIDIA's dp4a where DP4A).
// Defines: BORDER, KW, KH (odd, <= 9), KEY_WIDE (keys in ulong; else uint, where D << 2B fits), KEY_BITS_INDEX (B),
// MEAN_IN_KEY, ROW_DOTS, DP4A, TX (a multiple of 4), TY, GX, GY, VR (output rows a work-item's walk in step 3 covers).
#define SRC_T uchar
#define DST_T uchar
#define INTEGER 1
#include "common/filter_common.h"
#include "common/filter_byte_words.h"

#ifndef KW
#define KW 3
#endif
#ifndef KH
#define KH 3
#endif
#ifndef KEY_WIDE
#define KEY_WIDE 0
#endif
#ifndef KEY_BITS_INDEX
#define KEY_BITS_INDEX 2
#endif
#ifndef TX
#define TX 64
#endif
#ifndef TY
#define TY 32
#endif
#ifndef GX
#define GX 16
#endif
#ifndef GY
#define GY 16
#endif
#ifndef VR
#define VR 8
#endif
#ifndef MEAN_IN_KEY
#define MEAN_IN_KEY 0
#endif
#ifndef ROW_DOTS
#define ROW_DOTS 0
#endif

#define RW (KW / 2)
#define RH (KH / 2)
#define NWIN (KW * KH)
#define B KEY_BITS_INDEX
#define CG (TX / 4 + 2)          // groups of 4 centre columns: image columns x0-4 .. x0+TX+3
#define CW (4 * CG)               // centre columns
#define NCOL (TX + 2 * RW)        // the centre columns the outputs use: 4-RW .. TX+3+RW
#define CH (TY + 2 * RH)          // centre rows: image rows y0-RH .. y0+TY+RH-1
#define IWW (TX / 4 + 4)          // staged words a row: image columns x0-8 .. x0+TX+7
#define IH (TY + 4 * RH)          // staged rows: image rows y0-2RH .. y0+TY+2RH-1
#define GROUP (GX * GY)

#if KEY_BITS_INDEX * 2 + 1 > 32
#error KEY_BITS_INDEX too large
#endif
#if MEAN_IN_KEY && KEY_WIDE
#error MEAN_IN_KEY: 32-bit keys only
#endif
// A key's place among the windows that hold an output: dy and dx added to it.
#if MEAN_IN_KEY
#define DY_STEP ((KEY_T)(KW << 8))
#define DX_STEP ((KEY_T)(1 << 8))
#else
#define DY_STEP ((KEY_T)(1 << B))
#define DX_STEP ((KEY_T)1)
#endif
#if KEY_WIDE
typedef ulong KEY_T;
typedef ulong4 key4;
#define convert_key4 convert_ulong4
#else
typedef uint KEY_T;
typedef uint4 key4;
#define convert_key4 convert_uint4
#endif

#if ROW_DOTS
#include "common/byte_dot.h"

// The sum and the sum of squares of the KW bytes from byte `at` of the staged row `row`: four bytes at
// a time, each chunk a funnel shift of two staged words, its bytes past the window masked off.
inline int2 row_stats(__local const uint* row, const int at) {
    __local const uint* p = row + (at >> 2);
    const uint shift = 8u * (uint)(at & 3);
    uint s = 0, q = 0;
#pragma unroll
    for (int c = 0; c < (KW + 3) / 4; ++c) {
        const uint lo = p[c], hi = p[c + 1];
        uint word = (uint)((((ulong)hi << 32) | lo) >> shift);
        if (KW - 4 * c < 4) word &= (1u << (8 * (KW - 4 * c))) - 1u;
        s = byte_dot_unsigned(word, 0x01010101u, s);
        q = byte_dot_unsigned(word, word, q);
    }
    return (int2)((int)s, (int)q);
}
#else
// The sum and the sum of squares of the KW bytes from byte `at` of the staged row `row`.
inline int2 row_stats(__local const uint* row, const int at) {
    __local const uchar* p = (__local const uchar*)row + at;
    int s = 0, q = 0;
#pragma unroll
    for (int d = 0; d < KW; ++d) {
        const int v = p[d];
        s += v;
        q += v * v;
    }
    return (int2)(s, q);
}
#endif

__kernel __attribute__((reqd_work_group_size(GX, GY, 1)))
void filter_rotating_tile(__global const uchar* src, __global uchar* dst, const int w, const int h, const int outside) {
    __local uint in[IH * IWW + 1];      // (+1: the last row's funnel shifts read a word past it)
#if !MEAN_IN_KEY
    __local uchar means[CH * CW];       // each window's rounded mean
#endif
    __local key4 columnKeys[TY * CG];   // per output row and centre column: the least key of the column
    __local KEY_T* columnKey = (__local KEY_T*)columnKeys;
    const int first = get_local_id(1) * GX + get_local_id(0);
    const int x0 = (int)get_group_id(0) * TX, y0 = (int)get_group_id(1) * TY;

    // 1. The input words.
    if ((w & 3) == 0 && x0 >= 8 && x0 + TX + 8 <= w && y0 >= 2 * RH && y0 + TY + 2 * RH <= h) {
        __global const uint* s = (__global const uint*)(src + (y0 - 2 * RH) * w + x0 - 8);
        const int ww = w >> 2;
        for (int i = first; i < IH * IWW; i += GROUP) {
            const int r = i / IWW;
            in[i] = s[r * ww + (i - r * IWW)];
        }
    } else {
        for (int i = first; i < IH * IWW; i += GROUP) {
            const int r = i / IWW;
            in[i] = gather_word(src, w, border_index(y0 - 2 * RH + r, h), x0 - 8 + 4 * (i - r * IWW), outside);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // 2. Down each centre column, one a work-item, VR output rows a walk: centre rows o0 ..
    // o0+VR+2RH-1 (the window at centre row c covers staged rows c .. c+KH-1; output row o's windows
    // are centre rows o .. o+2RH). Centre column g's windows take staged bytes g+4-RW .. g+4+RW of a
    // row; each staged row's sums are taken once, as the walk enters it, and kept in a ring of KH.
    // Only the centre columns the outputs use are walked.
    for (int i = first; i < NCOL * ((TY + VR - 1) / VR); i += GROUP) {
        const int run = i / NCOL, col = i - run * NCOL + 4 - RW, o0 = run * VR;
        const int at = col + 4 - RW;  // the window's first byte in a staged row
        int ringS[KH], ringQ[KH], s = 0, q = 0;
#pragma unroll
        for (int d = 0; d < KH - 1; ++d) {
            const int2 t = row_stats(in + (o0 + d) * IWW, at);
            ringS[d] = t.x;
            ringQ[d] = t.y;
            s += ringS[d];
            q += ringQ[d];
        }
        KEY_T keys[VR + 2 * RH];
#pragma unroll
        for (int c = 0; c < VR + 2 * RH; ++c) {
            const int row = o0 + c;  // centre row; staged row o0 + t is in ring place t % KH
            if (row < CH) {
                const int enter = (c + KH - 1) % KH, leave = c % KH;
                const int2 t = row_stats(in + (row + KH - 1) * IWW, at);
                ringS[enter] = t.x;
                ringQ[enter] = t.y;
                s += ringS[enter];
                q += ringQ[enter];
                // Rounded half up (s >= 0). Walks overlap by 2*RH centre rows: each row's mean is
                // stored by one of them (its first VR rows; the last walk, every row it has).
                const uint mean = (uint)((2 * s + NWIN) / (2 * NWIN));
#if MEAN_IN_KEY
                keys[c] = (KEY_T)(NWIN * q - s * s) * (KEY_T)(NWIN << 8) + mean;
#else
                if (c < VR || o0 + VR >= TY) means[row * CW + col] = (uchar)mean;
                keys[c] = (KEY_T)(NWIN * q - s * s) << (2 * B);
#endif
                s -= ringS[leave];
                q -= ringQ[leave];
            }
            if (c >= 2 * RH && o0 + c - 2 * RH < TY) {
                KEY_T least = keys[c - 2 * RH];
#pragma unroll
                for (int dy = 1; dy < KH; ++dy) least = min(least, keys[c - 2 * RH + dy] + (KEY_T)dy * DY_STEP);
                columnKey[(o0 + c - 2 * RH) * CW + col] = least;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // 3. Each output: the least of its KW column keys (centre groups m .. m+2 hold them: output j of
    // group m has its centres at 4+j-RW .. 4+j+RW of those 12), then the mean of that window.
    for (int i = first; i < TY * (TX / 4); i += GROUP) {
        const int o = i / (TX / 4), m = i - o * (TX / 4);
        const int y = y0 + o, x = x0 + 4 * m;
        if (y >= h || x >= w) continue;
        __local const key4* p = columnKeys + o * CG + m;
        const key4 a = p[0], b = p[1], c = p[2];
        const KEY_T keys[12] = {a.s0, a.s1, a.s2, a.s3, b.s0, b.s1, b.s2, b.s3, c.s0, c.s1, c.s2, c.s3};
        uchar out[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            KEY_T least = keys[4 + j - RW];
#pragma unroll
            for (int dx = 1; dx < KW; ++dx) least = min(least, keys[4 + j - RW + dx] + (KEY_T)dx * DX_STEP);
#if MEAN_IN_KEY
            out[j] = (uchar)(least & 0xffu);
#else
            const int dy = (int)(least >> B) & ((1 << B) - 1), dx = (int)least & ((1 << B) - 1);
            const int col = 4 * m + 4 + j - RW + dx;  // centre column in the grid of groups
            out[j] = means[(o + dy) * CW + col];
#endif
        }
        __global uchar* d = dst + y * w + x;
        if ((w & 3) == 0) {
            *(__global uchar4*)d = (uchar4)(out[0], out[1], out[2], out[3]);
        } else {
            d[0] = out[0];
            if (x + 1 < w) d[1] = out[1];
            if (x + 2 < w) d[2] = out[2];
            if (x + 3 < w) d[3] = out[3];
        }
    }
}

// Medians of 8-bit planes by a selection network shared over a tile of outputs: the windows of
// neighbouring outputs overlap, and the network (built by host/filter/median_network.cpp, appended
// to this file as median_network()) sorts each shared piece once, merges it into every output that
// holds it and drops the values that can no longer be a median (Adams 2021; Sugy 2025). Min and max
// only: no branch depends on the data.
//
// A work-group reads its patch of the image into local memory through the border rule, then each
// work-item computes two tiles of NTX x NTY outputs, one above the other, as the two 16-bit lanes of
// its values (one instruction for both on NVIDIA's compute capability 9.0 with U16X2 = 1).
// Defines: KW (odd), RX = RY = KW / 2, BORDER, NTX, NTY (a lane's tile), GX, GY (the work-group), U16X2,
// SORTED_COLUMNS (each patch column's shared rows sorted once by the work-group; the host's network
// then reads them sorted, and appends median_sort_core() too).
#include "common/filter_common.h"

#ifndef KW
#define KW 9
#endif
#ifndef NTX
#define NTX 4
#endif
#ifndef NTY
#define NTY 2
#endif
#ifndef GX
#define GX 16
#endif
#ifndef GY
#define GY 8
#endif
#ifndef U16X2
#define U16X2 0
#endif
#ifndef SORTED_COLUMNS
#define SORTED_COLUMNS 0
#endif

#define ITEM_ROWS (2 * NTY)
#define PATCH_W (GX * NTX + KW - 1)
#define PATCH_H (GY * ITEM_ROWS + KW - 1)
#define PATCH_COLUMNS_PER_ITEM ((PATCH_W + GX - 1) / GX)
// The rows of a lane's tile that all its output rows share: rows NTY - 1 to KW - 1 of its patch.
#define CORE_LEN (KW - NTY + 1)

#if U16X2
typedef uint LANE_T;
inline uint lane_min(const uint a, const uint b) {
    uint r;
    asm("min.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
inline uint lane_max(const uint a, const uint b) {
    uint r;
    asm("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#define LANE_MIN(a, b) lane_min(a, b)
#define LANE_MAX(a, b) lane_max(a, b)
#define LANE_PACK(lo, hi) ((uint)(lo) | ((uint)(hi) << 16))
#define LANE_LO(v) ((uchar)(v))
#define LANE_HI(v) ((uchar)((v) >> 16))
#else
typedef ushort2 LANE_T;
#define LANE_MIN(a, b) min(a, b)
#define LANE_MAX(a, b) max(a, b)
#define LANE_PACK(lo, hi) ((ushort2)((ushort)(lo), (ushort)(hi)))
#define LANE_LO(v) ((uchar)(v).x)
#define LANE_HI(v) ((uchar)(v).y)
#endif

// The work-item's patch starts at `patch` (row stride PATCH_W); its outputs at (x0, y0).
#define MEDIAN_NETWORK_PARAMS local const uchar* patch, local const LANE_T* sorted, global uchar* dst, const int width, const int height, \
                              const int x0, const int y0
#define MEDIAN_LOAD(r, c) LANE_PACK(patch[(r) * PATCH_W + (c)], patch[((r) + NTY) * PATCH_W + (c)])
// SORTED_COLUMNS: the i-th smallest of the shared rows of patch column c, from the work-group's sorts.
#define MEDIAN_LOAD_SORTED(c, i) sorted[(c) * CORE_LEN + (i)]
#define MEDIAN_STORE(y, x, v) median_store(dst, width, height, x0 + (x), y0 + (y), v)

inline void median_store(global uchar* dst, const int width, const int height, const int x, const int y, const LANE_T v) {
    if (x >= width) return;
    if (y < height) dst[(size_t)y * (size_t)width + x] = LANE_LO(v);
    if (y + NTY < height) dst[(size_t)(y + NTY) * (size_t)width + x] = LANE_HI(v);
}

void median_network(MEDIAN_NETWORK_PARAMS);
#if SORTED_COLUMNS
void median_sort_core(LANE_T* v);
#endif

__kernel __attribute__((reqd_work_group_size(GX, GY, 1))) void median_network_tile(const global uchar* restrict src, global uchar* restrict dst,
                                                                                   const int width, const int height, const int outsideValue) {
    local uchar tile[PATCH_H * PATCH_W];
    const uchar outside = (uchar)outsideValue;
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int gx0 = (int)get_group_id(0) * (GX * NTX), gy0 = (int)get_group_id(1) * (GY * ITEM_ROWS);
    // Each work-item reads the patch's columns lx, lx + GX, ... of its rows ly, ly + GY, ...: the
    // border rule once per column and once per row.
    int column[PATCH_COLUMNS_PER_ITEM];
#pragma unroll
    for (int j = 0; j < PATCH_COLUMNS_PER_ITEM; ++j) column[j] = border_index(gx0 - RX + lx + j * GX, width);
    for (int r = ly; r < PATCH_H; r += GY) {
        const int row = border_index(gy0 - RY + r, height);
        const global uchar* line = src + (size_t)max(row, 0) * (size_t)width;
#pragma unroll
        for (int j = 0; j < PATCH_COLUMNS_PER_ITEM; ++j)
            if (lx + j * GX < PATCH_W) tile[r * PATCH_W + lx + j * GX] = (row < 0 || column[j] < 0) ? outside : line[column[j]];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if SORTED_COLUMNS
    // The shared rows of every patch column for every row of work-items, sorted once here: the
    // work-items of a row that read a column ((KW - 1 + NTX) / NTX of them: 3 at 9x9 in tiles 4 wide)
    // no longer each sort it.
    local LANE_T sorted[GY * PATCH_W * CORE_LEN];
    for (int s = ly * GX + lx; s < GY * PATCH_W; s += GX * GY) {
        const int sy = s / PATCH_W, c = s - sy * PATCH_W;
        local const uchar* firstShared = tile + (sy * ITEM_ROWS + NTY - 1) * PATCH_W + c;
        LANE_T v[CORE_LEN];
#pragma unroll
        for (int i = 0; i < CORE_LEN; ++i) v[i] = LANE_PACK(firstShared[i * PATCH_W], firstShared[(i + NTY) * PATCH_W]);
        median_sort_core(v);
#pragma unroll
        for (int i = 0; i < CORE_LEN; ++i) sorted[s * CORE_LEN + i] = v[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    local const LANE_T* mine = sorted + (ly * PATCH_W + lx * NTX) * CORE_LEN;
#else
    local const LANE_T* mine = 0;
#endif
    median_network(tile + ly * ITEM_ROWS * PATCH_W + lx * NTX, mine, dst, width, height, gx0 + lx * NTX, gy0 + ly * ITEM_ROWS);
}

// The distributed k-Wave solver's transposes on the device (host/kwave/box_copy.cpp): a box of
// e0 x e1 x e2 complex values copied from one strided layout into another, so that the host hands
// MPI contiguous blocks and a rank's own block never leaves its device. Point (a, b, c) is read at
// srcOffset + a s0 + b s1 + c s2 and written at dstOffset + a d0 + b d1 + c d2.
#include "common/real.h"

#ifndef BOX_TILE
#define BOX_TILE 16
#endif

// Work-item (a, b, c) copies its point; dimension 0, rounded up to the work-group, is contiguous on
// both sides (the unpacks).
__kernel void kwave_box_copy(__global const real2* src, ulong srcOffset, ulong s0, ulong s1, ulong s2,
                             __global real2* dst, ulong dstOffset, ulong d0, ulong d1, ulong d2, ulong e0, ulong e1) {
    const ulong a = get_global_id(0), b = get_global_id(1), c = get_global_id(2);
    if (a >= e0 || b >= e1) return;
    dst[dstOffset + a * d0 + b * d1 + c * d2] = src[srcOffset + a * s0 + b * s1 + c * s2];
}

// The same through a tile in local memory, for boxes contiguous along b in the source and along a in
// the destination (the packs, which transpose): the work-group reads a tile with neighbouring
// work-items along b and writes it with them along a, so both sides are read and written in runs.
__kernel __attribute__((reqd_work_group_size(BOX_TILE, BOX_TILE, 1)))
void kwave_box_transpose(__global const real2* src, ulong srcOffset, ulong s0, ulong s1, ulong s2,
                         __global real2* dst, ulong dstOffset, ulong d0, ulong d1, ulong d2, ulong e0, ulong e1) {
    __local real2 tile[BOX_TILE][BOX_TILE + 1];
    const ulong a0 = get_group_id(0) * BOX_TILE, b0 = get_group_id(1) * BOX_TILE, c = get_global_id(2);
    const uint x = get_local_id(0), y = get_local_id(1);
    ulong a = a0 + y, b = b0 + x;
    if (a < e0 && b < e1) tile[y][x] = src[srcOffset + a * s0 + b * s1 + c * s2];
    barrier(CLK_LOCAL_MEM_FENCE);
    a = a0 + x;
    b = b0 + y;
    if (a < e0 && b < e1) dst[dstOffset + a * d0 + b * d1 + c * d2] = tile[x][y];
}

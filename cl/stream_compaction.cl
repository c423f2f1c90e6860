// Order-preserving stream compaction of per-item flags (uchar, nonzero = selected) into the list of
// selected indices, for the two-phase dispatch. Three kernels:
//   compact_count      each work-group counts the flags of its tile
//   compact_scan_tiles one work-group turns the tile counts into exclusive offsets (and the total)
//   compact_scatter    each work-group scans its tile again and writes the indices at its offset
// A tile is get_local_size(0) * COMPACT_ITEMS items; work-item l of tile t owns the COMPACT_ITEMS
// consecutive items from t*T + l*COMPACT_ITEMS, so that the output is in increasing index order.
#include "common/real.h"

#ifndef COMPACT_ITEMS
#define COMPACT_ITEMS 8
#endif

// Exclusive prefix sum of one uint per work-item over the work-group (Hillis-Steele in local
// memory, any work-group size); *total receives the sum of all. Every work-item must call it.
inline uint group_exclusive_scan(const uint v, __local uint* scratch, uint* total) {
    const uint lid = get_local_id(0), w = get_local_size(0);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint offset = 1; offset < w; offset <<= 1) {
        const uint add = lid >= offset ? scratch[lid - offset] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint inclusive = scratch[lid];
    *total = scratch[w - 1];
    barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused by the caller's next scan
    return inclusive - v;
}

inline ulong first_item_of_work_item(void) {
    return ((ulong)get_group_id(0) * get_local_size(0) + get_local_id(0)) * COMPACT_ITEMS;
}

inline uint count_own_flags(__global const uchar* flags, const uint n, const ulong first) {
    uint c = 0;
    for (uint j = 0; j < COMPACT_ITEMS; ++j) {
        const ulong i = first + j;
        if (i < n && flags[i]) ++c;
    }
    return c;
}

__kernel void compact_count(__global const uchar* flags, const uint n, __global uint* tileCounts,
                            __local uint* scratch) {
    uint total;
    group_exclusive_scan(count_own_flags(flags, n, first_item_of_work_item()), scratch, &total);
    if (get_local_id(0) == 0) tileCounts[get_group_id(0)] = total;
}

// Launched as ONE work-group. In place: tileCounts[t] becomes the number of flags before tile t.
__kernel void compact_scan_tiles(__global uint* tileCounts, const uint tiles, __global uint* total,
                                 __local uint* scratch) {
    const uint lid = get_local_id(0), chunk = get_local_size(0) * COMPACT_ITEMS;
    uint carry = 0;
    for (uint start = 0; start < tiles; start += chunk) {  // the same trip count for every work-item
        const uint first = start + lid * COMPACT_ITEMS;
        uint own[COMPACT_ITEMS];
        uint sum = 0;
        for (uint j = 0; j < COMPACT_ITEMS; ++j) {
            own[j] = first + j < tiles ? tileCounts[first + j] : 0u;
            sum += own[j];
        }
        uint chunkTotal;
        uint running = carry + group_exclusive_scan(sum, scratch, &chunkTotal);
        for (uint j = 0; j < COMPACT_ITEMS; ++j) {
            if (first + j < tiles) tileCounts[first + j] = running;
            running += own[j];
        }
        carry += chunkTotal;
    }
    if (lid == 0) *total = carry;
}

__kernel void compact_scatter(__global const uchar* flags, const uint n, __global const uint* tileOffsets,
                              __global uint* indices, __local uint* scratch) {
    const ulong first = first_item_of_work_item();
    uint total;
    uint out = tileOffsets[get_group_id(0)] +
               group_exclusive_scan(count_own_flags(flags, n, first), scratch, &total);
    for (uint j = 0; j < COMPACT_ITEMS; ++j) {
        const ulong i = first + j;
        if (i < n && flags[i]) indices[out++] = (uint)i;
    }
}

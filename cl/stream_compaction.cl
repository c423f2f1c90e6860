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
#define GROUP_SCAN_ITEMS COMPACT_ITEMS
#include "common/group_scan.h"

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
    const uint sum = group_scan_in_place(tileCounts, tiles, scratch);
    if (get_local_id(0) == 0) *total = sum;
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

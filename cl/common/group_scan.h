// Work-group prefix sums of uint, shared by the stream compaction (cl/stream_compaction.cl) and the
// counting sort of the mesh grid (cl/mesh_grid.cl).
//
// GROUP_SCAN_ITEMS: how many consecutive values one work-item of group_scan_in_place holds; the
// includer defines it before the include when it wants another count than 8.
#ifndef PORTACL_GROUP_SCAN_H
#define PORTACL_GROUP_SCAN_H

#ifndef GROUP_SCAN_ITEMS
#define GROUP_SCAN_ITEMS 8
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

// Run by ONE work-group, every work-item calling it: in place, values[t] becomes the sum of the
// values before t; returns the sum of all. The values go in chunks of local size * GROUP_SCAN_ITEMS,
// work-item l holding the GROUP_SCAN_ITEMS consecutive ones from l * GROUP_SCAN_ITEMS of each.
inline uint group_scan_in_place(__global uint* values, const uint count, __local uint* scratch) {
    const uint lid = get_local_id(0), chunk = get_local_size(0) * GROUP_SCAN_ITEMS;
    uint carry = 0;
    for (uint start = 0; start < count; start += chunk) {  // the same trip count for every work-item
        const uint first = start + lid * GROUP_SCAN_ITEMS;
        uint own[GROUP_SCAN_ITEMS];
        uint sum = 0;
        for (uint j = 0; j < GROUP_SCAN_ITEMS; ++j) {
            own[j] = first + j < count ? values[first + j] : 0u;
            sum += own[j];
        }
        uint chunkTotal;
        uint running = carry + group_exclusive_scan(sum, scratch, &chunkTotal);
        for (uint j = 0; j < GROUP_SCAN_ITEMS; ++j) {
            if (first + j < count) values[first + j] = running;
            running += own[j];
        }
        carry += chunkTotal;
    }
    return carry;
}

#endif

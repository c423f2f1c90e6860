// Lee-Kashyap-Chu thinning (include/portacl/skeleton.hpp) on a volume padded by one background voxel.
//
// A border's pass has three launches. skel_candidates collects the candidates over the image as it
// stands (in any order: an atomic append). The serial algorithm then rechecks them in raster order,
// so that a candidate sees the final state of the candidates before it and the original state (set)
// of those after it. skel_resolve reproduces that outcome in rounds: a pending candidate decides as
// soon as its decision no longer depends on the earlier candidates of its 26-neighbourhood that were
// still pending after the last round: when there are none, or when every assignment of those few
// gives the same answer. Rounds read one state array and write the other (no data races).
// The earliest pending candidate can always decide, so the rounds end; most candidates decide in the
// first. skel_apply removes the candidates decided for removal. Integer results: every device gives
// the same skeleton as the serial reference.
//
// A neighbourhood is a 27-bit mask, bit (dz+1)*9 + (dy+1)*3 + (dx+1), centre bit 13 left clear.
#ifndef SKEL_MAX_UNKNOWN
#define SKEL_MAX_UNKNOWN 6  // pending earlier neighbours whose 2^n assignments a candidate tries
#endif

#define SKEL_NONE 0     // not a candidate of this pass
#define SKEL_PENDING 1
#define SKEL_REMOVE 2
#define SKEL_KEEP 3

#define SKEL_ALL 0x7ffffffu
#define SKEL_X0 0x1249249u  // bits with dx = -1
#define SKEL_X2 0x4924924u  // dx = +1
#define SKEL_Y0 0x01c0e07u  // dy = -1
#define SKEL_Y2 0x70381c0u  // dy = +1

// The object voxels other than the centre that touch each edge (12) and each vertex (8) of the
// centre's cube; a face is touched only by its face neighbour (bits 4, 10, 12, 14, 16, 22).
__constant uint kEdgeTouch[12] = {0x0000412, 0x0001018, 0x0004030, 0x0010090, 0x0001600, 0x0004c00,
                                  0x0019000, 0x0034000, 0x0480400, 0x0601000, 0x0c04000, 0x2410000};
__constant uint kVertexTouch[8] = {0x000161b, 0x0004c36, 0x00190d8, 0x00341b0,
                                   0x06c1600, 0x0d84c00, 0x3619000, 0x6c34000};
#define SKEL_FACES 0x0415410u

// The 3x3x3 box dilation (26-adjacency plus the voxel itself) of a neighbourhood mask.
// Every step masks to the 27 bits, so that nothing shifted past bit 26 comes back on a later shift.
inline uint dilate26(uint m) {
    m = (m | ((m << 1) & ~SKEL_X0) | ((m >> 1) & ~SKEL_X2)) & SKEL_ALL;
    m = (m | ((m << 3) & ~SKEL_Y0) | ((m >> 3) & ~SKEL_Y2)) & SKEL_ALL;
    return (m | (m << 9) | (m >> 9)) & SKEL_ALL;
}

// At most one 26-connected piece among the neighbours (scikit-image's is_simple_point).
inline int at_most_one_piece(uint n) {
    if (!n) return 1;
    uint piece = n & (0u - n);
    for (;;) {
        const uint grown = dilate26(piece) & n;
        if (grown == piece) break;
        piece = grown;
    }
    return piece == n;
}

// The Euler characteristic of the union of closed object cubes is unchanged by removing the centre:
// its open cube (+1), and every face (-1), edge (+1) and vertex (-1) that no other object voxel touches.
inline int euler_invariant(uint n) {
    int change = 1 - (6 - popcount(n & SKEL_FACES));
    for (int e = 0; e < 12; ++e) change += (n & kEdgeTouch[e]) == 0;
    for (int v = 0; v < 8; ++v) change -= (n & kVertexTouch[v]) == 0;
    return change == 0;
}

inline uint neighbourhood(__global const uchar* img, size_t p, int py, int px) {
    uint n = 0;
    int bit = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx, ++bit)
                if (bit != 13 && img[p + ((long)dz * py + dy) * px + dx]) n |= 1u << bit;
    return n;
}

// Copies the 0/1 mask into the interior of the zeroed padded image.
__kernel void skel_pad(__global const uchar* mask, __global uchar* img, const int nz, const int ny, const int nx) {
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)nz * ny * nx) return;
    const int x = (int)(gid % nx), y = (int)((gid / nx) % ny), z = (int)(gid / ((size_t)nx * ny));
    img[((size_t)(z + 1) * (ny + 2) + (y + 1)) * (nx + 2) + (x + 1)] = mask[gid];
}

// The candidates of the border whose background neighbour is at offset (bz, by, bx): appended to
// list (count in counters[0]) and marked pending in both state arrays.
__kernel void skel_candidates(__global const uchar* img, __global uchar* state, __global uchar* state2, __global uint* list,
                              volatile __global uint* counters, const int pz, const int py, const int px,
                              const int bz, const int by, const int bx) {
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)pz * py * px || !img[gid]) return;
    const int x = (int)(gid % px), y = (int)((gid / px) % py), z = (int)(gid / ((size_t)px * py));
    if (x == 0 || y == 0 || z == 0 || x == px - 1 || y == py - 1 || z == pz - 1) return;
    if (img[gid + ((long)bz * py + by) * px + bx]) return;
    const uint n = neighbourhood(img, gid, py, px);
    if (popcount(n) == 1 || !euler_invariant(n) || !at_most_one_piece(n)) return;
    list[atomic_inc(&counters[0])] = (uint)gid;
    state[gid] = SKEL_PENDING;
    state2[gid] = SKEL_PENDING;
}

// One round of the ordered recheck over the list (any global size: each work-item strides over it).
// It reads the candidates' states as the last round left them (`state`) and writes every
// candidate's state after this round to `next`, so that no work-item reads what another writes.
// Pending candidates that stay pending are counted in counters[slot].
__kernel void skel_resolve(__global const uchar* img, __global const uchar* state, __global uchar* next,
                           __global const uint* list, volatile __global uint* counters, const int py, const int px,
                           const int slot) {
    const uint count = counters[0];
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
        const uint p = list[i];
        if (state[p] != SKEL_PENDING) {
            next[p] = state[p];
            continue;
        }
        uint known = 0, unknown = 0;
        int bit = 0;
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx, ++bit) {
                    if (bit == 13) continue;
                    const uint q = (uint)((long)p + ((long)dz * py + dy) * px + dx);
                    const uchar s = bit < 13 ? state[q] : SKEL_NONE;  // raster-earlier neighbours are bits 0..12
                    if (s == SKEL_PENDING) unknown |= 1u << bit;
                    else if (s == SKEL_KEEP || (s == SKEL_NONE && img[q])) known |= 1u << bit;
                }
        int decided = 0, simple = 0;
        if (!unknown) {
            decided = 1;
            simple = at_most_one_piece(known);
        } else if (popcount(unknown) <= SKEL_MAX_UNKNOWN) {
            simple = at_most_one_piece(known | unknown);
            decided = 1;
            for (uint sub = (0u - unknown) & unknown; sub != 0 && decided; sub = (sub - unknown) & unknown)
                decided = at_most_one_piece(known | (unknown & ~sub)) == simple;
        }
        next[p] = decided ? (simple ? SKEL_REMOVE : SKEL_KEEP) : SKEL_PENDING;
        if (!decided) atomic_inc(&counters[slot]);
    }
}

// Removes the candidates decided for removal (in `state`, the last round's), counting them in
// counters[slot], and clears the marks of both state arrays; the candidates' number goes to
// counters[countSlot].
__kernel void skel_apply(__global uchar* img, __global uchar* state, __global uchar* state2, __global const uint* list,
                         volatile __global uint* counters, const int slot, const int countSlot) {
    const uint count = counters[0];
    if (get_global_id(0) == 0) counters[countSlot] = count;
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
        const uint p = list[i];
        if (state[p] == SKEL_REMOVE) {
            img[p] = 0;
            atomic_inc(&counters[slot]);
        }
        state[p] = SKEL_NONE;
        state2[p] = SKEL_NONE;
    }
}

// The fully parallel thinning (--method parallel). Per pass, per border direction (Lee's six, in the
// same order), the direction's border voxels (object voxels whose neighbour at (bz, by, bx) is
// background as the direction starts) are taken, then one skel_subfield launch per subfield, the
// voxels whose unpadded coordinates have the parities (z, y, x) = bits 2, 1, 0 of `subfield`, removes
// every border voxel of it that is simple (Lee's two conditions) and not a curve end point (one
// neighbour). No two voxels of a subfield are 26-adjacent, so each decides on neighbours no other
// work-item of the launch changes, and removing all of them together is removing simple points one
// after another: the topology is kept.
//
// Only the surface is visited: the active list holds every object voxel with a background face
// neighbour (and, until the next direction drops them, the voxels removed since). Every direction's
// border lies in it, so skel_active_border finds the border from the list instead of the volume; it
// also adds the voxels the last removals exposed. A voxel outside the set whose face neighbour is
// background had only removed voxels there, all removed since the last direction (earlier ones would
// have added it), and all still in the list: the first of them in the order of `face` adds it, and
// no other work-item reads or writes its mark in the set. The border list is kept in eight buckets,
// one per subfield, each as long as the object has voxels of that subfield (their starts in
// counters[SKEL_BUCKET_START + s]), so that a subfield's launch visits only its own voxels.
//
// counters: the active list's length of direction step t in slot SKEL_ACTIVE + t % 3 and its border
// buckets' in SKEL_BORDER + 8 * (t % 3) + s; step t fills the active slot of t + 1 and its own border
// slots, and clears the slots step t + 1 fills next (each is then read by no launch still to come),
// so no host write comes between launches. SKEL_REMOVED counts every removal.
#define SKEL_ACTIVE 0
#define SKEL_REMOVED 3
#define SKEL_BORDER 8
#define SKEL_BUCKET_START 32

// Object voxels of the padded image that touch the background by a face: the first active list.
__kernel void skel_surface(__global const uchar* img, __global uchar* inSet, __global uint* active,
                           volatile __global uint* counters, const int pz, const int py, const int px) {
    __local uint groupCount, groupBase;
    const size_t gid = get_global_id(0);
    const size_t plane = (size_t)py * px;
    int take = 0;
    // An object voxel is interior (the padding is background), so its six face neighbours exist.
    if (gid < (size_t)pz * plane && img[gid])
        take = !img[gid - 1] || !img[gid + 1] || !img[gid - px] || !img[gid + px] || !img[gid - plane] || !img[gid + plane];
    if (get_local_id(0) == 0) groupCount = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint at = take ? atomic_inc(&groupCount) : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && groupCount) groupBase = atomic_add(&counters[SKEL_ACTIVE], groupCount);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (take) {
        active[groupBase + at] = (uint)gid;
        inSet[gid] = 1;
    }
}

// Direction step `step`: keeps the list's object voxels in the next list, adds the object voxels the
// last removals exposed, and puts those of them whose neighbour at (bz, by, bx) is background in
// their subfield's border bucket. Any global size that is a multiple of the work-group size (at
// least 8): work-groups stride over the list.
__kernel void skel_active_border(__global const uchar* img, __global uchar* inSet, __global const uint* active,
                                 __global uint* nextActive, __global uint* border, volatile __global uint* counters,
                                 const int py, const int px, const int bz, const int by, const int bx, const int step) {
    __local uint groupActive, baseActive, groupBorder[8], baseBorder[8];
    const uint count = counters[SKEL_ACTIVE + step % 3];
    const uint lid = get_local_id(0);
    const int borderSlot = SKEL_BORDER + 8 * (step % 3);
    if (get_group_id(0) == 0 && lid < 8) counters[SKEL_BORDER + 8 * ((step + 1) % 3) + lid] = 0;
    if (get_global_id(0) == 0) counters[SKEL_ACTIVE + (step + 2) % 3] = 0;
    const long plane = (long)py * px;
    const long face[6] = {-plane, -px, -1, 1, px, plane};  // face[5 - k] == -face[k]
    const long toBackground = bz * plane + by * px + bx;
    for (uint first = get_group_id(0) * get_local_size(0); first < count; first += get_global_size(0)) {
        if (lid == 0) groupActive = 0;
        if (lid < 8) groupBorder[lid] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint keep[6], bucketAt[6];
        uchar bucket[6];
        uint kept = 0;
        if (first + lid < count) {
            const uint p = active[first + lid];
            if (img[p]) {
                keep[kept++] = p;
            } else {
                for (int k = 0; k < 6; ++k) {
                    const long q = (long)p + face[k];
                    if (!img[q]) continue;
                    int j = 0;  // q's first background face neighbour; p is one of them
                    while (img[q + face[j]]) ++j;
                    if (j != 5 - k || inSet[q]) continue;
                    inSet[q] = 1;
                    keep[kept++] = (uint)q;
                }
            }
            for (uint j = 0; j < kept; ++j) {
                const uint p = keep[j];
                bucket[j] = 8;  // not on this border
                if (img[(long)p + toBackground]) continue;
                // The subfield: parities of the unpadded coordinates, opposite to the padded ones.
                const uint x = p % (uint)px, y = (p / (uint)px) % (uint)py, z = p / (uint)plane;
                bucket[j] = (uchar)((((z + 1) & 1) << 2) | (((y + 1) & 1) << 1) | ((x + 1) & 1));
                bucketAt[j] = atomic_inc(&groupBorder[bucket[j]]);
            }
        }
        const uint atActive = kept ? atomic_add(&groupActive, kept) : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0 && groupActive) baseActive = atomic_add(&counters[SKEL_ACTIVE + (step + 1) % 3], groupActive);
        if (lid < 8 && groupBorder[lid])
            baseBorder[lid] = counters[SKEL_BUCKET_START + lid] + atomic_add(&counters[borderSlot + lid], groupBorder[lid]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < kept; ++j) {
            nextActive[baseActive + atActive + j] = keep[j];
            if (bucket[j] < 8) border[baseBorder[bucket[j]] + bucketAt[j]] = keep[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // the group's counts are reset at the top of the next round
    }
}

// Removes the simple, non-end voxels of subfield `subfield`'s border bucket of direction step `step`
// (any global size: each work-item strides over the bucket).
__kernel void skel_subfield(__global uchar* img, __global const uint* border, volatile __global uint* counters,
                            const int py, const int px, const int subfield, const int step) {
    const uint count = counters[SKEL_BORDER + 8 * (step % 3) + subfield];
    const uint start = counters[SKEL_BUCKET_START + subfield];
    uint removed = 0;
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
        const uint p = border[start + i];
        const uint n = neighbourhood(img, p, py, px);
        if (popcount(n) == 1 || !euler_invariant(n) || !at_most_one_piece(n)) continue;
        img[p] = 0;
        ++removed;
    }
    if (removed) atomic_add(&counters[SKEL_REMOVED], removed);
}

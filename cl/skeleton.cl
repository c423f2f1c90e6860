// Lee-Kashyap-Chu thinning (include/portacl/skeleton.hpp) on a volume padded by one background voxel.
//
// A border's pass (a step) has three launches. skel_candidates collects the candidates over the image
// as it stands (in any order). The serial algorithm then rechecks them in raster order, so that a
// candidate sees the final state of the candidates before it and the original state (set) of those
// after it. A candidate can decide as soon as its decision no longer depends on the earlier candidates
// of its 26-neighbourhood that are still pending: when there are none, or when every assignment of
// those few gives the same answer. skel_first_round tries every candidate once, every earlier
// candidate neighbour still pending (most decide there), and lists those it leaves pending; skel_tail,
// one work-group, repeats rounds over that short list until none is pending, each chunk of work-items
// reading the decisions of the chunks and rounds before it (barriers between them). The earliest
// pending candidate can always decide, so the rounds end. A removed candidate is cleared from the
// image at once: during the step only non-candidates are read from the image, candidates from their
// marks and decisions. Integer results: every device gives the same skeleton as the serial reference.
//
// Two bytes per voxel: `mark` holds the stamp (1 to 63) of the last step the voxel was a candidate in,
// `decision` the stamp of the step it was decided in (bits 7..2) over SKEL_REMOVE or SKEL_KEEP
// (bits 1..0). A byte with another stamp is not of this step, so nothing clears them between steps
// (the host clears them once per cycle of stamps). The counters (SKEL_LEE_*) stay on the device:
// skel_tail, the step's last launch, adds the step's counts to the totals and clears the slots the
// next step fills; the host reads them once per pass, while the next pass runs.
//
// A neighbourhood is a 27-bit mask, bit (dz+1)*9 + (dy+1)*3 + (dx+1), centre bit 13 left clear.
#ifndef SKEL_MAX_UNKNOWN
#define SKEL_MAX_UNKNOWN 6  // pending earlier neighbours whose 2^n assignments a candidate tries
#endif

#define SKEL_NONE 0     // not a candidate of this step
#define SKEL_PENDING 1
#define SKEL_REMOVE 2
#define SKEL_KEEP 3

#define SKEL_LEE_LIST 0        // the step's candidates
#define SKEL_LEE_PENDING 1     // the step's candidates pending after the first round
#define SKEL_LEE_CHANGED 2     // the last pass (counted from 1) that removed a voxel
#define SKEL_LEE_CANDIDATES 3  // candidates, every step so far
#define SKEL_LEE_ROUNDS 4      // recheck rounds, every step so far

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

// Lee's removal test on a neighbourhood: not a curve end point, Euler invariant, simple.
inline int skel_removable(uint n) { return popcount(n) != 1 && euler_invariant(n) && at_most_one_piece(n); }

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
// list (count in counters[SKEL_LEE_LIST]) and marked with the step's stamp. None in a pass after one
// that removed nothing (the host enqueues a pass before it has read the last one's counts).
__kernel void skel_candidates(__global const uchar* img, __global uchar* mark, __global uint* list,
                              volatile __global uint* counters, const uint voxels, const int py, const int px,
                              const int bz, const int by, const int bx, const int stamp, const uint pass) {
    const size_t gid = get_global_id(0);
    // An object voxel is interior (the padding is background), so its neighbourhood exists.
    if (gid >= voxels || !img[gid] || img[gid + ((long)bz * py + by) * px + bx]) return;
    if (counters[SKEL_LEE_CHANGED] + 1 < pass) return;
    if (!skel_removable(neighbourhood(img, gid, py, px))) return;
    list[atomic_inc(&counters[SKEL_LEE_LIST])] = (uint)gid;
    mark[gid] = (uchar)stamp;
}

// Candidate p's recheck: SKEL_REMOVE, SKEL_KEEP, or SKEL_PENDING while the answer still depends on
// more than SKEL_MAX_UNKNOWN pending earlier candidates, or on fewer whose assignments disagree.
// In the first round (`decision` null) every earlier candidate is pending.
inline int skel_decide(__global const uchar* img, __global const uchar* mark, __global const uchar* decision, const uint p,
                       const int py, const int px, const int stamp) {
    uint known = 0, unknown = 0;
    int bit = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx, ++bit) {
                if (bit == 13) continue;
                const uint q = (uint)((long)p + ((long)dz * py + dy) * px + dx);
                if (mark[q] != stamp) {
                    if (img[q]) known |= 1u << bit;  // not a candidate: the image holds it
                    continue;
                }
                if (bit > 13) {
                    known |= 1u << bit;  // a raster-later candidate is still there when p is rechecked
                    continue;
                }
                const uchar d = decision ? decision[q] : 0;
                if ((d >> 2) != stamp) unknown |= 1u << bit;
                else if ((d & 3) == SKEL_KEEP) known |= 1u << bit;
            }
    if (!unknown) return at_most_one_piece(known) ? SKEL_REMOVE : SKEL_KEEP;
    if (popcount(unknown) > SKEL_MAX_UNKNOWN) return SKEL_PENDING;
    // Known neighbours in one piece that touches every pending one: one piece whatever they become.
    if (known && (dilate26(known) & unknown) == unknown && at_most_one_piece(known)) return SKEL_REMOVE;
    const int simple = at_most_one_piece(known | unknown);
    for (uint sub = (0u - unknown) & unknown; sub != 0; sub = (sub - unknown) & unknown)
        if (at_most_one_piece(known | (unknown & ~sub)) != simple) return SKEL_PENDING;
    return simple ? SKEL_REMOVE : SKEL_KEEP;
}

// The first round of the recheck over the step's whole list (any global size that is a multiple of
// the work-group size: each work-item strides over the list). Decisions are stored (a removed
// candidate also cleared from the image); the pending candidates go to `pending` (count in
// SKEL_LEE_PENDING). A removal marks the pass as changed.
__kernel void skel_first_round(__global uchar* img, __global const uchar* mark, __global uchar* decision,
                               __global const uint* list, __global uint* pending, volatile __global uint* counters,
                               const int py, const int px, const int stamp, const uint pass) {
    __local uint groupRemoved;
    if (get_local_id(0) == 0) groupRemoved = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint count = counters[SKEL_LEE_LIST];
    uint removed = 0;
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
        const uint p = list[i];
        const int d = skel_decide(img, mark, 0, p, py, px, stamp);
        if (d == SKEL_PENDING) {
            pending[atomic_inc(&counters[SKEL_LEE_PENDING])] = p;
        } else {
            decision[p] = (uchar)(stamp << 2 | d);
            if (d == SKEL_REMOVE) img[p] = 0, removed = 1;
        }
    }
    if (removed) atomic_or(&groupRemoved, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && groupRemoved) atomic_max(&counters[SKEL_LEE_CHANGED], pass);
}

// The rest of the recheck, in one work-group (launch exactly one): rounds over the pending list until
// it is empty. Each chunk of the list decides on the decisions before it and stores its own after a
// barrier; its still pending candidates go to the front of the same list (a chunk is read before
// they are written, and they never reach past it). Then adds the step's counts to the totals and
// clears the step's slots for the next step.
__kernel void skel_tail(__global uchar* img, __global const uchar* mark, __global uchar* decision, __global uint* pending,
                        volatile __global uint* counters, const int py, const int px, const int stamp, const uint pass) {
    __local uint todo, survivors, removed;
    const uint lid = get_local_id(0), size = get_local_size(0);
    if (lid == 0) todo = counters[SKEL_LEE_PENDING], removed = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint rounds = 1;  // the first round's
    for (uint n = todo; n != 0; n = todo) {
        ++rounds;
        barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read todo
        if (lid == 0) survivors = 0;
        for (uint first = 0; first < n; first += size) {
            const int mine = first + lid < n;
            const uint p = mine ? pending[first + lid] : 0u;
            const int d = mine ? skel_decide(img, mark, decision, p, py, px, stamp) : SKEL_NONE;
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the chunk has read what it writes next
            if (d == SKEL_PENDING) {
                pending[atomic_inc(&survivors)] = p;
            } else if (d != SKEL_NONE) {
                decision[p] = (uchar)(stamp << 2 | d);
                if (d == SKEL_REMOVE) {
                    img[p] = 0;
                    atomic_or(&removed, 1u);
                }
            }
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the next chunk sees these decisions
        }
        if (lid == 0) todo = survivors;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        if (removed) counters[SKEL_LEE_CHANGED] = pass;
        counters[SKEL_LEE_CANDIDATES] += counters[SKEL_LEE_LIST];
        counters[SKEL_LEE_ROUNDS] += counters[SKEL_LEE_LIST] ? rounds : 0u;
        counters[SKEL_LEE_LIST] = 0;
        counters[SKEL_LEE_PENDING] = 0;
    }
}

// The skeleton as a list (either method): the unpadded index of every object voxel of the padded
// image, appended to list (count in counters[0]), so that only the skeleton's voxels go back to the host.
__kernel void skel_collect(__global const uchar* img, __global uint* list, volatile __global uint* counters,
                           const uint voxels, const int py, const int px) {
    const size_t gid = get_global_id(0);
    if (gid >= voxels || !img[gid]) return;
    // An object voxel is interior: its padded coordinates are 1 to n.
    const uint x = (uint)(gid % (uint)px), y = (uint)((gid / (uint)px) % (uint)py), z = (uint)(gid / ((uint)px * (uint)py));
    list[atomic_inc(&counters[0])] = ((z - 1) * (uint)(py - 2) + (y - 1)) * (uint)(px - 2) + (x - 1);
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
// Three schedules give the same skeleton (host/skeleton/subfields.cpp picks one from the device's
// profile): per direction a walk and a launch per subfield; a walk, a first round over every
// subfield and a one-work-group tail (skel_subfields_first, skel_subfields_tail); and, once the
// active list is short, every pass still to come in one work-group (skel_thin_group).
//
// counters: the active list's length of direction step t in slot SKEL_ACTIVE + t % 3 and its border
// buckets' in SKEL_BORDER + 8 * (t % 3) + s; step t fills the active slot of t + 1 and its own border
// slots, and clears the slots step t + 1 fills next (each is then read by no launch still to come),
// so no host write comes between launches. SKEL_REMOVED counts every removal, SKEL_PAR_CHANGED holds
// the last pass (counted from 1) that removed a voxel: the host enqueues a pass before it has read
// the last one's counts, and a pass after one that removed nothing takes no border (its subfield
// launches then find empty buckets).
#define SKEL_ACTIVE 0
#define SKEL_REMOVED 3
#define SKEL_PAR_CHANGED 4
#define SKEL_PAR_PENDING 5  // the step's border voxels left pending by skel_subfields_first
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

// Lohou and Bertrand's masks for P (2005; as Pink's llohoubertrand6dir2005 reads them): border voxel
// q (q + toBackground is background) is left out of P when, across the direction, a face neighbour
// q + e is background while q + e + toBackground is object: q lies under an overhang of the border.
inline int skel_overhang_across(__global const uchar* img, const long q, const long e, const long toBackground) {
    return e != toBackground && e != -toBackground && !img[q + e] && img[q + e + toBackground];
}
inline int skel_under_overhang(__global const uchar* img, const long q, const int py, const int px, const long toBackground) {
    const long plane = (long)py * px;
    return skel_overhang_across(img, q, -plane, toBackground) || skel_overhang_across(img, q, plane, toBackground) ||
           skel_overhang_across(img, q, -px, toBackground) || skel_overhang_across(img, q, px, toBackground) ||
           skel_overhang_across(img, q, -1, toBackground) || skel_overhang_across(img, q, 1, toBackground);
}

// Entry p of the active list in a direction step: the voxels it puts in the next list (p itself while
// it is an object voxel, else the object voxels its removal exposed whose first background face
// neighbour it is, at most 6) in keep[], each with its border bucket in bucket[] (8: not on this
// border, whose background neighbour is at offset toBackground). Returns how many.
inline uint skel_walk_entry(__global const uchar* img, __global uchar* inSet, const uint p, const int py, const int px,
                            const long toBackground, uint* keep, uchar* bucket) {
    const long plane = (long)py * px;
    const long face[6] = {-plane, -px, -1, 1, px, plane};  // face[5 - k] == -face[k]
    uint kept = 0;
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
        const uint q = keep[j];
        bucket[j] = 8;
        if (img[(long)q + toBackground]) continue;
        // The subfield: parities of the unpadded coordinates, opposite to the padded ones.
        const uint x = q % (uint)px, y = (q / (uint)px) % (uint)py, z = q / (uint)plane;
        bucket[j] = (uchar)((((z + 1) & 1) << 2) | (((y + 1) & 1) << 1) | ((x + 1) & 1));
    }
    return kept;
}

// Direction step `step`: keeps the list's object voxels in the next list, adds the object voxels the
// last removals exposed, and puts those of them whose neighbour at (bz, by, bx) is background in
// their subfield's border bucket (with onlyRemovable, only those that are simple and not end points:
// the P of skel_psimple). A border voxel bucketed is also marked with `stamp` when it is not 0. Any
// global size that is a multiple of the work-group size (at least 8): work-groups stride over the list.
__kernel void skel_active_border(__global const uchar* img, __global uchar* inSet, __global const uint* active,
                                 __global uint* nextActive, __global uint* border, volatile __global uint* counters,
                                 __global uchar* mark, const int py, const int px, const int bz, const int by, const int bx,
                                 const int step, const int stamp, const uint pass, const int onlyRemovable) {
    __local uint groupActive, baseActive, groupBorder[8], baseBorder[8];
    const uint lid = get_local_id(0);
    const int borderSlot = SKEL_BORDER + 8 * (step % 3);
    if (get_group_id(0) == 0 && lid < 8) counters[SKEL_BORDER + 8 * ((step + 1) % 3) + lid] = 0;
    if (get_global_id(0) == 0) counters[SKEL_ACTIVE + (step + 2) % 3] = 0;
    const uint count = counters[SKEL_PAR_CHANGED] + 1 < pass ? 0u : counters[SKEL_ACTIVE + step % 3];
    const long toBackground = ((long)bz * py + by) * px + bx;
    for (uint first = get_group_id(0) * get_local_size(0); first < count; first += get_global_size(0)) {
        if (lid == 0) groupActive = 0;
        if (lid < 8) groupBorder[lid] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint keep[6], bucketAt[6];
        uchar bucket[6];
        uint kept = 0;
        if (first + lid < count) {
            kept = skel_walk_entry(img, inSet, active[first + lid], py, px, toBackground, keep, bucket);
            // The P of the P-simple thinning: border voxels that are simple, not end points, not under an overhang.
            for (uint j = 0; j < kept && onlyRemovable; ++j)
                if (bucket[j] < 8 && (skel_under_overhang(img, keep[j], py, px, toBackground) ||
                                      !skel_removable(neighbourhood(img, keep[j], py, px))))
                    bucket[j] = 8;
            for (uint j = 0; j < kept; ++j)
                if (bucket[j] < 8) bucketAt[j] = atomic_inc(&groupBorder[bucket[j]]);
        }
        const uint atActive = kept ? atomic_add(&groupActive, kept) : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0 && groupActive) baseActive = atomic_add(&counters[SKEL_ACTIVE + (step + 1) % 3], groupActive);
        if (lid < 8 && groupBorder[lid])
            baseBorder[lid] = counters[SKEL_BUCKET_START + lid] + atomic_add(&counters[borderSlot + lid], groupBorder[lid]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < kept; ++j) {
            nextActive[baseActive + atActive + j] = keep[j];
            if (bucket[j] == 8) continue;
            border[baseBorder[bucket[j]] + bucketAt[j]] = keep[j];
            if (stamp) mark[keep[j]] = (uchar)stamp;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // the group's counts are reset at the top of the next round
    }
}

// The subfields of a step in rounds (the other schedule of the same thinning, for devices where
// launches cost more than the work: skel_subfields_first and skel_subfields_tail instead of eight
// skel_subfield launches). Border voxel p of subfield s sees, in the launch order, its neighbours of
// later subfields as the step started (object: every border voxel is) and those of earlier
// subfields as they were decided; non-border voxels never change during a step. As in Lee's recheck,
// p decides as soon as the answer no longer depends on the earlier border voxels still pending:
// when there are none, or when every assignment of those few gives the same answer; the lowest
// pending subfield can always decide, so at most 8 rounds. skel_active_border marks the step's
// border voxels with its stamp (`mark`); decisions carry the stamp over SKEL_REMOVE or SKEL_KEEP as
// Lee's do, and a removed voxel is cleared from the image at once (only unmarked voxels are read
// from the image).

// Per subfield s, the neighbourhood's bits whose voxel lies in a subfield before s: voxel q = p + d
// has subfield s ^ m, m the parities of d's coordinates (never 0), earlier when m's highest bit is set
// in s.
__constant uint kEarlierSubfields[8] = {0x0000000, 0x0005000, 0x0038e00, 0x003de00, 0x7fc01ff, 0x7fc51ff, 0x7ff8fff, 0x7ffdfff};

// The touch sets of the centre cube's 6 faces, 12 edges and 8 vertices, in the Euler change's order
// (a face or vertex no object voxel touches counts -1, an edge +1).
__constant uint kElementTouch[26] = {1u << 4, 1u << 10, 1u << 12, 1u << 14, 1u << 16, 1u << 22,
                                     0x0000412, 0x0001018, 0x0004030, 0x0010090, 0x0001600, 0x0004c00,
                                     0x0019000, 0x0034000, 0x0480400, 0x0601000, 0x0c04000, 0x2410000,
                                     0x000161b, 0x0004c36, 0x00190d8, 0x00341b0, 0x06c1600, 0x0d84c00, 0x3619000, 0x6c34000};

// Whether the Euler change is the same whatever the unknown voxels are. An element a known voxel
// touches counts nothing; one touched by neither counts the same always; element x touched by
// unknown voxels A_x only counts when all of A_x are removed. With R the removed ones, the change is
// a constant plus the sum over x with A_x in R of x's sign, zero for R empty; it is zero for every R
// exactly when, for every set S, the signs of the elements with A_x = S add up to zero.
inline int euler_fixed(const uint known, const uint unknown) {
    for (int i = 0; i < 26; ++i) {
        const uint a = kElementTouch[i] & unknown;
        if ((kElementTouch[i] & known) || !a) continue;
        int sum = 0;
        for (int j = 0; j < 26 && sum != 99; ++j)
            if (!(kElementTouch[j] & known) && (kElementTouch[j] & unknown) == a)
                sum = j < i ? 99 : sum + (j >= 6 && j < 18 ? 1 : -1);  // 99: S counted at its first element
        if (sum != 0 && sum != 99) return 0;
    }
    return 1;
}

// Border voxel p of subfield s: SKEL_REMOVE, SKEL_KEEP, or SKEL_PENDING while the answer depends on
// more than maxUnknown pending earlier border voxels, or on fewer whose assignments disagree. In the
// first round (`decision` null) every earlier border voxel is pending.
inline int skel_subfield_decide(__global const uchar* img, __global const uchar* mark, __global const uchar* decision,
                                const uint p, const int s, const int py, const int px, const int stamp, const int maxUnknown) {
    const uint earlier = kEarlierSubfields[s];
    uint known = 0, unknown = 0;
    int bit = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx, ++bit) {
                if (bit == 13) continue;
                const uint q = (uint)((long)p + ((long)dz * py + dy) * px + dx);
                if (mark[q] != stamp) {
                    if (img[q]) known |= 1u << bit;  // not on the border: the image holds it
                    continue;
                }
                if (!(earlier >> bit & 1)) {
                    known |= 1u << bit;  // a later subfield's border voxel is still there
                    continue;
                }
                const uchar d = decision ? decision[q] : 0;
                if ((d >> 2) != stamp) unknown |= 1u << bit;
                else if ((d & 3) == SKEL_KEEP) known |= 1u << bit;
            }
    if (!unknown) return skel_removable(known) ? SKEL_REMOVE : SKEL_KEEP;
    // Two or more known neighbours in one piece touching every pending one: not an end point and
    // simple whatever those become, so only the Euler characteristic's invariance can differ.
    const int simpleAlways = popcount(known) >= 2 && (dilate26(known) & unknown) == unknown && at_most_one_piece(known);
    if (simpleAlways && euler_fixed(known, unknown)) return euler_invariant(known | unknown) ? SKEL_REMOVE : SKEL_KEEP;
    if (popcount(unknown) > maxUnknown) return SKEL_PENDING;
    const int removable = skel_removable(known | unknown);
    for (uint sub = (0u - unknown) & unknown; sub != 0; sub = (sub - unknown) & unknown) {
        const uint n = known | (unknown & ~sub);
        if ((simpleAlways ? euler_invariant(n) : skel_removable(n)) != removable) return SKEL_PENDING;
    }
    return removable ? SKEL_REMOVE : SKEL_KEEP;
}

// The subfield (bits 2, 1, 0: parities of z, y, x of the unpadded coordinates) of padded voxel p.
inline int skel_subfield_of(const uint p, const int py, const int px) {
    const uint x = p % (uint)px, y = (p / (uint)px) % (uint)py, z = p / ((uint)px * (uint)py);
    return (int)((((z + 1) & 1) << 2) | (((y + 1) & 1) << 1) | ((x + 1) & 1));
}

// Adds a work-group's removals to the counters and marks the pass as one that changed the image
// (every work-item of the group calls it; `groupRemoved` starts at 0).
inline void skel_count_group_removals(__local uint* groupRemoved, const uint removed, volatile __global uint* counters,
                                      const uint pass) {
    if (removed) atomic_add(groupRemoved, removed);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && *groupRemoved) {
        atomic_add(&counters[SKEL_REMOVED], *groupRemoved);
        atomic_max(&counters[SKEL_PAR_CHANGED], pass);
    }
}

// The first round over the step's eight border buckets (any global size that is a multiple of the
// work-group size: each work-item strides over each bucket). Decisions are stored (a removed voxel
// also cleared from the image); the pending voxels go to `pending` (count in SKEL_PAR_PENDING).
__kernel void skel_subfields_first(__global uchar* img, __global const uchar* mark, __global uchar* decision,
                                   __global const uint* border, __global uint* pending, volatile __global uint* counters,
                                   const int py, const int px, const int step, const int stamp, const int maxUnknown,
                                   const uint pass) {
    __local uint groupRemoved;
    if (get_local_id(0) == 0) groupRemoved = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint removed = 0;
    for (int s = 0; s < 8; ++s) {
        const uint count = counters[SKEL_BORDER + 8 * (step % 3) + s];
        const uint start = counters[SKEL_BUCKET_START + s];
        for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
            const uint p = border[start + i];
            const int d = skel_subfield_decide(img, mark, 0, p, s, py, px, stamp, maxUnknown);
            if (d == SKEL_PENDING) {
                pending[atomic_inc(&counters[SKEL_PAR_PENDING])] = p;
            } else {
                decision[p] = (uchar)(stamp << 2 | d);
                if (d == SKEL_REMOVE) img[p] = 0, ++removed;
            }
        }
    }
    skel_count_group_removals(&groupRemoved, removed, counters, pass);
}

// The rest of the step's rounds in one work-group (launch exactly one), as skel_tail does Lee's:
// rounds over the pending list, each chunk deciding on the decisions before it and compacting its
// still pending voxels to the front of the list, until none is pending. Then clears the pending count.
__kernel void skel_subfields_tail(__global uchar* img, __global const uchar* mark, __global uchar* decision,
                                  __global uint* pending, volatile __global uint* counters, const int py, const int px,
                                  const int stamp, const int maxUnknown, const uint pass) {
    __local uint todo, survivors, removed;
    const uint lid = get_local_id(0), size = get_local_size(0);
    if (lid == 0) todo = counters[SKEL_PAR_PENDING], removed = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint n = todo; n != 0; n = todo) {
        barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read todo
        if (lid == 0) survivors = 0;
        for (uint first = 0; first < n; first += size) {
            const int mine = first + lid < n;
            const uint p = mine ? pending[first + lid] : 0u;
            const int d = mine ? skel_subfield_decide(img, mark, decision, p, skel_subfield_of(p, py, px), py, px, stamp, maxUnknown)
                               : SKEL_NONE;
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the chunk has read what it writes next
            if (d == SKEL_PENDING) {
                pending[atomic_inc(&survivors)] = p;
            } else if (d != SKEL_NONE) {
                decision[p] = (uchar)(stamp << 2 | d);
                if (d == SKEL_REMOVE) {
                    img[p] = 0;
                    atomic_inc(&removed);
                }
            }
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the next chunk sees these decisions
        }
        if (lid == 0) todo = survivors;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        if (removed) {
            counters[SKEL_REMOVED] += removed;
            counters[SKEL_PAR_CHANGED] = max(counters[SKEL_PAR_CHANGED], pass);
        }
        counters[SKEL_PAR_PENDING] = 0;
    }
}

// Removes the simple, non-end voxels of subfield `subfield`'s border bucket of direction step `step`
// (any global size: each work-item strides over the bucket).
__kernel void skel_subfield(__global uchar* img, __global const uint* border, volatile __global uint* counters,
                            const int py, const int px, const int subfield, const int step, const uint pass) {
    const uint count = counters[SKEL_BORDER + 8 * (step % 3) + subfield];
    const uint start = counters[SKEL_BUCKET_START + subfield];
    uint removed = 0;
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
        const uint p = border[start + i];
        if (!skel_removable(neighbourhood(img, p, py, px))) continue;
        img[p] = 0;
        ++removed;
    }
    if (removed) {
        atomic_add(&counters[SKEL_REMOVED], removed);
        atomic_max(&counters[SKEL_PAR_CHANGED], pass);
    }
}

// The P-simple thinning (--method psimple; host/skeleton/psimple_reference.cpp states the tests from
// their definitions). The step's walk (skel_active_border with onlyRemovable) marks P, the border
// voxels that are simple, not end points and not under an overhang (skel_under_overhang: fewer voxels
// in P leave more of them P-simple, so fewer passes), with the step's stamp and lists them in the
// buckets; skel_psimple removes every voxel of P that is P-simple, all in one launch. A voxel of P is
// read from its mark (an object voxel, whatever the launch does to it), every other voxel from the
// image, which the launch does not change there; so no work-item reads what another writes.
//
// x is P-simple (Bertrand) when, with R = X \ P and X' the background: T26(x, R) = 1 and
// T26(x, R + y) = 1 for every y of P among its 26 neighbours (R is one 26-component there and every
// such y is 26-adjacent to it), T6(x, X') = 1, and T6(x, X' + y) = 1 for every y of P among its 6 face
// neighbours. For the P here the last two always hold, so only the first two are tested: x is simple
// (it is in P), so T6(x, X') = 1; and a face neighbour y of x in P is x + e with e across the
// direction d (x - d is not on the border, x + d is background), so x + d and x + e + d are background,
// the second 6-adjacent to both y and the first, which is in X''s one component: y added joins it.
// host/skeleton/psimple_reference.cpp tests all four; the tests hold the device to it.
// `rest`: x's neighbours in R, `inP`: those in P.
inline int skel_p_simple(const uint rest, const uint inP) {
    return rest && at_most_one_piece(rest) && (dilate26(rest) & inP) == inP;
}

// Removes every P-simple voxel of the step's eight border buckets (P; any global size that is a
// multiple of the work-group size: each work-item strides over each bucket).
__kernel void skel_psimple(__global uchar* img, __global const uchar* mark, __global const uint* border,
                           volatile __global uint* counters, const int py, const int px, const int step, const int stamp,
                           const uint pass) {
    __local uint groupRemoved;
    if (get_local_id(0) == 0) groupRemoved = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint removed = 0;
    for (int s = 0; s < 8; ++s) {
        const uint count = counters[SKEL_BORDER + 8 * (step % 3) + s];
        const uint start = counters[SKEL_BUCKET_START + s];
        for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
            const uint p = border[start + i];
            uint rest = 0, inP = 0;
            int bit = 0;
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx, ++bit) {
                        if (bit == 13) continue;
                        const uint q = (uint)((long)p + ((long)dz * py + dy) * px + dx);
                        if (mark[q] == stamp) inP |= 1u << bit;
                        else if (img[q]) rest |= 1u << bit;
                    }
            if (!skel_p_simple(rest, inP)) continue;
            img[p] = 0;
            ++removed;
        }
    }
    skel_count_group_removals(&groupRemoved, removed, counters, pass);
}

// Lee's six border directions in the order of host/skeleton/skeleton_detail.hpp's kBorders: the
// (dz, dy, dx) of the neighbour that is background. Direction step t visits direction t % 6.
__constant int kBorderStep[6][3] = {{0, -1, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}};

// The rest of the parallel thinning in one work-group (launch exactly one), for an active list short
// enough that the launches' gaps would cost more than one work-group's chunks: passes from `pass`
// (its first direction step is 6 * (pass - 1)) until one removes nothing, each direction step the
// same walk and subfield removals as skel_active_border and skel_subfield, with barriers where those
// have launch boundaries. The lists' lengths are kept in local memory; the last changing pass and
// the removals go to the counters at the end. Nothing when the pass before `pass` removed nothing.
__kernel void skel_thin_group(__global uchar* img, __global uchar* inSet, __global uint* activeEven, __global uint* activeOdd,
                              __global uint* border, volatile __global uint* counters, const int py, const int px,
                              const uint pass) {
    __local uint nextCount, bucketCount[8], removed;
    const uint lid = get_local_id(0), size = get_local_size(0);
    uint changed = counters[SKEL_PAR_CHANGED];
    if (changed + 1 < pass) return;  // the same value for every work-item: the whole group returns
    int step = 6 * (int)(pass - 1);
    uint count = counters[SKEL_ACTIVE + step % 3], total = 0;
    uint start[8];
    for (int s = 0; s < 8; ++s) start[s] = counters[SKEL_BUCKET_START + s];
    for (uint p = pass;; ++p) {
        if (lid == 0) removed = 0;
        for (int b = 0; b < 6; ++b, ++step) {
            __global const uint* active = step % 2 ? activeOdd : activeEven;
            __global uint* nextActive = step % 2 ? activeEven : activeOdd;
            const long toBackground = ((long)kBorderStep[b][0] * py + kBorderStep[b][1]) * px + kBorderStep[b][2];
            if (lid == 0) nextCount = 0;
            if (lid < 8) bucketCount[lid] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint i = lid; i < count; i += size) {
                uint keep[6];
                uchar bucket[6];
                const uint kept = skel_walk_entry(img, inSet, active[i], py, px, toBackground, keep, bucket);
                for (uint j = 0; j < kept; ++j) {
                    nextActive[atomic_inc(&nextCount)] = keep[j];
                    if (bucket[j] < 8) border[start[bucket[j]] + atomic_inc(&bucketCount[bucket[j]])] = keep[j];
                }
            }
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the buckets are complete
            for (int s = 0; s < 8; ++s) {
                const uint n = bucketCount[s];
                for (uint i = lid; i < n; i += size) {
                    const uint q = border[start[s] + i];
                    if (!skel_removable(neighbourhood(img, q, py, px))) continue;
                    img[q] = 0;
                    atomic_inc(&removed);
                }
                barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the next subfield sees these removals
            }
            count = nextCount;
            barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read it before the next step resets it
        }
        const uint passRemoved = removed;
        barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read the counts before they are reset
        if (!passRemoved) break;
        changed = p;
        total += passRemoved;
    }
    if (lid == 0) {
        counters[SKEL_REMOVED] += total;
        counters[SKEL_PAR_CHANGED] = changed;
    }
}

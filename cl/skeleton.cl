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
// same order): skel_mark_border records the object voxels whose neighbour at (bz, by, bx) is
// background, as the direction starts; then one skel_subfield launch per subfield, the voxels whose
// coordinates have the parities (z, y, x) = bits 2, 1, 0 of `subfield`, removes every marked voxel
// that is simple (Lee's two conditions) and not a curve end point (one neighbour). No two voxels of
// a subfield are 26-adjacent, so each decides on neighbours no other work-item of the launch
// changes, and removing all of them together is removing simple points one after another: the
// topology is kept. Work-item (i, j, k) takes voxel (2i, 2j, 2k) + parities of the unpadded volume.
__kernel void skel_mark_border(__global const uchar* img, __global uchar* border, const int pz, const int py,
                               const int px, const int bz, const int by, const int bx) {
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)pz * py * px) return;
    const int x = (int)(gid % px), y = (int)((gid / px) % py), z = (int)(gid / ((size_t)px * py));
    const int inside = x > 0 && y > 0 && z > 0 && x < px - 1 && y < py - 1 && z < pz - 1;
    border[gid] = inside && img[gid] && !img[gid + ((long)bz * py + by) * px + bx];
}

__kernel void skel_subfield(__global uchar* img, __global const uchar* border, volatile __global uint* counters,
                            const int nz, const int ny, const int nx, const int subfield, const int slot) {
    const size_t gid = get_global_id(0);
    const int hz = (nz + 1) / 2, hy = (ny + 1) / 2, hx = (nx + 1) / 2;
    if (gid >= (size_t)hz * hy * hx) return;
    const int z = 2 * (int)(gid / ((size_t)hx * hy)) + ((subfield >> 2) & 1);
    const int y = 2 * (int)((gid / hx) % hy) + ((subfield >> 1) & 1);
    const int x = 2 * (int)(gid % hx) + (subfield & 1);
    if (z >= nz || y >= ny || x >= nx) return;
    const int py = ny + 2, px = nx + 2;
    const size_t p = ((size_t)(z + 1) * py + (y + 1)) * px + (x + 1);
    if (!img[p] || !border[p]) return;
    const uint n = neighbourhood(img, p, py, px);
    if (popcount(n) == 1 || !euler_invariant(n) || !at_most_one_piece(n)) return;
    img[p] = 0;
    atomic_inc(&counters[slot]);
}

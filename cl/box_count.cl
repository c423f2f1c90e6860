// Box counting on a pyramid of box codes. Level k holds one byte per box of side 2^k (grid at the
// origin): bit 0 set when the box holds an object voxel, bit 1 set when it holds no background
// voxel (voxels outside the volume are neutral: they set neither "any" nor break "all", so a box cut
// by the volume's edge is judged on its voxels inside, as porespy's slices do). Level k is made of
// 2x2x2 blocks of level k - 1; a block shifted by one cell of level k - 1 along an axis is the box of
// side 2^k whose grid starts half a box earlier, which gives the grid-offset placements for free.
// Boxes of other sides: one work-item per box where there are many boxes, else reduced one axis at a
// time, which spreads a few large boxes over many work-items.
// Counts are integers: every device gives the same numbers.
#ifndef BOX_LOCAL
#define BOX_LOCAL 256
#endif

#define BOX_ANY 1u
#define BOX_ALL 2u

// Whether a box code counts: MIXED 0 counts boxes holding the object, 1 boxes holding both phases.
inline uint box_counts(uint code, int mixed) {
    return mixed ? ((code & BOX_ANY) && !(code & BOX_ALL)) : (code & BOX_ANY);
}

// Sums `v` over the work-group and adds it to counters[slot] (one atomic per group; none when slot < 0).
// Every work-item of the group calls it: it holds barriers.
inline void add_group_count(uint v, __local uint* scratch, volatile __global uint* counters, int slot) {
    const int l = get_local_id(0);
    scratch[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0 && slot >= 0 && scratch[0]) atomic_add(counters + slot, scratch[0]);
}

// One work-item per box of the next level, grid shifted back by (sz, sy, sx) cells of the previous
// level. `fromMask`: the previous level is the 0/1 voxel mask itself. `next` receives the codes only
// for the unshifted grid (`write`); the boxes that count are added to counters[slot] (slot < 0: none).
__kernel void box_reduce(__global const uchar* prev, __global uchar* next, const int pz, const int py, const int px,
                         const int bz, const int by, const int bx, const int sz, const int sy, const int sx,
                         const int fromMask, const int write, const int mixed, volatile __global uint* counters,
                         const int slot) {
    __local uint scratch[BOX_LOCAL];
    const size_t gid = get_global_id(0);
    const size_t boxes = (size_t)bz * by * bx;
    uint code = 0;
    if (gid < boxes) {
        const int x = (int)(gid % bx), y = (int)((gid / bx) % by), z = (int)(gid / ((size_t)bx * by));
        uint any = 0, all = BOX_ALL;
        for (int dz = 0; dz < 2; ++dz) {
            const int cz = 2 * z - sz + dz;
            if (cz < 0 || cz >= pz) continue;
            for (int dy = 0; dy < 2; ++dy) {
                const int cy = 2 * y - sy + dy;
                if (cy < 0 || cy >= py) continue;
                for (int dx = 0; dx < 2; ++dx) {
                    const int cx = 2 * x - sx + dx;
                    if (cx < 0 || cx >= px) continue;
                    uint c = prev[((size_t)cz * py + cy) * px + cx];
                    if (fromMask) c = c ? (BOX_ANY | BOX_ALL) : 0u;
                    any |= c & BOX_ANY;
                    all &= c;
                }
            }
        }
        code = any | (all & BOX_ALL);
        if (write) next[gid] = (uchar)code;
    }
    add_group_count(gid < boxes ? box_counts(code, mixed) : 0u, scratch, counters, slot);
}

// Object voxels of the mask (boxes of side 1): the count for side 1 (no voxel is mixed).
__kernel void box_count_voxels(__global const uchar* mask, const ulong n, volatile __global uint* counters, const int slot) {
    __local uint scratch[BOX_LOCAL];
    const size_t gid = get_global_id(0);
    add_group_count(gid < n && mask[gid] ? 1u : 0u, scratch, counters, slot);
}

// Boxes of any side s with the grid shifted back by `off` voxels along every axis: box (z, y, x)
// covers voxels [z*s - off, (z+1)*s - off) and so on. One work-item per box; it stops at the first
// voxel that decides the box. For sides with many boxes: few boxes leave the device idle while one
// work-item scans a large box.
__kernel void box_count_side(__global const uchar* mask, const int nz, const int ny, const int nx, const int bz,
                             const int by, const int bx, const int s, const int offz, const int offy, const int offx,
                             const int mixed, volatile __global uint* counters, const int slot) {
    __local uint scratch[BOX_LOCAL];
    const size_t gid = get_global_id(0);
    uint hit = 0;
    if (gid < (size_t)bz * by * bx) {
        const int x = (int)(gid % bx), y = (int)((gid / bx) % by), z = (int)(gid / ((size_t)bx * by));
        const int z0 = max(z * s - offz, 0), z1 = min((z + 1) * s - offz, nz);
        const int y0 = max(y * s - offy, 0), y1 = min((y + 1) * s - offy, ny);
        const int x0 = max(x * s - offx, 0), x1 = min((x + 1) * s - offx, nx);
        uint any = 0, none = 0;  // none: a background voxel seen
        for (int k = z0; k < z1 && !(any && (none || !mixed)); ++k)
            for (int j = y0; j < y1 && !(any && (none || !mixed)); ++j)
                for (int i = x0; i < x1; ++i) {
                    if (mask[((size_t)k * ny + j) * nx + i]) any = 1; else none = 1;
                    if (any && (none || !mixed)) break;
                }
        hit = box_counts(any | (none ? 0u : BOX_ALL), mixed);
    }
    add_group_count(hit, scratch, counters, slot);
}

// Boxes of any side s, one axis at a time (any and all are separable): each work-item makes the code
// of one run of up to s cells along `axis` (0 z, 1 y, 2 x) of the (d0, d1, d2) array `in`, the runs
// [c*s - off, (c+1)*s - off) clipped to the array, into the array with that axis cut to `nb` runs.
// Reducing x, then y, then z gives the code of every box; the last stage counts the boxes instead
// of writing them (slot >= 0). `fromMask`: `in` is the 0/1 voxel mask. A run stops at the first
// cell that decides its code.
__kernel void box_runs(__global const uchar* in, __global uchar* out, const int d0, const int d1, const int d2,
                       const int axis, const int s, const int off, const int nb, const int fromMask, const int mixed,
                       volatile __global uint* counters, const int slot) {
    __local uint scratch[BOX_LOCAL];
    const int o0 = axis == 0 ? nb : d0, o1 = axis == 1 ? nb : d1, o2 = axis == 2 ? nb : d2;
    const size_t gid = get_global_id(0);
    const size_t cells = (size_t)o0 * o1 * o2;
    uint code = 0;
    if (gid < cells) {
        const int c2 = (int)(gid % o2), c1 = (int)((gid / o2) % o1), c0 = (int)(gid / ((size_t)o2 * o1));
        const int c = axis == 0 ? c0 : axis == 1 ? c1 : c2, n = axis == 0 ? d0 : axis == 1 ? d1 : d2;
        const int lo = max(c * s - off, 0), hi = min((c + 1) * s - off, n);
        const size_t stride = axis == 0 ? (size_t)d1 * d2 : axis == 1 ? (size_t)d2 : 1;
        size_t at = ((size_t)(axis == 0 ? lo : c0) * d1 + (axis == 1 ? lo : c1)) * d2 + (axis == 2 ? lo : c2);
        uint any = 0, all = BOX_ALL;
        for (int k = lo; k < hi; ++k, at += stride) {
            uint v = in[at];
            if (fromMask) v = v ? (BOX_ANY | BOX_ALL) : 0u;
            any |= v & BOX_ANY;
            all &= v;
            if (any && (!all || !mixed)) break;  // decided: holds object, and background too or it does not matter
        }
        code = any | (all & BOX_ALL);
        if (slot < 0) out[gid] = (uchar)code;
    }
    add_group_count(gid < cells ? box_counts(code, mixed) : 0u, scratch, counters, slot);
}

// Flat resolution on the device (Barnes, Lehman and Mulla 2014; include/portacl/drainage.hpp): the
// flats' edges, their labels (the smallest index of each connected set of equal heights, relaxed
// until stable), the steps from the low and the high edges (relaxed until stable: the breadth-first
// distances), each flat's largest step from its high edges, and the directions down the mask.
// Integer distances make the result the reference's exactly. The relaxation steps read one buffer and
// write another (the host swaps them between launches), so that no work-item reads a cell that
// another is writing.
#include "common/real.h"
#include "common/d8_grid.h"

#define FAR 0x7fffffff

#define CELL_FLAT 1  // no flow, inside the grid and away from NoData
#define CELL_LOW 2   // drains, next to a flat cell of its height
#define CELL_HIGH 4  // flat, next to a higher cell

// Neighbour k of (r, c) in the grid and with data: its index, else -1.
inline long neighbour_of(__global const uchar* dir, int rows, int cols, int r, int c, int k) {
    const int rr = r + ROW_OFFSET[k], cc = c + COL_OFFSET[k];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) return -1;
    const long n = (long)rr * cols + cc;
    return dir[n] == NO_DATA ? -1 : n;
}

inline int is_flat(__global const uchar* dir, int rows, int cols, long i) {
    if (dir[i] != NO_FLOW) return 0;
    const int r = (int)(i / cols), c = (int)(i % cols);
    for (int k = 0; k < 8; ++k)
        if (neighbour_of(dir, rows, cols, r, c, k) < 0) return 0;
    return 1;
}

// Also each cell's first label, its own index, in both buffers of the labels' pair.
__kernel void flat_edges(__global const REAL* z, __global const uchar* dir, __global uchar* kind, __global int* comp,
                         __global int* comp_other, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    comp[i] = (int)i;
    comp_other[i] = (int)i;
    if (dir[i] == NO_DATA) {
        kind[i] = 0;
        return;
    }
    const int r = (int)(i / cols), c = (int)(i % cols);
    const int flat = is_flat(dir, rows, cols, i);
    uchar k8 = flat ? CELL_FLAT : 0;
    for (int k = 0; k < 8; ++k) {
        const long n = neighbour_of(dir, rows, cols, r, c, k);
        if (n < 0) continue;
        if (!flat && z[n] == z[i] && is_flat(dir, rows, cols, n)) k8 |= CELL_LOW;
        if (flat && z[n] > z[i]) k8 |= CELL_HIGH;
    }
    kind[i] = k8;
}

// next: the smallest label among the equal-height neighbours' in comp, and then that label's own
// label (every label is a cell of the same set, its own label no larger: jumping to it carries a
// small label across a wide flat in few launches), written where it differs from what next holds.
// Labels only fall; the fixed point is each set's smallest index.
__kernel void flat_label_step(__global const REAL* z, __global const uchar* dir, __global const int* comp,
                              __global int* next, volatile __global int* changed, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols || dir[i] == NO_DATA) return;
    const int r = (int)(i / cols), c = (int)(i % cols);
    int m = comp[i];
    for (int k = 0; k < 8; ++k) {
        const long n = neighbour_of(dir, rows, cols, r, c, k);
        if (n >= 0 && z[n] == z[i]) m = min(m, comp[n]);
    }
    m = comp[m];
    if (next[i] != m) next[i] = m;
    if (m < comp[i]) *changed = 1;
}

// outlet[root] = 1 for every set holding a low edge; seeds of both distances.
__kernel void flat_seeds(__global const uchar* kind, __global const int* comp, __global uchar* outlet,
                         const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (kind[i] & CELL_LOW) outlet[comp[i]] = 1;
}

// Both buffers of each distance's pair.
__kernel void flat_distance_init(__global const uchar* kind, __global const int* comp, __global const uchar* outlet,
                                 __global int* towards, __global int* away, __global int* towards_other,
                                 __global int* away_other, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    const int labelled = (kind[i] & (CELL_LOW | CELL_FLAT)) && outlet[comp[i]];
    const int t = labelled && (kind[i] & CELL_LOW) ? 1 : FAR, a = labelled && (kind[i] & CELL_HIGH) ? 1 : FAR;
    towards[i] = towards_other[i] = t;
    away[i] = away_other[i] = a;
}

// One step of both breadth-first distances on the flat cells of labelled sets: from towards, away
// into towards_next, away_next, where the new distance differs from what they hold.
__kernel void flat_distance_step(__global const uchar* dir, __global const uchar* kind, __global const int* comp,
                                 __global const uchar* outlet, __global const int* towards, __global const int* away,
                                 __global int* towards_next, __global int* away_next, volatile __global int* changed,
                                 const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols || !(kind[i] & CELL_FLAT) || !outlet[comp[i]]) return;
    const int r = (int)(i / cols), c = (int)(i % cols);
    int t = towards[i], a = away[i];
    for (int k = 0; k < 8; ++k) {
        const long n = neighbour_of(dir, rows, cols, r, c, k);
        if (n < 0 || comp[n] != comp[i]) continue;
        const int tn = towards[n], an = away[n];
        if (tn != FAR) t = min(t, tn + 1);
        if (an != FAR && (kind[n] & CELL_FLAT)) a = min(a, an + 1);
    }
    if (towards_next[i] != t) towards_next[i] = t;
    if (away_next[i] != a) away_next[i] = a;
    if (t < towards[i] || a < away[i]) *changed = 1;
}

__kernel void flat_height(__global const uchar* kind, __global const int* comp, __global const int* away,
                          volatile __global int* height, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if ((kind[i] & CELL_FLAT) && away[i] != FAR) atomic_max(height + comp[i], away[i]);
}

inline int flat_mask(__global const int* comp, __global const int* towards, __global const int* away,
                     __global const int* height, long i) {
    return 2 * towards[i] + (away[i] != FAR ? height[comp[i]] - away[i] : 0);
}

__kernel void flat_directions(__global const uchar* kind, __global const int* comp, __global const uchar* outlet,
                              __global const int* towards, __global const int* away, __global const int* height,
                              __global const uchar* dir, __global uchar* out, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    uchar d = dir[i];
    if ((kind[i] & CELL_FLAT) && outlet[comp[i]] && towards[i] != FAR) {
        const int r = (int)(i / cols), c = (int)(i % cols);
        int best = flat_mask(comp, towards, away, height, i);
        for (int k = 0; k < 8; ++k) {
            const long n = neighbour_of(dir, rows, cols, r, c, k);
            if (n < 0 || comp[n] != comp[i] || towards[n] == FAR) continue;
            const int m = flat_mask(comp, towards, away, height, n);
            if (m < best) {
                best = m;
                d = (uchar)k;
            }
        }
    }
    out[i] = d;
}

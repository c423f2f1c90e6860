// Flat resolution on the device (Barnes, Lehman and Mulla 2014; include/portacl/drainage.hpp): the
// flats' edges, their labels (the smallest index of each connected set of equal heights, relaxed
// until stable), the steps from the low and the high edges (relaxed until stable: the breadth-first
// distances), each flat's largest step from its high edges, and the directions down the mask.
// Integer distances make the result the reference's exactly.
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

__kernel void flat_edges(__global const REAL* z, __global const uchar* dir, __global uchar* kind, __global int* comp,
                         const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    comp[i] = (int)i;
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

// comp: the smallest index among the equal-height neighbours' (Jacobi in place: values only fall).
__kernel void flat_label_step(__global const REAL* z, __global const uchar* dir, __global int* comp,
                              volatile __global int* changed, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols || dir[i] == NO_DATA) return;
    const int r = (int)(i / cols), c = (int)(i % cols);
    int m = comp[i];
    for (int k = 0; k < 8; ++k) {
        const long n = neighbour_of(dir, rows, cols, r, c, k);
        if (n >= 0 && z[n] == z[i]) m = min(m, comp[n]);
    }
    if (m < comp[i]) {
        comp[i] = m;
        *changed = 1;
    }
}

// outlet[root] = 1 for every set holding a low edge; seeds of both distances.
__kernel void flat_seeds(__global const uchar* kind, __global const int* comp, __global uchar* outlet,
                         const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (kind[i] & CELL_LOW) outlet[comp[i]] = 1;
}

__kernel void flat_distance_init(__global const uchar* kind, __global const int* comp, __global const uchar* outlet,
                                 __global int* towards, __global int* away, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    const int labelled = (kind[i] & (CELL_LOW | CELL_FLAT)) && outlet[comp[i]];
    towards[i] = labelled && (kind[i] & CELL_LOW) ? 1 : FAR;
    away[i] = labelled && (kind[i] & CELL_HIGH) ? 1 : FAR;
}

// One step of both breadth-first distances on the flat cells of labelled sets.
__kernel void flat_distance_step(__global const uchar* dir, __global const uchar* kind, __global const int* comp,
                                 __global const uchar* outlet, __global int* towards, __global int* away,
                                 volatile __global int* changed, const int rows, const int cols) {
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
    if (t < towards[i] || a < away[i]) {
        towards[i] = t;
        away[i] = a;
        *changed = 1;
    }
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

// The stream network on a grid of D8 directions (include/portacl/drainage.hpp): Strahler order of the
// stream cells by dependency counting (as the accumulation: the last stream contributor to reach a
// cell goes on), and watersheds by pointer jumping (each cell's pointer doubles its reach per launch
// until it rests on the outlet its water reaches).
#include "common/d8_grid.h"

inline long downstream(__global const uchar* dir, int rows, int cols, long i) {
    const uchar d = dir[i];
    if (d >= NO_FLOW) return -1;
    const int rr = (int)(i / cols) + ROW_OFFSET[d], cc = (int)(i % cols) + COL_OFFSET[d];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) return -1;
    const long n = (long)rr * cols + cc;
    return dir[n] == NO_DATA ? -1 : n;
}

// Neighbour k of i when it is a stream cell draining into i, else -1.
inline long stream_in(__global const uchar* dir, __global const uchar* stream, int rows, int cols, long i, int k) {
    const int rr = (int)(i / cols) + ROW_OFFSET[k], cc = (int)(i % cols) + COL_OFFSET[k];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) return -1;
    const long n = (long)rr * cols + cc;
    return (stream[n] == 1 && dir[n] == ((k + 4) & 7)) ? n : -1;
}

__kernel void strahler_dependencies(__global const uchar* dir, __global const uchar* stream, __global int* deps,
                                    const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    int n = 0;
    if (stream[i] == 1)
        for (int k = 0; k < 8; ++k) n += stream_in(dir, stream, rows, cols, i, k) >= 0;
    deps[i] = n;
}

// From each stream source downstream along stream cells: a cell's order is the largest order among
// its stream contributors, plus one when two or more of them have it (1 at a source).
__kernel void strahler_walk(__global const uchar* dir, __global const uchar* stream, volatile __global int* deps,
                            __global int* order, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols || stream[i] != 1) return;
    for (int k = 0; k < 8; ++k)
        if (stream_in(dir, stream, rows, cols, i, k) >= 0) return;  // not a source
    volatile __global int* seen = (volatile __global int*)order;
    long cell = i;
    int o = 1;
    for (;;) {
        order[cell] = o;
        const long next = downstream(dir, rows, cols, cell);
        if (next < 0 || stream[next] != 1) break;
        WALK_FENCE();
        if (atomic_dec(deps + next) != 1) break;
        WALK_FENCE();
        cell = next;
        int top = 0, count = 0;
        for (int k = 0; k < 8; ++k) {
            const long n = stream_in(dir, stream, rows, cols, cell, k);
            if (n < 0) continue;
            const int v = seen[n];
            if (v > top) top = v, count = 1;
            else if (v == top) ++count;
        }
        o = count >= 2 ? top + 1 : top;
    }
}

// to[i]: the cell i's water reaches next, i itself at an outlet (a cell that drains nowhere, off the
// grid or into NoData, or one of the given outlets: is_outlet[i]).
__kernel void watershed_init(__global const uchar* dir, __global const uchar* is_outlet, __global int* to,
                             const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (dir[i] == NO_DATA) {
        to[i] = -1;
        return;
    }
    const long d = downstream(dir, rows, cols, i);
    to[i] = (is_outlet[i] || d < 0) ? (int)i : (int)d;
}

// One doubling: to[i] = to[to[i]] (reading the previous pointers, writing the next).
__kernel void watershed_jump(__global const int* from, __global int* to, volatile __global int* changed, const int n) {
    const long i = get_global_id(0);
    if (i >= n) return;
    const int a = from[i];
    const int b = a < 0 ? a : from[a];
    to[i] = b;
    if (b != a) *changed = 1;
}

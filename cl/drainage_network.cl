// The stream network on a grid of D8 directions (include/portacl/drainage.hpp): Strahler order of the
// stream cells by dependency counting level by level (as the accumulation, d8_frontier.h), and
// watersheds by pointer jumping (each cell's pointer doubles its reach per launch
// until it rests on the outlet its water reaches).
#include "common/d8_grid.h"
#include "common/d8_frontier.h"

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

inline int stream_contributors(__global const uchar* dir, __global const uchar* stream, int rows, int cols, long i) {
    int n = 0;
    for (int k = 0; k < 8; ++k) n += stream_in(dir, stream, rows, cols, i, k) >= 0;
    return n;
}

// Each stream cell's number of stream contributors; the stream sources make level 0's frontier.
__kernel void strahler_dependencies(__global const uchar* dir, __global const uchar* stream, __global int* deps,
                                    __global int* frontier, volatile __global int* state, const int rows,
                                    const int cols) {
    FRONTIER_LOCALS;
    const long i = get_global_id(0);
    int source = 0;
    if (i < (long)rows * cols) {
        const int n = stream[i] == 1 ? stream_contributors(dir, stream, rows, cols, i) : 0;
        source = stream[i] == 1 && n == 0;
        deps[i] = n;
    }
    FRONTIER_SEED(frontier, state, (long)rows * cols, i, source);
}

// A stream cell's order: 1 at a source; else the largest order among its stream contributors (final
// in earlier levels, or just written by this work-item), plus one when two or more of them have it.
// A stream cell downstream that only this cell feeds is this work-item's alone and follows at once;
// otherwise the cell counts itself off there.
inline void strahler_cell(__global const uchar* dir, __global const uchar* stream, volatile __global int* deps,
                          __global int* order, const int rows, const int cols, long cell, long* out) {
    for (;;) {
        int top = 0, count = 0;
        for (int k = 0; k < 8; ++k) {
            const long n = stream_in(dir, stream, rows, cols, cell, k);
            if (n < 0) continue;
            const int v = order[n];
            if (v > top) top = v, count = 1;
            else if (v == top) ++count;
        }
        order[cell] = top == 0 ? 1 : count >= 2 ? top + 1 : top;
        const long next = downstream(dir, rows, cols, cell);
        if (next < 0 || stream[next] != 1) return;
        if (stream_contributors(dir, stream, rows, cols, next) == 1) {
            deps[next] = 0;  // no other work-item counts it
            cell = next;
            continue;
        }
        if (atomic_dec(deps + next) == 1) out[0] = next;
        return;
    }
}

// strahler_cell in the two kernels below (their arguments), for d8_frontier.h's loops.
#define STRAHLER_FINALISE(cell, level, out) strahler_cell(dir, stream, deps, order, rows, cols, cell, out)

__kernel void strahler_level(__global const uchar* dir, __global const uchar* stream, volatile __global int* deps,
                             __global int* order, __global int* frontier, volatile __global int* state,
                             const int rows, const int cols, const int level) {
    FRONTIER_LOCALS;
    FRONTIER_LEVEL(frontier, state, (long)rows * cols, level, STRAHLER_FINALISE);
}

__kernel void strahler_group(__global const uchar* dir, __global const uchar* stream, volatile __global int* deps,
                             __global int* order, __global int* frontier, volatile __global int* state,
                             const int rows, const int cols, const int first_level, const int limit) {
    FRONTIER_LOCALS;
    FRONTIER_GROUP(frontier, state, (long)rows * cols, first_level, limit, STRAHLER_FINALISE);
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

// One doubling: to[i] = to[to[i]] (reading the previous pointers, writing the next); changed[slot]
// set when a pointer moved (the host reads the flags of several jumps at once).
__kernel void watershed_jump(__global const int* from, __global int* to, volatile __global int* changed, const int slot,
                             const int n) {
    const long i = get_global_id(0);
    if (i >= n) return;
    const int a = from[i];
    const int b = a < 0 ? a : from[a];
    to[i] = b;
    if (b != a) changed[slot] = 1;
}

// Drainage on a grid of D8 directions (include/portacl/drainage.hpp): directions from heights, each
// cell's count of upstream neighbours, flow accumulation by dependency counting level by level, and
// the slides' iterative push and pull schemes. Directions are bytes 0..7 = E, NE, N, NW, W, SW, S, SE,
// NO_FLOW, NO_DATA. ACC is the accumulated type: ulong for cell counts, REAL for weighted sums.
#include "common/real.h"
#include "common/d8_grid.h"
#include "common/d8_frontier.h"

#ifndef ACC
#define ACC ulong
#endif
#ifndef WEIGHTED
#define WEIGHTED 0
#endif


// The cell that cell (r, c) drains into, or -1 (no flow, off the grid, into NoData).
inline long downstream(__global const uchar* dir, int rows, int cols, int r, int c) {
    const uchar d = dir[(long)r * cols + c];
    if (d >= NO_FLOW) return -1;
    const int rr = r + ROW_OFFSET[d], cc = c + COL_OFFSET[d];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) return -1;
    const long n = (long)rr * cols + cc;
    return dir[n] == NO_DATA ? -1 : n;
}

// True when neighbour k of (r, c) lies in the grid and drains into (r, c): its direction is k's
// opposite, (k + 4) mod 8.
inline int drains_in(__global const uchar* dir, int rows, int cols, int r, int c, int k) {
    const int rr = r + ROW_OFFSET[k], cc = c + COL_OFFSET[k];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) return 0;
    return dir[(long)rr * cols + cc] == ((k + 4) & 7);
}

// True when (r, c) has a neighbour off the grid or without data (TauDEM's edge contamination).
inline int touches_edge(__global const uchar* dir, int rows, int cols, int r, int c) {
    for (int k = 0; k < 8; ++k) {
        const int rr = r + ROW_OFFSET[k], cc = c + COL_OFFSET[k];
        if (rr < 0 || rr >= rows || cc < 0 || cc >= cols || dir[(long)rr * cols + cc] == NO_DATA) return 1;
    }
    return 0;
}

// D8 steepest descent: drop times 1/distance (multiplications and subtractions are correctly rounded
// everywhere, divisions are not), the first maximum in the order E, NE, ..., SE wins.
__kernel void d8_directions(__global const REAL* z, __global const uchar* nodata, __global uchar* dir, const int rows,
                            const int cols, const REAL inv_dx, const REAL inv_dy, const REAL inv_diag) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (nodata[i]) {
        dir[i] = NO_DATA;
        return;
    }
    const int r = (int)(i / cols), c = (int)(i % cols);
    const REAL h = z[i];
    REAL best = (REAL)0;
    uchar d = NO_FLOW;
    for (int k = 0; k < 8; ++k) {
        const int rr = r + ROW_OFFSET[k], cc = c + COL_OFFSET[k];
        if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
        const long n = (long)rr * cols + cc;
        if (nodata[n]) continue;
        const REAL inv = (k & 1) ? inv_diag : (k == 0 || k == 4) ? inv_dx : inv_dy;
        const REAL slope = (h - z[n]) * inv;
        if (slope > best) {
            best = slope;
            d = (uchar)k;
        }
    }
    dir[i] = d;
}

// The number of neighbours draining into (r, c).
inline int contributors(__global const uchar* dir, int rows, int cols, int r, int c) {
    int n = 0;
    for (int k = 0; k < 8; ++k) n += drains_in(dir, rows, cols, r, c, k);
    return n;
}

// Each cell's number of neighbours draining into it; the cells with data nothing drains into (the
// sources) make level 0's frontier (d8_frontier.h).
__kernel void d8_dependencies(__global const uchar* dir, __global int* deps, __global int* frontier,
                              volatile __global int* state, const int rows, const int cols) {
    FRONTIER_LOCALS;
    const long i = get_global_id(0);
    int source = 0;
    if (i < (long)rows * cols) {
        const int r = (int)(i / cols), c = (int)(i % cols);
        const int n = dir[i] != NO_DATA ? contributors(dir, rows, cols, r, c) : 0;
        source = dir[i] != NO_DATA && n == 0;
        deps[i] = n;
    }
    FRONTIER_SEED(frontier, state, (long)rows * cols, i, source);
}

// d8_dependencies for a tile's window (the tile and a one-cell ring of its neighbours): the ring's
// cells hold what flows in from the neighbouring tiles (set by the host) and are neither counted nor
// summed; an inner cell counts its inner contributors only, and the ring's values are pulled as any
// contributor's. The host has given the inner cells that drain into the ring no flow.
inline int on_ring(int rows, int cols, int r, int c) { return r == 0 || c == 0 || r == rows - 1 || c == cols - 1; }

__kernel void d8_window_dependencies(__global const uchar* dir, __global int* deps, __global int* frontier,
                                     volatile __global int* state, const int rows, const int cols) {
    FRONTIER_LOCALS;
    const long i = get_global_id(0);
    int source = 0;
    if (i < (long)rows * cols) {
        const int r = (int)(i / cols), c = (int)(i % cols);
        int n = 0;
        const int inner = !on_ring(rows, cols, r, c) && dir[i] != NO_DATA;
        if (inner)
            for (int k = 0; k < 8; ++k)
                n += drains_in(dir, rows, cols, r, c, k) && !on_ring(rows, cols, r + ROW_OFFSET[k], c + COL_OFFSET[k]);
        source = inner && n == 0;
        deps[i] = n;
    }
    FRONTIER_SEED(frontier, state, (long)rows * cols, i, source);
}

// A cell's own share: its weight, or 1.
inline ACC own(__global const REAL* weight, long i) {
#if WEIGHTED
    return (ACC)weight[i];
#else
    return (ACC)1;
#endif
}

// Finalises a cell of level `level`'s frontier: its own share plus its contributors' sums (final in
// earlier levels, or just written by this work-item) in the order of k. A cell downstream that only
// this cell drains into is this work-item's alone: it goes on there at once (along the chains of
// single contributors that make most hillslopes); otherwise it counts itself off that cell.
inline void accumulate_cell(__global const uchar* dir, volatile __global int* deps, __global ACC* acc,
                            __global uchar* taint, __global const REAL* weight, const int rows, const int cols,
                            const int contamination, long cell, long* out) {
    for (;;) {
        const int r = (int)(cell / cols), c = (int)(cell % cols);
        ACC sum = own(weight, cell);
        uchar t = contamination ? (uchar)touches_edge(dir, rows, cols, r, c) : (uchar)0;
        for (int k = 0; k < 8; ++k)
            if (drains_in(dir, rows, cols, r, c, k)) {
                const long n = (long)(r + ROW_OFFSET[k]) * cols + (c + COL_OFFSET[k]);
                sum += acc[n];
                t |= taint[n];
            }
        acc[cell] = sum;
        taint[cell] = t;
        const long next = downstream(dir, rows, cols, r, c);
        if (next < 0) return;
        if (contributors(dir, rows, cols, (int)(next / cols), (int)(next % cols)) == 1) {
            deps[next] = 0;  // no other work-item counts it
            cell = next;
            continue;
        }
        if (atomic_dec(deps + next) == 1) out[0] = next;
        return;
    }
}

// accumulate_cell in the two kernels below (their arguments), for d8_frontier.h's loops.
#define D8_FINALISE(cell, level, out) accumulate_cell(dir, deps, acc, taint, weight, rows, cols, contamination, cell, out)

__kernel void d8_accumulate_level(__global const uchar* dir, volatile __global int* deps, __global ACC* acc,
                                  __global uchar* taint, __global const REAL* weight, __global int* frontier,
                                  volatile __global int* state, const int rows, const int cols,
                                  const int contamination, const int level) {
    FRONTIER_LOCALS;
    FRONTIER_LEVEL(frontier, state, (long)rows * cols, level, D8_FINALISE);
}

__kernel void d8_accumulate_group(__global const uchar* dir, volatile __global int* deps, __global ACC* acc,
                                  __global uchar* taint, __global const REAL* weight, __global int* frontier,
                                  volatile __global int* state, const int rows, const int cols,
                                  const int contamination, const int first_level, const int limit) {
    FRONTIER_LOCALS;
    FRONTIER_GROUP(frontier, state, (long)rows * cols, first_level, limit, D8_FINALISE);
}

// The smallest index of a cell with data whose count never reached zero (a cell of a cycle).
__kernel void d8_first_unfinished(__global const uchar* dir, __global const int* deps, volatile __global int* first,
                                  const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (dir[i] != NO_DATA && deps[i] != 0) atomic_min(first, (int)i);
}

#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
// The slides' kernel: every cell pushes its water one cell downstream with atomics.
__kernel void d8_push_step(__global const uchar* dir, __global const ulong* current, __global ulong* next,
                           __global ulong* total, volatile __global int* moved, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    const ulong water = current[i];
    if (water == 0) return;
    const long d = downstream(dir, rows, cols, (int)(i / cols), (int)(i % cols));
    if (d < 0) return;
    atom_add(next + d, water);
    atom_add(total + d, water);
    *moved = 1;
}
#endif

// The slides' improvement: every cell gathers the water of the neighbours that drain into it.
__kernel void d8_pull_step(__global const uchar* dir, __global const ulong* current, __global ulong* next,
                           __global ulong* total, volatile __global int* moved, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    const int r = (int)(i / cols), c = (int)(i % cols);
    ulong water = 0;
    if (dir[i] != NO_DATA)
        for (int k = 0; k < 8; ++k)
            if (drains_in(dir, rows, cols, r, c, k)) water += current[(long)(r + ROW_OFFSET[k]) * cols + (c + COL_OFFSET[k])];
    next[i] = water;
    if (water) {
        total[i] += water;
        *moved = 1;
    }
}

// ---- Depression filling ----
// level[i]: the water level of cell i, from the outlets (the edge cells and the cells next to NoData,
// whose level is their height) inwards. Every other cell starts at +infinity and relaxes to
// max(its height, the lowest level among its 8 neighbours); levels only fall, and are always heights
// of the DEM, so the fixed point (the filled surface) is exact in either precision.
#ifndef FILL_TILE
#define FILL_TILE 16
#endif
#ifndef FILL_SWEEPS
#define FILL_SWEEPS 64
#endif

inline int is_outlet(__global const uchar* nodata, int rows, int cols, int r, int c) {
    if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1) return 1;
    for (int k = 0; k < 8; ++k)
        if (nodata[(long)(r + ROW_OFFSET[k]) * cols + (c + COL_OFFSET[k])]) return 1;
    return 0;
}

// Halo slot k (row-major over the (FILL_TILE + 2)^2 slots of the tile whose first cell is (r0, c0)):
// its cell's index, or -1 when that cell lies off the grid or has no data.
inline long halo_cell(__global const uchar* nodata, int rows, int cols, int r0, int c0, int k) {
    const int r = r0 + k / (FILL_TILE + 2) - 1, c = c0 + k % (FILL_TILE + 2) - 1;
    return (r >= 0 && r < rows && c >= 0 && c < cols && !nodata[(long)r * cols + c]) ? (long)r * cols + c : -1;
}

// The end of sweep s in a tile, each work-item's new value stored (`fell`: its value fell): whether
// any value of the tile fell, the same answer for every work-item. any[s & 1] collects sweep s's
// marks; any[(s + 1) & 1], read last in sweep s - 1, which every work-item has passed, is cleared by
// the lead work-item for the next sweep, so that one barrier a sweep suffices.
inline int sweep_changed(__local int* any, int s, int fell, int lead) {
    if (fell) any[s & 1] = 1;
    if (lead) any[(s + 1) & 1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    return any[s & 1];
}

__kernel void fill_init(__global const REAL* z, __global const uchar* nodata, __global REAL* level, const int rows,
                        const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    const int r = (int)(i / cols), c = (int)(i % cols);
    level[i] = (nodata[i] || is_outlet(nodata, rows, cols, r, c)) ? z[i] : (REAL)INFINITY;
}

// One FILL_TILE x FILL_TILE tile per work-group, its levels and a one-cell halo in local memory: up
// to FILL_SWEEPS Jacobi sweeps inside the tile (the halo held), then the tile's changed levels are
// written back and `changed` is raised. The host repeats until a launch changes nothing.
// A tile runs only when a level of it or of one of its 8 neighbouring tiles fell in the launch before
// (`fell_before`, a byte a tile; all 1 for the first launch), and records in `fell_now` whether one of
// its own fell: a tile whose neighbourhood stood still is at its fixed point already (it reached it
// the last time it ran, and its halo has not moved since), so only the tiles where the levels are
// moving (the front running in from the outlets) do work. A neighbour's mark already in `fell_now`
// (this launch's, or one left from the launch before last) makes it run too: running is always
// safe, and a tile that ran earlier in this launch passes its levels on at once.
__kernel void fill_tile(__global const REAL* z, __global const uchar* nodata, __global REAL* level,
                        volatile __global int* changed, const int rows, const int cols,
                        __global const uchar* fell_before, __global uchar* fell_now) {
    __local REAL w[FILL_TILE + 2][FILL_TILE + 2];
    __local int any[2];
    __local int run, tile_fell;
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx = get_group_id(0), gy = get_group_id(1), tiles_x = get_num_groups(0), tiles_y = get_num_groups(1);
    const int lead = lx == 0 && ly == 0;
    if (lead) {
        int stirred = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int ty = gy + dy, tx = gx + dx;
                if (ty >= 0 && ty < tiles_y && tx >= 0 && tx < tiles_x)
                    stirred |= fell_before[(long)ty * tiles_x + tx] | fell_now[(long)ty * tiles_x + tx];
            }
        run = stirred;
        tile_fell = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!run) {
        if (lead) fell_now[(long)gy * tiles_x + gx] = 0;
        return;
    }
    const int c0 = gx * FILL_TILE, r0 = gy * FILL_TILE;
    for (int k = ly * FILL_TILE + lx; k < (FILL_TILE + 2) * (FILL_TILE + 2); k += FILL_TILE * FILL_TILE) {
        const long j = halo_cell(nodata, rows, cols, r0, c0, k);
        w[k / (FILL_TILE + 2)][k % (FILL_TILE + 2)] = j >= 0 ? level[j] : (REAL)INFINITY;
    }
    const int r = r0 + ly, c = c0 + lx;
    const long i = (long)r * cols + c;
    const int active = r < rows && c < cols && !nodata[i] && !is_outlet(nodata, rows, cols, r, c);
    const REAL h = active ? z[i] : (REAL)0;
    if (lead) any[0] = 0;
    int mine = 0;
    // The global fence too: the tile's levels were read from global memory by other work-items than
    // those that write them back.
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int s = 0; s < FILL_SWEEPS; ++s) {
        REAL next = (REAL)0;
        if (active) {
            REAL m = w[ly + 1][lx + 1];
            for (int k = 0; k < 8; ++k) m = fmin(m, w[ly + 1 + ROW_OFFSET[k]][lx + 1 + COL_OFFSET[k]]);
            next = fmax(h, m);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int fell = active && next < w[ly + 1][lx + 1];
        if (fell) w[ly + 1][lx + 1] = next;
        if (fell) tile_fell = 1;
        mine |= fell;
        if (!sweep_changed(any, s, fell, lead)) break;
    }
    if (mine) {
        level[i] = w[ly + 1][lx + 1];
        *changed = 1;
    }
    // Every sweep ended at a barrier, after which tile_fell holds all of them.
    if (lead) fell_now[(long)gy * tiles_x + gx] = (uchar)tile_fell;
}

// ---- Labels of a filled tile (tiled depression filling, host/drainage/tiled_fill.cpp) ----
// Each outlet of the tile (its edge cells and those next to NoData) is labelled by its own index;
// every other cell relaxes to the smallest label among itself and its neighbours with data whose
// level is no higher than its own. A label so carried runs down a chain of levels no higher than the
// cell's, so the cell reaches its label's outlet without rising above its level: the property the
// host's graph of labels needs. As fill_tile: FILL_TILE x FILL_TILE cells a work-group, up to
// FILL_SWEEPS sweeps in local memory a launch, until a launch changes nothing.
__kernel void fill_label_init(__global const uchar* nodata, __global int* label, const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    const int r = (int)(i / cols), c = (int)(i % cols);
    label[i] = (!nodata[i] && is_outlet(nodata, rows, cols, r, c)) ? (int)i : INT_MAX;
}

__kernel void fill_label_tile(__global const REAL* level, __global const uchar* nodata, __global int* label,
                              volatile __global int* changed, const int rows, const int cols) {
    __local int w[FILL_TILE + 2][FILL_TILE + 2];
    __local REAL lv[FILL_TILE + 2][FILL_TILE + 2];
    __local int any[2];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int c0 = get_group_id(0) * FILL_TILE, r0 = get_group_id(1) * FILL_TILE;
    for (int k = ly * FILL_TILE + lx; k < (FILL_TILE + 2) * (FILL_TILE + 2); k += FILL_TILE * FILL_TILE) {
        const int hy = k / (FILL_TILE + 2), hx = k % (FILL_TILE + 2);
        const long j = halo_cell(nodata, rows, cols, r0, c0, k);
        w[hy][hx] = j >= 0 ? label[j] : INT_MAX;
        lv[hy][hx] = j >= 0 ? level[j] : (REAL)INFINITY;
    }
    const int r = r0 + ly, c = c0 + lx;
    const long i = (long)r * cols + c;
    const int active = r < rows && c < cols && !nodata[i] && !is_outlet(nodata, rows, cols, r, c);
    if (lx == 0 && ly == 0) any[0] = 0;
    int mine = 0;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // as fill_tile's
    const REAL own = lv[ly + 1][lx + 1];
    for (int s = 0; s < FILL_SWEEPS; ++s) {
        int next = w[ly + 1][lx + 1];
        if (active)
            for (int k = 0; k < 8; ++k) {
                const int y = ly + 1 + ROW_OFFSET[k], x = lx + 1 + COL_OFFSET[k];
                if (lv[y][x] <= own) next = min(next, w[y][x]);
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int fell = active && next < w[ly + 1][lx + 1];
        if (fell) w[ly + 1][lx + 1] = next;
        mine |= fell;
        if (!sweep_changed(any, s, fell, lx == 0 && ly == 0)) break;
    }
    if (mine) {
        label[i] = w[ly + 1][lx + 1];
        *changed = 1;
    }
}

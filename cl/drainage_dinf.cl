// D∞ flow directions and accumulation (Tarboton 1997; include/portacl/drainage.hpp). A direction is
// an angle in radians counter-clockwise from east in [0, 2π), DINF_NO_FLOW where no facet descends,
// DINF_NO_DATA without data. The angle's flow splits between the two neighbours it lies between, in
// proportion to its angles to them. The neighbours' own angles (0, δ, π/2, π - δ, ... with δ the
// diagonal's, atan2(dy, dx)) come from the host as `diagonal`, so that both sides use one table. The accumulation is the level-by-level order of d8_frontier.h
// with up to two cells downstream of each cell: a cell is summed (pulling its contributors' shares in
// the order E, NE, ..., SE) once every contributor is final.
#include "common/real.h"
#include "common/d8_grid.h"
#include "common/d8_frontier.h"

#define DINF_NO_FLOW ((REAL)-1)
#define DINF_NO_DATA ((REAL)-2)
#define HALF_PI ((REAL)1.57079632679489661923)
#define TWO_PI ((REAL)6.28318530717958647692)

// The 8 triangular facets around a cell: a cardinal neighbour e1, a diagonal one e2 (direction codes
// 0..7 = E, NE, ..., SE) and the angle's base (in quarter turns) and sign: angle = AC π/2 + AF r.
__constant int FACET_E1[8] = {0, 2, 2, 4, 4, 6, 6, 0};
__constant int FACET_E2[8] = {1, 1, 3, 3, 5, 5, 7, 7};
__constant int FACET_AC[8] = {0, 1, 1, 2, 2, 3, 3, 4};
__constant int FACET_AF[8] = {1, -1, 1, -1, 1, -1, 1, -1};

#ifndef ACC
#define ACC REAL
#endif
#ifndef WEIGHTED
#define WEIGHTED 0
#endif

// Neighbour k of (r, c) in the grid and with data: its index, else -1.
inline long dinf_neighbour(__global const uchar* nodata, int rows, int cols, int r, int c, int k) {
    const int rr = r + ROW_OFFSET[k], cc = c + COL_OFFSET[k];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) return -1;
    const long n = (long)rr * cols + cc;
    return nodata[n] ? -1 : n;
}

// The angle of the neighbour in direction k (0..7).
inline REAL direction_angle(int k, REAL diagonal) {
    switch (k) {
        case 0: return (REAL)0;
        case 1: return diagonal;
        case 2: return HALF_PI;
        case 3: return 2 * HALF_PI - diagonal;
        case 4: return 2 * HALF_PI;
        case 5: return 2 * HALF_PI + diagonal;
        case 6: return 3 * HALF_PI;
        default: return TWO_PI - diagonal;
    }
}

// The steepest facet's angle: s1 the drop to e1 over its distance d1, s2 the drop from e1 to e2 over
// d2; the direction r = atan2(s2, s1) inside the facet. Where r falls outside the facet the direction
// is the edge's own (e1's or e2's angle exactly), the slope the edge's; the angle is held between e1's
// and e2's, so that only they receive. The first facet of greatest slope wins; a facet with a
// neighbour off the grid or without data is skipped.
// A facet whose every candidate slope (s1, the diagonal edge's, the inside one) is no more than the
// best so far cannot win: on PoCL, whose work-items run as scalar code, its atan2 is skipped (the
// choice unchanged); a vectorising compiler (Intel's CPU runtime, GPUs) pays more for the branch.
#if defined(PORTACL_POCL)
#define DINF_SKIP_LOSING_FACETS 1
#else
#define DINF_SKIP_LOSING_FACETS 0
#endif
__kernel void dinf_directions(__global const REAL* z, __global const uchar* nodata, __global REAL* angle, const int rows,
                              const int cols, const REAL dx, const REAL dy, const REAL diagonal) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (nodata[i]) {
        angle[i] = DINF_NO_DATA;
        return;
    }
    const int r = (int)(i / cols), c = (int)(i % cols);
    const REAL e0 = z[i];
    // The facets' edge angles and diagonal lengths, two of each (facets whose first edge runs east or
    // west, then north or south), in the expressions each facet used.
    const REAL edgeEastWest = atan2(dy, dx), edgeNorthSouth = atan2(dx, dy);
    const REAL diagonalEastWest = sqrt(dx * dx + dy * dy), diagonalNorthSouth = sqrt(dy * dy + dx * dx);
    REAL best = (REAL)0, a = DINF_NO_FLOW;
    for (int f = 0; f < 8; ++f) {
        const long n1 = dinf_neighbour(nodata, rows, cols, r, c, FACET_E1[f]);
        const long n2 = dinf_neighbour(nodata, rows, cols, r, c, FACET_E2[f]);
        if (n1 < 0 || n2 < 0) continue;
        const int eastWest = (FACET_E1[f] & 3) == 0;
        const REAL d1 = eastWest ? dx : dy, d2 = eastWest ? dy : dx;
        const REAL s1 = (e0 - z[n1]) / d1, s2 = (z[n1] - z[n2]) / d2;
        const REAL inside = sqrt(s1 * s1 + s2 * s2), alongEdge = (e0 - z[n2]) / (eastWest ? diagonalEastWest : diagonalNorthSouth);
        if (DINF_SKIP_LOSING_FACETS && !(fmax(fmax(s1, inside), alongEdge) > best)) continue;
        const REAL t = atan2(s2, s1), edge = eastWest ? edgeEastWest : edgeNorthSouth;
        // e1's angle (2π for E in the last facet) and e2's.
        const REAL a1 = f == 7 ? TWO_PI : direction_angle(FACET_E1[f], diagonal), a2 = direction_angle(FACET_E2[f], diagonal);
        REAL s, af;
        if (t <= 0) {
            s = s1;
            af = a1;
        } else if (t >= edge) {
            s = alongEdge;
            af = a2;
        } else {
            s = inside;
            af = clamp(FACET_AC[f] * HALF_PI + FACET_AF[f] * t, fmin(a1, a2), fmax(a1, a2));
        }
        if (s > best) {
            best = s;
            a = af;
        }
    }
    if (a >= TWO_PI) a -= TWO_PI;
    angle[i] = a;
}

// The facet a cell's flow (angle a >= 0) falls in: the direction k below it (0..7) and the fraction f
// of the way on to k + 1 (mod 8); k receives 1 - f of the flow, k + 1 receives f.
inline int flow_facet(REAL a, REAL diagonal, REAL* f) {
    int k = 7;
    while (k > 0 && direction_angle(k, diagonal) > a) --k;
    const REAL lo = direction_angle(k, diagonal), hi = k == 7 ? TWO_PI : direction_angle(k + 1, diagonal);
    *f = (a - lo) / (hi - lo);
    return k;
}

// The share of the flow of facet (k, f) that goes to the neighbour in direction d (0..7).
inline REAL facet_share(int k, REAL f, int d) { return d == k ? 1 - f : d == ((k + 1) & 7) ? f : 0; }

// The share of a cell's flow (angle a) that goes to its neighbour in direction d (0..7).
inline REAL share_to(REAL a, int d, REAL diagonal) {
    if (a < 0) return 0;
    REAL f;
    const int k = flow_facet(a, diagonal, &f);
    return facet_share(k, f, d);
}

// Neighbour k of cell (r, c) that sends part of its flow into it: its index, with that share in
// *share, else -1.
inline long dinf_contributor(__global const REAL* angle, __global const uchar* nodata, int rows, int cols, REAL diagonal,
                             int r, int c, int k, REAL* share) {
    const long n = dinf_neighbour(nodata, rows, cols, r, c, k);
    if (n < 0) return -1;
    *share = share_to(angle[n], (k + 4) & 7, diagonal);
    return *share > 0 ? n : -1;
}

__kernel void dinf_dependencies(__global const REAL* angle, __global const uchar* nodata, __global int* deps,
                                __global int* frontier, volatile __global int* state, const int rows, const int cols,
                                const REAL diagonal) {
    FRONTIER_LOCALS;
    const long i = get_global_id(0);
    int source = 0;
    if (i < (long)rows * cols) {
        int n = 0;
        if (!nodata[i]) {
            const int r = (int)(i / cols), c = (int)(i % cols);
            REAL share;
            for (int k = 0; k < 8; ++k) n += dinf_contributor(angle, nodata, rows, cols, diagonal, r, c, k, &share) >= 0;
            source = n == 0;
        }
        deps[i] = n;
    }
    FRONTIER_SEED(frontier, state, (long)rows * cols, i, source);
}

// dinf_dependencies for a tile's window (the tile and a one-cell ring of its neighbours): the ring's
// cells hold what flows in from the neighbouring tiles (set by the host) and are neither counted nor
// summed; an inner cell counts its inner contributors only, and pulls the ring's shares as any
// contributor's, in the one-piece order. An inner cell's flow into the ring counts the ring cell
// below zero, which never brings it into a frontier.
inline int dinf_on_ring(int rows, int cols, int r, int c) { return r == 0 || c == 0 || r == rows - 1 || c == cols - 1; }

__kernel void dinf_window_dependencies(__global const REAL* angle, __global const uchar* nodata, __global int* deps,
                                       __global int* frontier, volatile __global int* state, const int rows,
                                       const int cols, const REAL diagonal) {
    FRONTIER_LOCALS;
    const long i = get_global_id(0);
    int source = 0;
    if (i < (long)rows * cols) {
        const int r = (int)(i / cols), c = (int)(i % cols);
        int n = 0;
        const int inner = !dinf_on_ring(rows, cols, r, c) && !nodata[i];
        if (inner) {
            REAL share;
            for (int k = 0; k < 8; ++k)
                n += !dinf_on_ring(rows, cols, r + ROW_OFFSET[k], c + COL_OFFSET[k]) &&
                     dinf_contributor(angle, nodata, rows, cols, diagonal, r, c, k, &share) >= 0;
            source = n == 0;
        }
        deps[i] = n;
    }
    FRONTIER_SEED(frontier, state, (long)rows * cols, i, source);
}

inline ACC dinf_own(__global const REAL* weight, long i) {
#if WEIGHTED
    return (ACC)weight[i];
#else
    return (ACC)1;
#endif
}

// Sums a cell of the frontier, then counts it off each cell it sends flow to.
inline void dinf_cell(__global const REAL* angle, __global const uchar* nodata, volatile __global int* deps,
                      __global ACC* acc, __global const REAL* weight, const int rows, const int cols, const REAL diagonal,
                      const long cell, long* out) {
    const int r = (int)(cell / cols), c = (int)(cell % cols);
    ACC sum = dinf_own(weight, cell);
    for (int k = 0; k < 8; ++k) {
        REAL share;
        const long n = dinf_contributor(angle, nodata, rows, cols, diagonal, r, c, k, &share);
        if (n >= 0) sum += acc[n] * share;
    }
    acc[cell] = sum;
    const REAL a = angle[cell];
    if (a < 0) return;
    REAL f;
    const int facet = flow_facet(a, diagonal, &f);
    int completed = 0;  // at most two: the facet's two directions
    for (int k = 0; k < 8; ++k) {
        if (facet_share(facet, f, k) <= 0) continue;
        const long next = dinf_neighbour(nodata, rows, cols, r, c, k);
        if (next >= 0 && atomic_dec(deps + next) == 1) out[completed++] = next;
    }
}

// dinf_cell in the two kernels below (their arguments), for d8_frontier.h's loops.
#define DINF_FINALISE(cell, level, out) dinf_cell(angle, nodata, deps, acc, weight, rows, cols, diagonal, cell, out)

__kernel void dinf_accumulate_level(__global const REAL* angle, __global const uchar* nodata, volatile __global int* deps,
                                    __global ACC* acc, __global const REAL* weight, __global int* frontier,
                                    volatile __global int* state, const int rows, const int cols, const REAL diagonal,
                                    const int level) {
    FRONTIER_LOCALS;
    FRONTIER_LEVEL(frontier, state, (long)rows * cols, level, DINF_FINALISE);
}

__kernel void dinf_accumulate_group(__global const REAL* angle, __global const uchar* nodata, volatile __global int* deps,
                                    __global ACC* acc, __global const REAL* weight, __global int* frontier,
                                    volatile __global int* state, const int rows, const int cols, const REAL diagonal,
                                    const int first_level, const int limit) {
    FRONTIER_LOCALS;
    FRONTIER_GROUP(frontier, state, (long)rows * cols, first_level, limit, DINF_FINALISE);
}

// The smallest index of a cell with data whose count never reached zero (a cell of a cycle).
__kernel void dinf_first_unfinished(__global const uchar* nodata, __global const int* deps, volatile __global int* first,
                                    const int rows, const int cols) {
    const long i = get_global_id(0);
    if (i >= (long)rows * cols) return;
    if (!nodata[i] && deps[i] != 0) atomic_min(first, (int)i);
}

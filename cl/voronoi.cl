// End-vertex search of the Voronoi edges of one tracing wave, the candidates pruned by a uniform grid.
// Built twice, as the engine's append-list two-phase dispatch (common/two_phase.h, float then double):
// phase 1 in float flags the searches float cannot decide and appends them to the wave's list of
// flagged searches (an atomic counter: the list's order does not matter, each search writes its own
// answer), phase 2 redoes the listed ones in double (or all, in double mode), over a bounded grid that
// loops over the list. A search's candidates are split over the
// lanes (work-items) of the search, each lane keeps its best candidate, and the lanes' partial
// searches are merged in local memory (vor_search_merge does not depend on the order, so the answer
// and the flags are those of one work-item walking every candidate). Why: a launch lasts as long as
// its slowest search, and one work-item walking hundreds of candidates leaves the GPU idle.
//   voronoi_edges_*:          VOR_LANES lanes per search, VOR_GROUP / VOR_LANES searches per
//                             work-group (VOR_LANES = 1: one work-item per search, no local memory);
//                             up to three passes (a wider radius, then every ball) in one launch.
//   voronoi_edges_flagged_phase2: the same searches, VOR_FLAGGED lanes each (a work-group per search):
//                             phase 2 of mixed mode, where the flagged searches are few.
//   voronoi_edges_wide_*:     VOR_WIDE lanes per search (the searches with many candidates: the wider
//                             retries, and the searches of every ball that prove an edge unbounded);
//                             up to three passes.
#pragma OPENCL FP_CONTRACT OFF
#include "common/real.h"
#include "common/two_phase.h"
#include "common/voronoi_geometry.h"

// Searches with a radius at least this large scan the whole grid (an edge that may be unbounded).
#define VOR_ALL_BALLS 1e29f
#ifndef VOR_WIDE
#define VOR_WIDE 64  // work-items per search in the wide kernels (a power of two)
#endif
#ifndef VOR_LANES
#define VOR_LANES 1  // work-items per search in the narrow kernels (a power of two)
#endif
#ifndef VOR_GROUP
#define VOR_GROUP VOR_LANES  // work-group size of the narrow kernels (a multiple of VOR_LANES)
#endif
#ifndef VOR_FLAGGED
#define VOR_FLAGGED VOR_WIDE  // work-items per search in voronoi_edges_flagged_phase2 (a power of two)
#endif
// Passes of a search in one launch: the first radius, a wider one, every ball (Tracer::solve takes the
// same passes), narrow and wide alike: a retry left to the next wave would cost a wave.
#define VOR_PASSES 3
#ifndef VOR_PRUNE
#define VOR_PRUNE 0  // 1: double searches skip the balls whose line misses the arc up to the best found
#endif
// A pruned search's near cells: those of the cube of half-size t0 + rmax3 + VOR_NEAR (Å) around the
// start centre.
#define VOR_NEAR 1

// One search in progress: its frame, start, candidate box (in grid cells) and state.
typedef struct {
    vor_frame f;
    vor_search q;
    real4 c1, st;
    real t0, s0, R, h;
    real p[3], gl[3];  // the start centre and the grid origin (absolute)
    int4 task;
    int flag;        // float cannot be trusted with this search
    int valid;       // the three balls have an edge
    int lo[3], hi[3], dm[3];
    int ballBase, cellBase, startBase;  // the frame's offsets into the concatenated arrays
} vor_edge;

#define VOR_ARGS                                                                                              \
    const uint first, __global const int4 *tasks, __global const int *taskFrame, __global const real4 *starts, \
        __global const real *radii, __global const real4 *balls, __global const int *cellStart,              \
        __global const real4 *cellBalls, __global const int *cellIndex, __global const real4 *frameGrid,     \
        __global const int4 *frameDims, __global const int2 *frameOffsets, __global const real *frameRmax,   \
        const real tieEps, const real flagTol, __global int2 *answer
#define VOR_PASS                                                                                              \
    first, tasks, taskFrame, starts, radii, balls, cellStart, cellBalls, cellIndex, frameGrid, frameDims,    \
        frameOffsets, frameRmax, tieEps, flagTol, answer
// The kernels' arguments: the searches [first, first + n) of the wave (a part: the narrow or the wide
// ones), all of the wave's arrays in one buffer (one transfer each way per wave) at the byte offsets
// waveAt = (tasks, frames, starts, radii, flagged count, answers, flagged list, -);
// VOR_UNPACK names them as VOR_ARGS does. Both parts' flagged searches go to one list, as wave
// indices (first + item), so that mixed mode's phase 2 is one launch over the whole wave.
#define VOR_KERNEL_ARGS                                                                                       \
    const uint n, const uint first, __global uchar *wave, const uint8 waveAt,                                 \
        __global const real4 *balls, __global const int *cellStart, __global const real4 *cellBalls,           \
        __global const int *cellIndex, __global const real4 *frameGrid, __global const int4 *frameDims,        \
        __global const int2 *frameOffsets, __global const real *frameRmax, const real tieEps, const real flagTol
#define VOR_UNPACK                                                                                            \
    __global const int4* tasks = (__global const int4*)(wave + waveAt.s0);                                    \
    __global const int* taskFrame = (__global const int*)(wave + waveAt.s1);                                  \
    __global const real4* starts = (__global const real4*)(wave + waveAt.s2);                                 \
    __global const real* radii = (__global const real*)(wave + waveAt.s3);                                    \
    __global uint* flaggedCount = (__global uint*)(wave + waveAt.s4);                                         \
    __global int2* answer = (__global int2*)(wave + waveAt.s5);                                               \
    __global uint* flagged = (__global uint*)(wave + waveAt.s6)

// The candidate box of search radius R (balls within R of the start vertex's centre; every ball from
// VOR_ALL_BALLS on), and the search started afresh. Returns how many balls the box holds (what the
// host's candidateCount gives). With flagTol > 0, sets the flag when a box face is so near a cell
// boundary that float may take another box than double (the count decides where a retry runs).
static int edge_box(vor_edge* e, const real R, __global const int* cellStart, const real flagTol) {
    e->R = R;
    vor_search_init(&e->q, e->q.x0, e->q.dir, e->q.tieEps, e->q.grazeTol, e->q.startBall);
    for (int a = 0; a < 3; ++a) {
        if (R >= VOR_ALL_BALLS) {
            e->lo[a] = 0;
            e->hi[a] = e->dm[a] - 1;
            continue;
        }
        const real l = (e->p[a] - R - e->gl[a]) / e->h, u = (e->p[a] + R - e->gl[a]) / e->h;
        e->lo[a] = l < 0 ? 0 : (l >= e->dm[a] ? e->dm[a] : (int)l);
        e->hi[a] = u < 0 ? -1 : (u >= e->dm[a] - 1 ? e->dm[a] - 1 : (int)u);
        if (flagTol > 0 && (fabs(l - round(l)) < flagTol * (1 + fabs(l)) || fabs(u - round(u)) < flagTol * (1 + fabs(u))))
            e->flag = 1;
    }
    if (!cellStart || e->lo[0] > e->hi[0]) return 0;
    cellStart += e->startBase;
    int count = 0;
    for (int z = e->lo[2]; z <= e->hi[2]; ++z)
        for (int y = e->lo[1]; y <= e->hi[1]; ++y) {
            const int row = (z * e->dm[1] + y) * e->dm[0];
            count += cellStart[row + e->hi[0] + 1] - cellStart[row + e->lo[0]];
        }
    return count;
}

// Sets up the search of task i (the wave's task first + item): frame, start direction, candidate box.
static void edge_begin(const uint i, VOR_ARGS, vor_edge* e) {
    // The task's frame: its balls, grid (origin and cell size), grid shape and offsets into the
    // concatenated arrays of all frames of the batch.
    const int fr = taskFrame[i];
    const real4 grid = frameGrid[fr];
    const int4 dims = frameDims[fr];
    const int2 offs = frameOffsets[fr];
    const real h = grid.w;
    e->ballBase = offs.x;
    e->cellBase = offs.y;
    e->startBase = dims.w;
    balls += offs.x;
    const int4 task = tasks[i];
    e->task = task;
    const real4 c1 = balls[task.x], c2 = balls[task.y], c3 = balls[task.z], bs = balls[task.w];
    e->c1 = c1;
    e->f = vor_make_frame(c1.w, c2.x - c1.x, c2.y - c1.y, c2.z - c1.z, c2.w, c3.x - c1.x, c3.y - c1.y, c3.z - c1.z,
                          c3.w);
    e->valid = e->f.kind != 0;
    e->flag = 1;
    e->dm[0] = dims.x, e->dm[1] = dims.y, e->dm[2] = dims.z;
    for (int a = 0; a < 3; ++a) e->lo[a] = 0, e->hi[a] = -1;
    if (!e->valid) return;
    const vor_frame* f = &e->f;
    e->flag = (f->gram < flagTol || fabs(f->Q2) < flagTol) ? 1 : 0;
    const real4 st = starts[i];
    e->st = st;
    const real t0 = st.w, s0 = st.x * f->nx + st.y * f->ny + st.z * f->nz;
    e->t0 = t0;
    e->s0 = s0;
    real slope;
    const int dir = vor_start_direction(f, t0, s0, bs.x - c1.x, bs.y - c1.y, bs.z - c1.z, bs.w, &slope);
    if (slope < flagTol) e->flag = 1;
    vor_search_init(&e->q, vor_param(f, t0, s0), dir, tieEps, flagTol > 0 ? flagTol : tieEps, task.w);

    e->p[0] = c1.x + st.x, e->p[1] = c1.y + st.y, e->p[2] = c1.z + st.z;
    e->gl[0] = grid.x, e->gl[1] = grid.y, e->gl[2] = grid.z;
    e->h = h;
    edge_box(e, radii[i], 0, 0);
}

// Offers lane `lane` of `lanes` (a power of two) its share of the box's candidates: the box's balls
// numbered row after row (a row's cells are consecutive in the grid, so its balls are one range of
// cellBalls), the lane takes the numbers equal to `lane` modulo `lanes` (every lane gets as many,
// however short the rows are).
static void edge_cells(vor_edge* e, const int lane, const int lanes, __global const int* cellStart,
                       __global const real4* cellBalls, __global const int* cellIndex, const real flagTol) {
    cellStart += e->startBase;
    cellBalls += e->cellBase;
    cellIndex += e->cellBase;
    const real R = e->R, R2 = R * R;
    const real4 c1 = e->c1, st = e->st;
    const int4 task = e->task;
    int seen = 0;  // candidates in the rows before this one
    for (int z = e->lo[2]; z <= e->hi[2]; ++z)
        for (int y = e->lo[1]; y <= e->hi[1]; ++y) {
            const int row = (z * e->dm[1] + y) * e->dm[0];
            const int begin = cellStart[row + e->lo[0]], stop = cellStart[row + e->hi[0] + 1];
            const int skip = (lane - seen) & (lanes - 1);
            seen += stop - begin;
            for (int j = begin + skip; j < stop; j += lanes) {
                const int m = cellIndex[j];
                if (m == task.x || m == task.y || m == task.z) continue;
                const real4 b = cellBalls[j];
                const real dx = b.x - c1.x, dy = b.y - c1.y, dz = b.z - c1.z;
                const real ex = dx - st.x, ey = dy - st.y, ez = dz - st.z;
                const real e2 = ex * ex + ey * ey + ez * ez;
                // Float may put a ball on the other side of the search radius than double does
                // (the distance's rounding is ~1e-7 relative: 1e-5 is safe).
                if (R < VOR_ALL_BALLS && fabs(e2 - R2) < (real)1e-2 * flagTol * R2) e->flag = 1;
                if (R < VOR_ALL_BALLS && e2 > R2) continue;
                vor_search_consider(&e->f, &e->q, m, dx, dy, dz, b.w);
            }
        }
}

// edge_cells pruned (double: no flags to keep), over the cells [lo, hi] of the box less the cells
// [skipLo, skipHi] (none when skipLo[0] > skipHi[0]): a candidate is offered only if its line meets
// the arc up to the best found so far (vor_search_hull, vor_hull_gap; most do not). The lane's balls
// of a row segment four at a time, in explicit vectors (the last ones of a segment padded with its
// first, not offered); a triangle redrawn within four balls is used from the next four (the older
// one holds the shorter arc too).
static void edge_cells_pruned(vor_edge* e, const int lane, const int lanes, __global const int* cellStart,
                              __global const real4* cellBalls, __global const int* cellIndex, const int lo[3],
                              const int hi[3], const int skipLo[3], const int skipHi[3]) {
    cellStart += e->startBase;
    cellBalls += e->cellBase;
    cellIndex += e->cellBase;
    const real R = e->R, R2 = R * R;
    const real4 c1 = e->c1, st = e->st;
    const int4 task = e->task;
    real seenBest = e->q.best;
    vor_hull hull = vor_search_hull(&e->f, &e->q, e->t0, e->s0);
    int seen = 0;  // candidates in the row segments before this one
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y) {
            const int row = (z * e->dm[1] + y) * e->dm[0];
            // The row's cells [lo, hi] in two segments, around the skipped cells where they cross the row.
            const int crossed = z >= skipLo[2] && z <= skipHi[2] && y >= skipLo[1] && y <= skipHi[1];
            const int cut0 = crossed ? skipLo[0] : hi[0] + 1, cut1 = crossed ? skipHi[0] + 1 : hi[0] + 1;
            for (int part = 0; part < 2; ++part) {
                const int x0 = part ? cut1 : lo[0], x1 = part ? hi[0] : cut0 - 1;
                if (x0 > x1) continue;
                const int begin = cellStart[row + x0], stop = cellStart[row + x1 + 1];
                const int skip = (lane - seen) & (lanes - 1);
                seen += stop - begin;
                for (int j = begin + skip; j < stop; j += 4 * lanes) {
                    const int j1 = j + lanes < stop ? j + lanes : j, j2 = j + 2 * lanes < stop ? j + 2 * lanes : j,
                              j3 = j + 3 * lanes < stop ? j + 3 * lanes : j;
                    const real4 b0 = cellBalls[j], b1 = cellBalls[j1], b2 = cellBalls[j2], b3 = cellBalls[j3];
                    const real4 dx = (real4)(b0.x, b1.x, b2.x, b3.x) - c1.x, dy = (real4)(b0.y, b1.y, b2.y, b3.y) - c1.y,
                                dz = (real4)(b0.z, b1.z, b2.z, b3.z) - c1.z, rk = (real4)(b0.w, b1.w, b2.w, b3.w);
                    const real4 ex = dx - st.x, ey = dy - st.y, ez = dz - st.z;
                    const real4 e2 = ex * ex + ey * ey + ez * ez;
                    int4 take = (int4)(1, j1 != j, j2 != j, j3 != j);
                    if (R < VOR_ALL_BALLS) take &= convert_int4(e2 <= R2);
                    if (hull.usable) take &= ~convert_int4(vor_hull_gap(&e->f, &hull, dx, dy, dz, rk) < 0);  // NaN: taken
                    if (!any(take != 0)) continue;
                    const int at[4] = {j, j1, j2, j3}, taken[4] = {take.s0, take.s1, take.s2, take.s3};
                    for (int k = 0; k < 4; ++k) {
                        if (!taken[k]) continue;
                        const int m = cellIndex[at[k]];
                        if (m == task.x || m == task.y || m == task.z) continue;
                        const real4 b = cellBalls[at[k]];
                        vor_search_consider(&e->f, &e->q, m, b.x - c1.x, b.y - c1.y, b.z - c1.z, b.w);
                        if (e->q.best != seenBest) {
                            seenBest = e->q.best;
                            hull = vor_search_hull(&e->f, &e->q, e->t0, e->s0);
                        }
                    }
                }
            }
        }
}

// The search's candidates. Pruned (VOR_PRUNE, double: no flags to keep): the cells near the start
// first, whose balls end nearly every edge, then the rest of the box (edge_cells_pruned); the best,
// and so the answer, is what every candidate gives. Float offers every candidate: its flags count
// near misses anywhere on the edge.
static void edge_scan(vor_edge* e, const int lane, const int lanes, __global const int* cellStart,
                      __global const real4* cellBalls, __global const int* cellIndex, const real flagTol) {
    if (e->lo[0] > e->hi[0]) return;
    if (!(VOR_PRUNE && PORTACL_DOUBLE && flagTol == 0)) {
        edge_cells(e, lane, lanes, cellStart, cellBalls, cellIndex, flagTol);
        return;
    }
    // The near cells: those of the cube of half-size t0 + rmax3 + VOR_NEAR around the start centre,
    // within the box.
    const real near = e->t0 + e->f.rmax3 + VOR_NEAR;
    int nlo[3], nhi[3];
    for (int a = 0; a < 3; ++a) {
        const real l = (e->p[a] - near - e->gl[a]) / e->h, u = (e->p[a] + near - e->gl[a]) / e->h;
        nlo[a] = l < e->lo[a] ? e->lo[a] : (l > e->hi[a] ? e->hi[a] : (int)l);
        nhi[a] = u < nlo[a] ? nlo[a] : (u > e->hi[a] ? e->hi[a] : (int)u);
    }
    const int none[3] = {0, 0, 0}, noneHi[3] = {-1, -1, -1};
    edge_cells_pruned(e, lane, lanes, cellStart, cellBalls, cellIndex, nlo, nhi, none, noneHi);
    // The box's bounds in private arrays: e points to the generic space under OpenCL C 2.0 and later
    // (PoCL 5), and a private array parameter takes no generic pointer.
    const int lo[3] = {e->lo[0], e->lo[1], e->lo[2]}, hi[3] = {e->hi[0], e->hi[1], e->hi[2]};
    edge_cells_pruned(e, lane, lanes, cellStart, cellBalls, cellIndex, lo, hi, nlo, nhi);
}

// The search's decision: *end the end ball (or -1), *retry 0 or the search radius to redo the search
// with; returns 1 when float cannot be trusted with this search.
static int edge_decide(const vor_edge* e, __global const real4* frameGrid, __global const int4* frameDims,
                       __global const int* taskFrame, __global const real* frameRmax, const real flagTol,
                       const uint i, int* end, float* retry) {
    if (!e->valid) return 1;
    const int fr = taskFrame[i];
    const int4 dims = frameDims[fr];
    const real rmax = frameRmax[fr];
    const real R = e->R;
    const vor_frame* f = &e->f;
    const vor_search* q = &e->q;
    int flag = e->flag;
    // Beyond this radius a search takes every ball.
    const real span = frameGrid[fr].w * (real)(dims.x + dims.y + dims.z) + rmax;
    // A root near a decision, whether or not a ball was found (no ball: the edge may be unbounded).
    if (flagTol > 0 && q->grazed) flag = 1;
    // A root float cannot place within the tolerance may come before the end (or be the end).
    if (q->uLow < q->best + flagTol) flag = 1;
    if (q->bestK >= 0) {
        const real need =
            vor_arc_reach(f, e->t0, e->s0, q->x0, q->bestT, q->bestS, vor_param(f, q->bestT, q->bestS), q->dir) + rmax;
        if (fabs(need - R) < flagTol * (1 + need) || (flagTol > 0 && vor_retry_ambiguous(need, (real)0.1 * flagTol))) flag = 1;
        if (q->best < flagTol || q->second - q->best < flagTol || q->bestCond < flagTol) flag = 1;
        if (need > R) {
            // Float may take the other side of span than double (every ball, or not).
            if (fabs(need - span) < flagTol * (1 + span)) flag = 1;
            *retry = need < span ? (float)vor_retry_radius(need) : 2 * VOR_ALL_BALLS;
            return flag;
        }
        *end = q->bestK;
    } else if (R < VOR_ALL_BALLS) {
        // Nothing within R: a wider search, then every ball once the grid is covered.
        if (fabs(4 * R - span) < flagTol * (1 + span)) flag = 1;
        *retry = 4 * R < span ? (float)(4 * R) : 2 * VOR_ALL_BALLS;
    }
    return flag;
}

// The answer's second word: the retry radius (>= 0, in float), with the sign bit set in phase 1 when
// float cannot be trusted with the search (float mode keeps such answers: the host checks the vertex
// they give; phase 2 rewrites the answers of the searches it redoes without the bit).
static int answer_retry(const float retry, const int flag) {
    return as_int(retry) | (!PORTACL_DOUBLE && flag ? (int)0x80000000u : 0);
}

// The radius a retry asks for, as the host would search with it (the answer carries it in float).
static real retry_radius(const float retry) { return retry >= VOR_ALL_BALLS ? (real)(2 * VOR_ALL_BALLS) : (real)retry; }


// One work-item searches task `first + item` alone (VOR_LANES = 1): a retry runs at once (instead of
// in the next wave), up to VOR_PASSES passes.
static int search_edge(const uint item, VOR_ARGS) {
    const uint i = first + item;
    vor_edge e;
    edge_begin(i, VOR_PASS, &e);
    int end = -1, flag = 0;
    float retry = 0.0f;
    for (int pass = 0; pass < VOR_PASSES; ++pass) {
        if (e.valid) edge_scan(&e, 0, 1, cellStart, cellBalls, cellIndex, flagTol);
        end = -1;
        retry = 0.0f;
        flag |= edge_decide(&e, frameGrid, frameDims, taskFrame, frameRmax, flagTol, i, &end, &retry);
        if (!(e.valid && retry > 0 && pass + 1 < VOR_PASSES)) break;
        edge_box(&e, retry_radius(retry), 0, 0);
    }
    flag |= e.flag;
    answer[i] = (int2)(end, answer_retry(retry, flag));
    return flag;
}

// The searches of one work-group, `lanes` work-items each (its slot: local id / lanes). `item` is the
// slot's task (offset from `first`), or -1 for none (past the end, or phase 2's padding): such a slot
// still takes part in the barriers. Each lane scans its share of the candidates, the slot's partial
// searches are merged in local memory (lanes/2, lanes/4, ... merges), and the slot's first lane
// decides. Up to VOR_PASSES passes (a wider radius, then every ball), as search_edge. Returns the flag
// in the slot's first lane.
static int search_lanes(const int item, const int lanes, VOR_ARGS, __local vor_search* part,
                        __local int* partFlag, __local float* nextRadius) {
    const int l = (int)get_local_id(0), lane = l & (lanes - 1), slot = l / lanes, base = slot * lanes;
    const int slots = (int)get_local_size(0) / lanes;
    const uint i = first + (uint)item;
    vor_edge e;
    if (item >= 0) {
        edge_begin(i, VOR_PASS, &e);
    } else {
        e.valid = 0;
        e.flag = 0;
        vor_search_init(&e.q, 0, 1, 0, 0, -1);
    }
    int flag = 0, end = -1, active = item >= 0;
    float retry = 0.0f;
    const int passes = VOR_PASSES;
    for (int pass = 0; pass < passes; ++pass) {
        if (pass > 0) {
            const float R = nextRadius[slot];
            active = R > 0;
            if (active) edge_box(&e, retry_radius(R), 0, 0);
        }
        if (active && e.valid) edge_scan(&e, lane, lanes, cellStart, cellBalls, cellIndex, flagTol);
        part[l] = e.q;
        partFlag[l] = e.flag;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int w = lanes / 2; w > 0; w >>= 1) {
            if (lane < w) {
                vor_search a = part[l];
                const vor_search b = part[l + w];
                vor_search_merge(&a, &b);
                part[l] = a;
                partFlag[l] |= partFlag[l + w];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0) {
            float next = 0.0f;
            if (active) {
                e.q = part[base];
                e.flag |= partFlag[base];
                end = -1;
                retry = 0.0f;
                flag |= edge_decide(&e, frameGrid, frameDims, taskFrame, frameRmax, flagTol, i, &end, &retry);
                if (e.valid && retry > 0 && pass + 1 < passes) next = retry;
            }
            nextRadius[slot] = next;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int more = 0;  // the same in every work-item: the loop's barriers stay uniform
        for (int s = 0; s < slots; ++s) more |= nextRadius[s] > 0;
        if (!more) break;
    }
    if (lane != 0 || item < 0) return 0;
    flag |= e.flag;
    answer[i] = (int2)(end, answer_retry(retry, flag));
    return flag;
}

#define VOR_SLOTS (VOR_GROUP / VOR_LANES)  // searches per work-group of the narrow kernels

#if VOR_LANES == 1
__kernel void voronoi_edges_phase1(VOR_KERNEL_ARGS) {
    VOR_UNPACK;
    const uint i = get_global_id(0);
    if (i >= n) return;
    if (search_edge(i, VOR_PASS)) two_phase_append(flaggedCount, flagged, first + i);
}
#else
__kernel __attribute__((reqd_work_group_size(VOR_GROUP, 1, 1))) void voronoi_edges_phase1(VOR_KERNEL_ARGS) {
    VOR_UNPACK;
    __local vor_search part[VOR_GROUP];
    __local int partFlag[VOR_GROUP];
    __local float nextRadius[VOR_SLOTS];
    const uint item = get_group_id(0) * VOR_SLOTS + get_local_id(0) / VOR_LANES;
    const int flag = search_lanes(item < n ? (int)item : -1, VOR_LANES, VOR_PASS, part, partFlag, nextRadius);
    if ((get_local_id(0) & (VOR_LANES - 1)) == 0 && item < n && flag) two_phase_append(flaggedCount, flagged, first + item);
}
#endif

__kernel __attribute__((reqd_work_group_size(VOR_WIDE, 1, 1))) void voronoi_edges_wide_phase1(VOR_KERNEL_ARGS) {
    VOR_UNPACK;
    __local vor_search part[VOR_WIDE];
    __local int partFlag[VOR_WIDE];
    __local float nextRadius[1];
    const uint i = get_group_id(0);
    const int flag = search_lanes((int)i, VOR_WIDE, VOR_PASS, part, partFlag, nextRadius);
    if (get_local_id(0) == 0 && flag) two_phase_append(flaggedCount, flagged, first + i);
}

#if PORTACL_DOUBLE
// Phase 2 (double) has two ways to find its searches (two_phase_list_count, two_phase_list_item):
// `direct` (double mode): search k is item k, the grid covers the part; else (mixed mode, one launch
// over the whole wave with first = 0): search k is the k-th entry of the wave's flagged list, and the
// grid (listPhase2Groups: the count is not known on the host) loops over the list, k, k + grid, ...
#define VOR_PHASE2_ARGS const uint direct, VOR_KERNEL_ARGS

#if VOR_LANES == 1
__kernel void voronoi_edges_phase2(VOR_PHASE2_ARGS) {
    VOR_UNPACK;
    const uint count = two_phase_list_count(direct, n, flaggedCount);
    for (uint k = get_global_id(0); k < count; k += get_global_size(0))
        search_edge(two_phase_list_item(direct, flagged, k), VOR_PASS);
}
#else
__kernel __attribute__((reqd_work_group_size(VOR_GROUP, 1, 1))) void voronoi_edges_phase2(VOR_PHASE2_ARGS) {
    VOR_UNPACK;
    __local vor_search part[VOR_GROUP];
    __local int partFlag[VOR_GROUP];
    __local float nextRadius[VOR_SLOTS];
    const uint count = two_phase_list_count(direct, n, flaggedCount);  // the same in the whole work-group
    for (uint k0 = get_group_id(0) * VOR_SLOTS; k0 < count; k0 += get_num_groups(0) * VOR_SLOTS) {
        const uint k = k0 + get_local_id(0) / VOR_LANES;  // past the count: no search, but the barriers
        const int item = k < count ? (int)two_phase_list_item(direct, flagged, k) : -1;
        search_lanes(item, VOR_LANES, VOR_PASS, part, partFlag, nextRadius);
        barrier(CLK_LOCAL_MEM_FENCE);  // the next round's searches reuse the local arrays
    }
}
#endif

// Phase 2 with a work-group of `lanes` work-items per search: the work-groups take the part's
// searches (double) or its flagged list (mixed) in turn.
static void search_listed(const int lanes, const uint direct, const uint n, __global const uint* flaggedCount,
                          __global const uint* flagged, VOR_ARGS, __local vor_search* part, __local int* partFlag,
                          __local float* nextRadius) {
    const uint count = two_phase_list_count(direct, n, flaggedCount);
    for (uint k = get_group_id(0); k < count; k += get_num_groups(0)) {
        search_lanes((int)two_phase_list_item(direct, flagged, k), lanes, VOR_PASS, part, partFlag, nextRadius);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// Phase 2 of mixed mode: the wave's few flagged searches, narrow and wide, a work-group of VOR_FLAGGED
// each.
__kernel __attribute__((reqd_work_group_size(VOR_FLAGGED, 1, 1))) void voronoi_edges_flagged_phase2(VOR_PHASE2_ARGS) {
    VOR_UNPACK;
    __local vor_search part[VOR_FLAGGED];
    __local int partFlag[VOR_FLAGGED];
    __local float nextRadius[1];
    search_listed(VOR_FLAGGED, direct, n, flaggedCount, flagged, VOR_PASS, part, partFlag, nextRadius);
}

// Phase 2 of double mode on the wide searches, a work-group of VOR_WIDE each.
__kernel __attribute__((reqd_work_group_size(VOR_WIDE, 1, 1))) void voronoi_edges_wide_phase2(VOR_PHASE2_ARGS) {
    VOR_UNPACK;
    __local vor_search part[VOR_WIDE];
    __local int partFlag[VOR_WIDE];
    __local float nextRadius[1];
    search_listed(VOR_WIDE, direct, n, flaggedCount, flagged, VOR_PASS, part, partFlag, nextRadius);
}
#endif

// ---- The completeness pass (docs/voronoi.md, "Completeness pass"): the filter of one face per
// work-item, the twin of Tracer::scanFace (host/voronoi/completeness.cpp), built in double where the
// device has fp64 (in every mode) and in float otherwise. Per face: the triples (b, c, k) no traced
// edge has whose conic keeps a valid point in the window (holes: only an ellipse that lies in the
// window whole), and for a bounded traced face the first ball the meridian meets beyond the traced
// top. Answer: the triples tested, bit 31 set when the face needs the exact host step.
#define VOR_FACES_ARGS                                                                                       \
    const uint n, __global uchar *pass, const uint8 at, __global const real4 *balls,                          \
        __global const int *cellStart, __global const real4 *cellBalls, __global const int *cellIndex,        \
        __global const real4 *frameGrid, __global const int4 *frameDims, __global const int2 *frameOffsets,   \
        __global const real *frameRmax

// The cell range of the cube of half-size R around p (every cell when all), as BallGrid::forNear.
static void face_box(const real p[3], const real R, const int all, const real gl[3], const real h, const int dm[3], int lo[3],
                     int hi[3]) {
    for (int a = 0; a < 3; ++a) {
        if (all) {
            lo[a] = 0, hi[a] = dm[a] - 1;
            continue;
        }
        const real l = (p[a] - R - gl[a]) / h, u = (p[a] + R - gl[a]) / h;
        lo[a] = l < 0 ? 0 : (l >= dm[a] ? dm[a] : (int)l);
        hi[a] = u < 0 ? -1 : (u >= dm[a] - 1 ? dm[a] - 1 : (int)u);
    }
}

__kernel void voronoi_faces(VOR_FACES_ARGS) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const int4* tasks = (__global const int4*)(pass + at.s0);
    __global const int* info = (__global const int*)(pass + at.s1);
    __global const real* taus = (__global const real*)(pass + at.s2);
    __global const real4* tops = (__global const real4*)(pass + at.s3);
    __global const int* known = (__global const int*)(pass + at.s4);
    __global int* out = (__global int*)(pass + at.s5);
    __global const real* rmins = (__global const real*)(pass + at.s6);  // per frame: the smallest radius
    const int4 task = tasks[i];
    const int fr = info[i] >> 2, holes = info[i] & 1, bounded = (info[i] >> 1) & 1;
    const real tau = taus[i];
    const real4 grid = frameGrid[fr];
    const int4 dims = frameDims[fr];
    const int2 offs = frameOffsets[fr];
    const real rmax = frameRmax[fr], h = grid.w;
    balls += offs.x;
    cellStart += dims.w;
    cellBalls += offs.y;
    cellIndex += offs.y;
    known += task.z;
    const int dm[3] = {dims.x, dims.y, dims.z};
    const real gl[3] = {grid.x, grid.y, grid.z};
    const real4 B = balls[task.x], C = balls[task.y];
    const int whole = tau >= VOR_WHOLE;
    int triples = 0, flag = 0;
    vor_arc arcs[VOR_FACE_ARCS], tmp[VOR_FACE_ARCS];
    int lo[3], hi[3];
    const real pb[3] = {B.x, B.y, B.z}, pc[3] = {C.x, C.y, C.z};
    int lo2[3], hi2[3];
    vor_face_cells(pb, B.w, pc, C.w, tau, holes, rmins[fr], rmax, gl, h, dm, lo, hi);
    const vor_axis axis = vor_make_axis(C.x - B.x, C.y - B.y, C.z - B.z, B.w, C.w);
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y) {
            if (lo[0] > hi[0]) continue;
            const int row = (z * dm[1] + y) * dm[0];
            for (int j = cellStart[row + lo[0]]; j < cellStart[row + hi[0] + 1]; ++j) {
                const int k = cellIndex[j];
                if (k == task.x || k == task.y) continue;
                const real4 K = cellBalls[j];
                if (!whole) {
                    const real lb = 2 * tau + B.w + K.w, lc = 2 * tau + C.w + K.w;
                    const real db = (K.x - B.x) * (K.x - B.x) + (K.y - B.y) * (K.y - B.y) + (K.z - B.z) * (K.z - B.z);
                    const real dc = (K.x - C.x) * (K.x - C.x) + (K.y - C.y) * (K.y - C.y) + (K.z - C.z) * (K.z - C.z);
                    if (db > lb * lb || dc > lc * lc) continue;
                }
                if (holes && (!vor_hole_ball(&axis, K.x - B.x, K.y - B.y, K.z - B.z, K.w) ||
                              !vor_is_ellipse(B.w, C.x - B.x, C.y - B.y, C.z - B.z, C.w, K.x - B.x, K.y - B.y, K.z - B.z, K.w)))
                    continue;
                int isKnown = 0;
                for (int m = 0; m < task.w; ++m) isKnown |= known[m] == k;
                if (isKnown) continue;
                // The triple ascending, its frame from its first ball.
                int t0 = task.x, t1 = task.y, t2 = k, sw;
                if (t0 > t1) sw = t0, t0 = t1, t1 = sw;
                if (t1 > t2) sw = t1, t1 = t2, t2 = sw;
                if (t0 > t1) sw = t0, t0 = t1, t1 = sw;
                const real4 a = balls[t0], b = balls[t1], c = balls[t2];
                const vor_frame f = vor_make_frame(a.w, b.x - a.x, b.y - a.y, b.z - a.z, b.w, c.x - a.x, c.y - a.y, c.z - a.z, c.w);
                if (!vor_face_triple(&f, tau, holes, fmin(a.w, fmin(b.w, c.w)))) continue;
                ++triples;
                // Its valid arcs in the window (Tracer::validArcs).
                real tlo = 0, thi = 0, smax = 0;
                int na = vor_window(&f, tau, fmin(a.w, fmin(b.w, c.w)), arcs, &tlo, &thi, &smax);
                for (int m = 0; m < task.w && na > 0; ++m) {
                    const int l = known[m];
                    if (l == t0 || l == t1 || l == t2) continue;
                    const real4 L = balls[l];
                    na = vor_arcs_cover(&f, arcs, na, tmp, VOR_FACE_ARCS, l, L.x - a.x, L.y - a.y, L.z - a.z, L.w);
                }
                if (na > 0) {
                    const int all = thi >= VOR_WHOLE;
                    const real Bn = sqrt(f.Bx * f.Bx + f.By * f.By + f.Bz * f.Bz), tm = (real)0.5 * (tlo + thi);
                    const real P[3] = {a.x + f.Ax + f.Bx * tm, a.y + f.Ay + f.By * tm, a.z + f.Az + f.Bz * tm};
                    const real rho = Bn * (real)0.5 * (thi - tlo) + smax;
                    face_box(P, all ? (real)0 : rho + thi + rmax, all, gl, h, dm, lo2, hi2);
                    for (int z2 = lo2[2]; z2 <= hi2[2] && na > 0; ++z2)
                        for (int y2 = lo2[1]; y2 <= hi2[1] && na > 0; ++y2) {
                            if (lo2[0] > hi2[0]) continue;
                            const int row2 = (z2 * dm[1] + y2) * dm[0];
                            for (int j2 = cellStart[row2 + lo2[0]]; j2 < cellStart[row2 + hi2[0] + 1] && na > 0; ++j2) {
                                const int l = cellIndex[j2];
                                if (l == t0 || l == t1 || l == t2) continue;
                                const real4 L = cellBalls[j2];
                                if (!all) {
                                    const real reach = rho + thi + L.w;
                                    if ((L.x - P[0]) * (L.x - P[0]) + (L.y - P[1]) * (L.y - P[1]) + (L.z - P[2]) * (L.z - P[2]) > reach * reach)
                                        continue;
                                }
                                na = vor_arcs_cover(&f, arcs, na, tmp, VOR_FACE_ARCS, l, L.x - a.x, L.y - a.y, L.z - a.z, L.w);
                            }
                        }
                }
                if (na != 0) flag = 1;
            }
        }
    // The meridian beyond the traced top (Tracer::meridianEnd, VOR_PASSES radius passes).
    vor_meridian m;
    const real4 top = tops[i];
    if (bounded && vor_make_meridian(&m, B.w, C.x - B.x, C.y - B.y, C.z - B.z, C.w, top.x - B.x, top.y - B.y, top.z - B.z)) {
        const real t0 = top.w, tol = (real)1e-6 * (1 + fabs(t0));
        const real span = h * (real)(dims.x + dims.y + dims.z) + rmax;
        real R = fmax(t0, (real)0) + rmax + 3;
        int done = 0;
        for (int q = 0; q < task.w && !done; ++q) {
            const real4 L = balls[known[q]];
            done = vor_meridian_enter(&m, t0, L.x - B.x, L.y - B.y, L.z - B.z, L.w) <= t0 + tol;
        }
        for (int passNo = 0; passNo < VOR_PASSES && !done; ++passNo) {
            const int all = R >= span;
            real best = VOR_INF;
            int bestBall = -1;
            const real pt[3] = {top.x, top.y, top.z};
            face_box(pt, R, all, gl, h, dm, lo, hi);
            for (int z = lo[2]; z <= hi[2]; ++z)
                for (int y = lo[1]; y <= hi[1]; ++y) {
                    if (lo[0] > hi[0]) continue;
                    const int row = (z * dm[1] + y) * dm[0];
                    for (int j = cellStart[row + lo[0]]; j < cellStart[row + hi[0] + 1]; ++j) {
                        const int l = cellIndex[j];
                        if (l == task.x || l == task.y) continue;
                        const real4 L = cellBalls[j];
                        const real dx = L.x - top.x, dy = L.y - top.y, dz = L.z - top.z;
                        if (!all && dx * dx + dy * dy + dz * dz > R * R) continue;
                        const real e = vor_meridian_enter(&m, t0, L.x - B.x, L.y - B.y, L.z - B.z, L.w);
                        if (e < best || (e == best && l < bestBall)) best = e, bestBall = l;
                    }
                }
            if (bestBall < 0) {
                if (all) done = 1;
                R = 4 * R;
                continue;
            }
            if (best <= t0 + tol) {
                done = 1;
                continue;
            }
            const real need = vor_meridian_span(&m, t0, best) + best + rmax;
            if (all || need <= R) {
                flag = 1;
                done = 1;
                continue;
            }
            R = need;
        }
        if (!done) flag = 1;
    }
    out[i] = triples | (flag ? (int)0x80000000u : 0);
}

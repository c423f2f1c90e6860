// End-vertex search of the Voronoi edges of one tracing wave: one work-item per pending edge, the
// candidates pruned by a uniform grid. Built twice by the two-phase dispatcher: phase 1 in float
// flags the searches float cannot decide, phase 2 redoes them in double (or all, in double mode).
#pragma OPENCL FP_CONTRACT OFF
#include "common/real.h"
#include "common/two_phase.h"
#include "common/voronoi_geometry.h"

// Searches with a radius at least this large scan the whole grid (an edge that may be unbounded).
#define VOR_ALL_BALLS 1e29f

// Writes end[i] (ball index or -1) and retry[i] (0, or the search radius to redo the search with);
// returns 1 when float cannot be trusted with this search.
static int search_edge(const uint i, __global const int4* tasks, __global const int* taskFrame,
                       __global const real4* starts, __global const real* radii, __global const real4* balls,
                       __global const int* cellStart, __global const real4* cellBalls, __global const int* cellIndex,
                       __global const real4* frameGrid, __global const int4* frameDims, __global const int2* frameOffsets,
                       __global const real* frameRmax, const real tieEps, const real flagTol, __global int* end,
                       __global float* retry) {
    // The task's frame: its balls, grid (origin and cell size), grid shape and offsets into the
    // concatenated arrays of all frames of the batch.
    const int fr = taskFrame[i];
    const real4 grid = frameGrid[fr];
    const int4 dims = frameDims[fr];
    const int2 offs = frameOffsets[fr];
    const real rmax = frameRmax[fr];
    const real h = grid.w;
    balls += offs.x;
    cellBalls += offs.y;
    cellIndex += offs.y;
    cellStart += dims.w;
    const int4 task = tasks[i];
    const real4 c1 = balls[task.x], c2 = balls[task.y], c3 = balls[task.z], bs = balls[task.w];
    const vor_frame f = vor_make_frame(c1.w, c2.x - c1.x, c2.y - c1.y, c2.z - c1.z, c2.w, c3.x - c1.x, c3.y - c1.y,
                                       c3.z - c1.z, c3.w);
    end[i] = -1;
    retry[i] = 0.0f;
    if (f.kind == 0) return 1;
    int flag = (f.gram < flagTol || fabs(f.Q2) < flagTol) ? 1 : 0;
    const real4 st = starts[i];
    const real t0 = st.w, s0 = st.x * f.nx + st.y * f.ny + st.z * f.nz;
    real slope;
    const int dir = vor_start_direction(&f, t0, s0, bs.x - c1.x, bs.y - c1.y, bs.z - c1.z, bs.w, &slope);
    if (slope < flagTol) flag = 1;
    vor_search q;
    vor_search_init(&q, vor_param(&f, t0, s0), dir, tieEps, flagTol > 0 ? flagTol : tieEps, task.w);

    const real R = radii[i];
    int lo[3], hi[3];
    // Candidates: balls within R of the start vertex's centre.
    const real p[3] = {c1.x + st.x, c1.y + st.y, c1.z + st.z}, gl[3] = {grid.x, grid.y, grid.z};
    const int dm[3] = {dims.x, dims.y, dims.z};
    for (int a = 0; a < 3; ++a) {
        if (R >= VOR_ALL_BALLS) {
            lo[a] = 0;
            hi[a] = dm[a] - 1;
            continue;
        }
        const real l = (p[a] - R - gl[a]) / h, u = (p[a] + R - gl[a]) / h;
        lo[a] = l < 0 ? 0 : (l >= dm[a] ? dm[a] : (int)l);
        hi[a] = u < 0 ? -1 : (u >= dm[a] - 1 ? dm[a] - 1 : (int)u);
    }
    const real R2 = R * R;
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y)
            for (int x = lo[0]; x <= hi[0]; ++x) {
                const int c = (z * dm[1] + y) * dm[0] + x;
                const int e = cellStart[c + 1];
                for (int j = cellStart[c]; j < e; ++j) {
                    const int m = cellIndex[j];
                    if (m == task.x || m == task.y || m == task.z) continue;
                    const real4 b = cellBalls[j];
                    const real dx = b.x - c1.x, dy = b.y - c1.y, dz = b.z - c1.z;
                    const real ex = dx - st.x, ey = dy - st.y, ez = dz - st.z;
                    const real e2 = ex * ex + ey * ey + ez * ez;
                    // Float may put a ball on the other side of the search radius than double does
                    // (the distance's rounding is ~1e-7 relative: 1e-5 is safe).
                    if (R < VOR_ALL_BALLS && fabs(e2 - R2) < (real)1e-2 * flagTol * R2) flag = 1;
                    if (R < VOR_ALL_BALLS && e2 > R2) continue;
                    vor_search_consider(&f, &q, m, dx, dy, dz, b.w);
                }
            }
    // Beyond this radius a search takes every ball.
    const real span = h * (real)(dims.x + dims.y + dims.z) + rmax;
    if (q.bestK >= 0) {
        const real need = vor_arc_reach(&f, t0, s0, q.x0, q.bestT, q.bestS, vor_param(&f, q.bestT, q.bestS), dir) + rmax;
        if (fabs(need - R) < flagTol * (1 + need) || (flagTol > 0 && vor_retry_ambiguous(need, (real)0.1 * flagTol))) flag = 1;
        if (q.best < flagTol || q.second - q.best < flagTol || q.bestCond < flagTol || (flagTol > 0 && q.grazed)) flag = 1;
        if (need > R) {
            retry[i] = need < span ? (float)vor_retry_radius(need) : 2 * VOR_ALL_BALLS;
            return flag;
        }
        end[i] = q.bestK;
    } else if (R < VOR_ALL_BALLS) {
        // Nothing within R: a wider search, then every ball once the grid is covered.
        retry[i] = 4 * R < span ? (float)(4 * R) : 2 * VOR_ALL_BALLS;
    }
    return flag;
}

#define VOR_ARGS                                                                                              \
    __global const int4 *tasks, __global const int *taskFrame, __global const real4 *starts,                 \
        __global const real *radii, __global const real4 *balls, __global const int *cellStart,              \
        __global const real4 *cellBalls, __global const int *cellIndex, __global const real4 *frameGrid,     \
        __global const int4 *frameDims, __global const int2 *frameOffsets, __global const real *frameRmax,   \
        const real tieEps, const real flagTol, __global int *end, __global float *retry
#define VOR_PASS                                                                                              \
    tasks, taskFrame, starts, radii, balls, cellStart, cellBalls, cellIndex, frameGrid, frameDims, frameOffsets, \
        frameRmax, tieEps, flagTol, end, retry

__kernel void voronoi_edges_phase1(const uint n, __global uchar* undecided, VOR_ARGS) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    undecided[i] = (uchar)search_edge(i, VOR_PASS);
}

#if PORTACL_DOUBLE
__kernel void voronoi_edges_phase2(const uint count, __global const uint* items, const uint direct, VOR_ARGS) {
    const uint k = get_global_id(0);
    if (k >= count) return;
    search_edge(two_phase_item(items, direct, k), VOR_PASS);
}
#endif

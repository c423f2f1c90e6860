// The device version: the tracer's pending edges go to the device a wave at a time, one two-phase
// dispatch (float, then double for the flagged searches) per wave.
#include <chrono>

#include "portacl/two_phase.hpp"
#include "voronoi/tracer.hpp"

namespace portacl::voronoi {

namespace {

constexpr float kAllBalls = 1e30f;  // a search radius the kernel reads as "every ball" (>= 1e29)

// The grid and balls on the device in one element precision.
template <typename R4>
struct DeviceBalls {
    cl::Buffer balls, cellBalls;
};

template <typename R4, typename R>
void uploadBalls(Context& ctx, const Tracer& tr, DeviceBalls<R4>& out) {
    const auto& balls = tr.balls();
    std::vector<R4> all(balls.size()), sorted(tr.grid().cellBalls.size());
    for (std::size_t i = 0; i < balls.size(); ++i)
        all[i] = R4{{static_cast<R>(balls[i].x), static_cast<R>(balls[i].y), static_cast<R>(balls[i].z), static_cast<R>(balls[i].r)}};
    for (std::size_t j = 0; j < sorted.size(); ++j) sorted[j] = all[tr.grid().cellBalls[j]];
    out.balls = ctx.upload(all, "voronoi balls", CL_MEM_READ_ONLY);
    out.cellBalls = ctx.upload(sorted, "voronoi grid balls", CL_MEM_READ_ONLY);
}

}  // namespace

Diagram compute(Context& ctx, const std::vector<io::Ball>& balls, const Options& options) {
    const Precision mode = options.precision;
    if (mode != Precision::Float) ctx.requirePrecision(Precision::Double);
    const auto wallStart = std::chrono::steady_clock::now();
    Tracer tr(balls);
    const BallGrid& grid = tr.grid();

    ctx.checkFits(balls.size() * (2 * sizeof(cl_double4) + 2 * sizeof(cl_float4)) + grid.cellStart.size() * 4 * 2,
                  "the Voronoi balls and grid");
    DeviceBalls<cl_float4> fb;
    DeviceBalls<cl_double4> db;
    const bool useFloat = mode != Precision::Double, useDouble = mode != Precision::Float;
    if (useFloat) uploadBalls<cl_float4, float>(ctx, tr, fb);
    if (useDouble) uploadBalls<cl_double4, double>(ctx, tr, db);
    const cl::Buffer cellStart = ctx.upload(grid.cellStart, "voronoi grid cells", CL_MEM_READ_ONLY);
    const cl::Buffer cellIndex = ctx.upload(grid.cellBalls, "voronoi grid ball indices", CL_MEM_READ_ONLY);
    const cl_int4 dims{{grid.dims[0], grid.dims[1], grid.dims[2], 0}};

    Diagram stats;
    int waves = 0;
    while (tr.seedNextComponent()) {
        while (tr.hasPending()) {
            const std::vector<EdgeTask> wave = tr.takePending();
            const std::size_t n = wave.size();
            std::vector<cl_int4> tasks(n);
            std::vector<cl_float4> startsF;
            std::vector<float> radiiF;
            std::vector<cl_double4> startsD;
            std::vector<double> radiiD;
            if (useFloat) startsF.resize(n), radiiF.resize(n);
            if (useDouble) startsD.resize(n), radiiD.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                const EdgeTask& t = wave[i];
                tasks[i] = cl_int4{{t.tri[0], t.tri[1], t.tri[2], t.bs}};
                const Vertex& v = tr.vertices()[t.from];
                const io::Ball& a = balls[t.tri[0]];
                // The start sphere relative to the first ball's centre, computed in double.
                const double rel[4] = {v.x - a.x, v.y - a.y, v.z - a.z, v.r};
                const double R = t.searchRadius == kUnboundedRadius ? kAllBalls : t.searchRadius;
                if (useFloat) {
                    startsF[i] = cl_float4{{float(rel[0]), float(rel[1]), float(rel[2]), float(rel[3])}};
                    radiiF[i] = static_cast<float>(R);
                }
                if (useDouble) {
                    startsD[i] = cl_double4{{rel[0], rel[1], rel[2], rel[3]}};
                    radiiD[i] = R;
                }
            }
            const cl::Buffer taskBuf = ctx.upload(tasks, "voronoi edge tasks", CL_MEM_READ_ONLY);
            cl::Buffer startF, radF, startD, radD;
            if (useFloat) startF = ctx.upload(startsF, "voronoi starts (float)"), radF = ctx.upload(radiiF, "voronoi radii (float)");
            if (useDouble) startD = ctx.upload(startsD, "voronoi starts (double)"), radD = ctx.upload(radiiD, "voronoi radii (double)");
            const cl::Buffer endBuf = ctx.buffer(n * sizeof(cl_int), "voronoi end balls");
            const cl::Buffer retryBuf = ctx.buffer(n * sizeof(cl_float), "voronoi retry radii");

            TwoPhaseKernels k;
            k.source = "voronoi.cl";
            k.phase1 = "voronoi_edges_phase1";
            k.phase2 = "voronoi_edges_phase2";
            k.setArgs = [&](cl::Kernel& kernel, cl_uint a) {
                const bool dbl = a == kTwoPhase2FirstArg;
                kernel.setArg(a + 0, taskBuf);
                kernel.setArg(a + 1, dbl ? startD : startF);
                kernel.setArg(a + 2, dbl ? radD : radF);
                kernel.setArg(a + 3, dbl ? db.balls : fb.balls);
                kernel.setArg(a + 4, cellStart);
                kernel.setArg(a + 5, dbl ? db.cellBalls : fb.cellBalls);
                kernel.setArg(a + 6, cellIndex);
                if (dbl) {
                    kernel.setArg(a + 7, cl_double4{{grid.lo[0], grid.lo[1], grid.lo[2], 0}});
                    kernel.setArg(a + 8, grid.h);
                } else {
                    kernel.setArg(a + 7, cl_float4{{float(grid.lo[0]), float(grid.lo[1]), float(grid.lo[2]), 0.f}});
                    kernel.setArg(a + 8, float(grid.h));
                }
                kernel.setArg(a + 9, dims);
                if (dbl) {
                    kernel.setArg(a + 10, tr.maxRadius());
                    kernel.setArg(a + 11, 1e-9);
                    kernel.setArg(a + 12, 0.0);
                } else {
                    // Float: cell bounds widened by the rounding of the coordinates; ties and
                    // near-degenerate frames (relative 1e-3) go to phase 2.
                    kernel.setArg(a + 10, float(tr.maxRadius()));
                    kernel.setArg(a + 11, 1e-5f);
                    kernel.setArg(a + 12, 1e-3f);
                }
                kernel.setArg(a + 13, endBuf);
                kernel.setArg(a + 14, retryBuf);
            };
            const TwoPhaseReport report = runTwoPhase(ctx, mode, n, k);
            if (mode == Precision::Mixed) stats.phase2Edges += report.phase2Items;
            if (mode == Precision::Float) stats.phase2Edges += report.undecided;
            const auto ends = ctx.download<cl_int>(endBuf, n, "voronoi end balls");
            const auto retries = ctx.download<cl_float>(retryBuf, n, "voronoi retry radii");
            for (std::size_t i = 0; i < n; ++i) {
                EdgeAnswer ans;
                ans.endBall = ends[i];
                if (retries[i] > 0) ans.retryRadius = retries[i] >= 1e29f ? kUnboundedRadius : retries[i];
                tr.accept(wave[i], ans);
            }
            ++waves;
        }
    }
    Diagram d = tr.finish();
    d.waves = waves;
    d.phase2Edges = stats.phase2Edges;
    canonicalize(d);
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return d;
}

}  // namespace portacl::voronoi

// The device version: every frame's tracer hands its pending edges over, and all of them go to the
// device together, one two-phase dispatch (float, then double for the flagged searches) per wave.
// Frames are concatenated on the device: balls, grid cells and per-frame grid parameters.
#include <chrono>
#include <memory>

#include "portacl/two_phase.hpp"
#include "voronoi/tracer.hpp"

namespace portacl::voronoi {

namespace {

constexpr float kAllBalls = 1e30f;  // a search radius the kernel reads as "every ball" (>= 1e29)

// Everything about the frames that stays on the device for the whole batch, in one precision.
template <typename R4, typename R>
struct FrameData {
    cl::Buffer balls, cellBalls, grid, rmax;

    void upload(Context& ctx, const std::vector<std::unique_ptr<Tracer>>& tracers) {
        std::vector<R4> all, sorted, grids;
        std::vector<R> rmaxes;
        for (const auto& tr : tracers) {
            const auto& balls = tr->balls();
            const std::size_t base = all.size();
            for (const auto& b : balls)
                all.push_back(R4{{static_cast<R>(b.x), static_cast<R>(b.y), static_cast<R>(b.z), static_cast<R>(b.r)}});
            for (int j : tr->grid().cellBalls) sorted.push_back(all[base + j]);
            const BallGrid& g = tr->grid();
            grids.push_back(R4{{static_cast<R>(g.lo[0]), static_cast<R>(g.lo[1]), static_cast<R>(g.lo[2]), static_cast<R>(g.h)}});
            rmaxes.push_back(static_cast<R>(tr->maxRadius()));
        }
        balls = ctx.upload(all, "voronoi balls", CL_MEM_READ_ONLY);
        cellBalls = ctx.upload(sorted, "voronoi grid balls", CL_MEM_READ_ONLY);
        grid = ctx.upload(grids, "voronoi frame grids", CL_MEM_READ_ONLY);
        rmax = ctx.upload(rmaxes, "voronoi frame radii", CL_MEM_READ_ONLY);
    }
};

}  // namespace

std::vector<Diagram> computeFrames(Context& ctx, const std::vector<std::vector<io::Ball>>& frames, const Options& options) {
    const Precision mode = options.precision;
    if (mode != Precision::Float) ctx.requirePrecision(Precision::Double);
    const auto wallStart = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<Tracer>> tracers;
    std::size_t totalBalls = 0, totalCells = 0;
    for (const auto& balls : frames) {
        tracers.push_back(std::make_unique<Tracer>(balls));
        totalBalls += balls.size();
        totalCells += tracers.back()->grid().cellStart.size();
    }
    ctx.checkFits(totalBalls * (2 * sizeof(cl_double4) + 2 * sizeof(cl_float4) + sizeof(cl_int)) + totalCells * sizeof(cl_int),
                  "the Voronoi balls and grids");

    const bool useFloat = mode != Precision::Double, useDouble = mode != Precision::Float;
    FrameData<cl_float4, float> fd;
    FrameData<cl_double4, double> dd;
    if (useFloat) fd.upload(ctx, tracers);
    if (useDouble) dd.upload(ctx, tracers);
    std::vector<cl_int> cellStart, cellIndex;
    std::vector<cl_int4> dims;
    std::vector<cl_int2> offsets;
    std::size_t ballBase = 0;
    for (const auto& tr : tracers) {
        const BallGrid& g = tr->grid();
        dims.push_back(cl_int4{{g.dims[0], g.dims[1], g.dims[2], static_cast<cl_int>(cellStart.size())}});
        offsets.push_back(cl_int2{{static_cast<cl_int>(ballBase), static_cast<cl_int>(cellIndex.size())}});
        ballBase += tr->balls().size();
        cellStart.insert(cellStart.end(), g.cellStart.begin(), g.cellStart.end());
        cellIndex.insert(cellIndex.end(), g.cellBalls.begin(), g.cellBalls.end());
    }
    const cl::Buffer cellStartBuf = ctx.upload(cellStart, "voronoi grid cells", CL_MEM_READ_ONLY);
    const cl::Buffer cellIndexBuf = ctx.upload(cellIndex, "voronoi grid ball indices", CL_MEM_READ_ONLY);
    const cl::Buffer dimsBuf = ctx.upload(dims, "voronoi frame grid shapes", CL_MEM_READ_ONLY);
    const cl::Buffer offsetsBuf = ctx.upload(offsets, "voronoi frame offsets", CL_MEM_READ_ONLY);

    std::vector<char> finished(tracers.size(), 0);
    std::size_t phase2 = 0;
    int waves = 0;
    while (true) {
        // The wave: every frame's pending edges; a frame with none starts its next component.
        std::vector<EdgeTask> wave;
        std::vector<int> owner;
        for (std::size_t f = 0; f < tracers.size(); ++f) {
            Tracer& tr = *tracers[f];
            if (finished[f]) continue;
            if (!tr.hasPending() && !tr.seedNextComponent()) {
                finished[f] = 1;
                continue;
            }
            for (const EdgeTask& t : tr.takePending()) wave.push_back(t), owner.push_back(static_cast<int>(f));
        }
        if (wave.empty()) break;
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
            const Tracer& tr = *tracers[owner[i]];
            tasks[i] = cl_int4{{t.tri[0], t.tri[1], t.tri[2], t.bs}};
            const Vertex& v = tr.vertices()[t.from];
            const io::Ball& a = tr.balls()[t.tri[0]];
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
        const cl::Buffer frameBuf = ctx.upload(owner, "voronoi edge frames", CL_MEM_READ_ONLY);
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
            kernel.setArg(a + 1, frameBuf);
            kernel.setArg(a + 2, dbl ? startD : startF);
            kernel.setArg(a + 3, dbl ? radD : radF);
            kernel.setArg(a + 4, dbl ? dd.balls : fd.balls);
            kernel.setArg(a + 5, cellStartBuf);
            kernel.setArg(a + 6, dbl ? dd.cellBalls : fd.cellBalls);
            kernel.setArg(a + 7, cellIndexBuf);
            kernel.setArg(a + 8, dbl ? dd.grid : fd.grid);
            kernel.setArg(a + 9, dimsBuf);
            kernel.setArg(a + 10, offsetsBuf);
            kernel.setArg(a + 11, dbl ? dd.rmax : fd.rmax);
            if (dbl) {
                kernel.setArg(a + 12, 1e-9);
                kernel.setArg(a + 13, 0.0);
            } else {
                // Float: travel below 1e-5 is a tie with the start; anything within 1e-3 (relative) of
                // a decision goes to phase 2.
                kernel.setArg(a + 12, 1e-5f);
                kernel.setArg(a + 13, 1e-3f);
            }
            kernel.setArg(a + 14, endBuf);
            kernel.setArg(a + 15, retryBuf);
        };
        const TwoPhaseReport report = runTwoPhase(ctx, mode, n, k);
        phase2 += mode == Precision::Mixed ? report.phase2Items : (mode == Precision::Float ? report.undecided : 0);
        const auto ends = ctx.download<cl_int>(endBuf, n, "voronoi end balls");
        const auto retries = ctx.download<cl_float>(retryBuf, n, "voronoi retry radii");
        for (std::size_t i = 0; i < n; ++i) {
            EdgeAnswer ans;
            ans.endBall = ends[i];
            if (retries[i] > 0) ans.retryRadius = retries[i] >= 1e29f ? kUnboundedRadius : retries[i];
            tracers[owner[i]]->accept(wave[i], ans);
        }
        ++waves;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    std::vector<Diagram> out;
    for (auto& tr : tracers) {
        Diagram d = tr->finish();
        d.waves = waves;
        canonicalize(d);
        d.seconds = seconds / tracers.size();
        out.push_back(std::move(d));
    }
    // Phase 2 runs on the merged wave: each frame gets a share of its count in proportion to its
    // searches (exact for a single frame).
    std::size_t searches = 0;
    for (const auto& d : out) searches += d.solvedEdges;
    for (auto& d : out) d.phase2Edges = searches ? phase2 * d.solvedEdges / searches : 0;
    return out;
}

Diagram compute(Context& ctx, const std::vector<io::Ball>& balls, const Options& options) {
    return std::move(computeFrames(ctx, {balls}, options).front());
}

}  // namespace portacl::voronoi

// Drainage on the device (cl/drainage.cl): D8 directions, then accumulation by dependency counting
// (the counts, then the levels from the sources downstream: frontier.cpp), and the slides' iterative
// schemes.
#include <algorithm>
#include <climits>
#include <cmath>

#include "drainage_detail.hpp"
#include "tiles.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/staging.hpp"

namespace portacl::drainage {
namespace {

constexpr std::size_t kLocal = 64;

using detail::shapeText;

template <typename T>
DirectionGrid directionsOn(Context& ctx, const io::Raster& dem) {
    const std::size_t n = dem.size();
    ctx.checkFits(n * (sizeof(T) + 2), "D8 directions of a " + shapeText(dem.frame) + " DEM");
    cl::Buffer heights = ctx.upload(detail::heightsOf<T>(dem), "DEM heights", CL_MEM_READ_ONLY);
    cl::Buffer nodata = ctx.upload(detail::noDataMask(dem), "DEM NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer dir = ctx.buffer(n, "D8 directions");
    detail::directionsOnDevice(ctx, heights, nodata, dir, dem.frame, precisionOf<T>());
    DirectionGrid g;
    g.frame = dem.frame;
    g.source = dem.path;
    g.dir = ctx.download<std::uint8_t>(dir, n, "D8 directions");
    return g;
}

// The accumulation kernels' build options: the accumulated type and whether weights are read.
std::string accOptions(bool weighted, Precision p) {
    return std::string("-D ACC=") + (weighted ? realTypeName(p) : "ulong") + " -D WEIGHTED=" + (weighted ? "1" : "0");
}

}  // namespace

DirectionGrid d8Directions(Context& ctx, const io::Raster& dem, Precision precision, const Tiling& tiling) {
    validateDem(dem);
    const std::size_t real = detail::realBytes(precision);
    const auto tiles = detail::planTiles(ctx, dem.frame, tiling, {real + 2, real + 2, real, 1}, "D8 directions of a " + shapeText(dem.frame) + " DEM");
    if (!tiles.empty()) return detail::d8DirectionsTiled(ctx, dem, precision, tiles);
    return detail::onDemInPrecision(ctx, dem, precision, "D8 directions run",
                                    [&](auto t) { return directionsOn<decltype(t)>(ctx, dem); });
}

Accumulation accumulate(Context& ctx, const DirectionGrid& g, const AccumulationOptions& opt) {
    detail::checkGrid(g);
    detail::checkWeights(g, opt);
    if (opt.weights && opt.precision == Precision::Double) ctx.requirePrecision(Precision::Double);
    const std::size_t n = g.dir.size();
    const std::size_t perCell = detail::accumulationBytesPerCell(opt);
    const auto tiles = detail::planTiles(ctx, g.frame, opt.tiling, {perCell, perCell, 8, 1}, "flow accumulation of a " + shapeText(g.frame) + " grid");
    if (!tiles.empty()) return detail::accumulateTiled(ctx, g, opt, tiles);
    ctx.checkFits(n * perCell, "flow accumulation of a " + shapeText(g.frame) + " grid");
    StagedTransfers staging(ctx, detail::stagingBytes(n * 8));
    cl::Buffer dir = ctx.buffer(n, "D8 directions", CL_MEM_READ_ONLY);
    staging.upload<std::uint8_t>(dir, n, "upload D8 directions",
                                 [&](std::uint8_t* to, std::size_t first, std::size_t count) { std::copy_n(g.dir.data() + first, count, to); });
    return detail::accumulateResident(ctx, staging, dir, g.frame, detail::NoDataCells(g), opt,
                                      [&](std::size_t cell) { return detail::cycleSentence(g, cell); });
}

std::vector<std::uint64_t> accumulateIterative(Context& ctx, const DirectionGrid& g, Iterative scheme, int* launches) {
    detail::checkGrid(g);
    const std::size_t n = g.dir.size();
    if (scheme == Iterative::Push && ctx.device().device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") == std::string::npos)
        throw Error("the push scheme adds 64-bit counts with atomics, which " + ctx.device().name +
                    " does not offer (cl_khr_int64_base_atomics)");
    ctx.checkFits(n * (1 + 3 * 8), "iterative accumulation of a " + shapeText(g.frame) + " grid");
    // Water on a cycle never leaves: refused before the first launch.
    if (const long c = detail::cycleCell(g); c >= 0) throw Error(detail::cycleSentence(g, std::size_t(c)));
    cl::Buffer dir = ctx.upload(g.dir, "D8 directions", CL_MEM_READ_ONLY);
    std::vector<cl_ulong> ones(n);
    for (std::size_t i = 0; i < n; ++i) ones[i] = g.dir[i] == kNoData ? 0 : 1;
    cl::Buffer water[2] = {ctx.upload(ones, "water"), ctx.buffer(n * 8, "water moved")};
    cl::Buffer total = ctx.buffer(n * 8, "water received");
    cl::Buffer moved = ctx.buffer(sizeof(cl_int), "water moved flag");
    const int steps = detail::iterateOnDevice(ctx, dir, water, total, moved, g.frame, scheme);
    if (launches) *launches = steps;
    auto t = ctx.download<cl_ulong>(total, n, "water received");
    return {t.begin(), t.end()};
}

namespace detail {

std::size_t accumulationBytesPerCell(const AccumulationOptions& opt) {
    const bool weighted = opt.weights != nullptr;
    const std::size_t accBytes = weighted ? realBytes(opt.precision) : 8;
    return 1 + 4 + 8 + 1 + accBytes + (weighted ? accBytes : 0);
}

std::size_t stagingBytes(std::size_t largestTransfer) {
    return std::min<std::size_t>(std::size_t(32) << 20, std::max<std::size_t>(largestTransfer, 64));
}

Accumulation accumulateResident(Context& ctx, StagedTransfers& staging, const cl::Buffer& dir, const io::RasterFrame& frame,
                                NoDataCells noData, const AccumulationOptions& opt,
                                const std::function<std::string(std::size_t)>& cycleSentence) {
    const bool weighted = opt.weights != nullptr;
    const Precision p = weighted ? opt.precision : Precision::Float;
    if (p == Precision::Double) ctx.requirePrecision(Precision::Double);
    const std::size_t n = frame.size();
    const std::size_t accBytes = weighted ? realBytes(p) : 8;
    cl::Buffer deps = ctx.buffer(n * sizeof(cl_int), "upstream counts");
    cl::Buffer frontier = ctx.buffer(2 * n * sizeof(cl_int), "frontiers");
    cl::Buffer state = ctx.buffer(4 * sizeof(cl_int), "frontier sizes");
    cl::Buffer acc = ctx.buffer(n * accBytes, "accumulation");
    cl::Buffer taint = ctx.buffer(n, "edge contamination");
    cl::Buffer weights;
    if (weighted) {
        weights = ctx.buffer(n * accBytes, "accumulation weights", CL_MEM_READ_ONLY);
        const double* w = opt.weights->data();
        if (p == Precision::Double)
            staging.upload<double>(weights, n, "upload accumulation weights",
                                   [&](double* to, std::size_t first, std::size_t count) { std::copy_n(w + first, count, to); });
        else
            staging.upload<float>(weights, n, "upload accumulation weights", [&](float* to, std::size_t first, std::size_t count) {
                for (std::size_t j = 0; j < count; ++j) to[j] = float(w[first + j]);
            });
    } else {
        weights = ctx.buffer(accBytes, "no weights", CL_MEM_READ_ONLY);
    }

    const cl_int none = INT_MAX;
    cl::Buffer first = ctx.upload(std::vector<cl_int>{none}, "first unfinished cell");
    accumulateOnDevice(ctx, dir, deps, acc, taint, weights, first, frontier, state, frame, weighted, p, opt.edgeContamination);
    const cl_int cycle = ctx.download<cl_int>(first, 1, "first unfinished cell")[0];
    if (cycle != none) throw Error(cycleSentence(std::size_t(cycle)));

    Accumulation a;
    if (!weighted) {
        a.counts.resize(n);
        staging.download<cl_ulong>(acc, n, "download accumulation", [&](const cl_ulong* from, std::size_t at, std::size_t count) {
            std::copy_n(from, count, a.counts.data() + at);
        });
    } else {
        a.sums.resize(n);
        auto widen = [&](const auto* from, std::size_t at, std::size_t count) {
            for (std::size_t j = 0; j < count; ++j) a.sums[at + j] = double(from[j]);
        };
        if (p == Precision::Double) staging.download<double>(acc, n, "download accumulation", widen);
        else staging.download<float>(acc, n, "download accumulation", widen);
    }
    // Without edge contamination every cell with data that was summed (all of them: a cycle has been
    // refused) holds 0 there, so the flags come back only when asked for.
    a.valid.resize(n);
    if (opt.edgeContamination)
        staging.download<std::uint8_t>(taint, n, "download edge contamination", [&](const std::uint8_t* t, std::size_t at, std::size_t count) {
            for (std::size_t j = 0; j < count; ++j) a.valid[at + j] = !t[j];
        });
    else
        std::fill(a.valid.begin(), a.valid.end(), std::uint8_t(1));
    for (std::size_t i = 0; i < n; ++i) {
        if (!noData(i)) continue;
        a.valid[i] = 0;
        if (weighted) a.sums[i] = 0;
        else a.counts[i] = 0;
    }
    finish(a, noData, opt);
    return a;
}

void directionsOnDevice(Context& ctx, const cl::Buffer& heights, const cl::Buffer& nodata, const cl::Buffer& dir,
                        const io::RasterFrame& frame, Precision p) {
    const double dx = frame.cellWidth(), dy = frame.cellHeight();
    cl::Kernel& k = ctx.kernel("drainage.cl", "d8_directions", p);
    if (p == Precision::Double)
        setArgs(k, 0, heights, nodata, dir, cl_int(frame.rows), cl_int(frame.cols), 1 / dx, 1 / dy, 1 / std::hypot(dx, dy));
    else
        setArgs(k, 0, heights, nodata, dir, cl_int(frame.rows), cl_int(frame.cols), float(1 / dx), float(1 / dy),
                float(1 / std::hypot(dx, dy)));
    ctx.launch(k, cl::NDRange(roundUp(frame.size(), kLocal)), cl::NDRange(kLocal));
}

namespace {

// The accumulation's launches, the counts by `countKernel` (d8_dependencies over a whole grid,
// d8_window_dependencies over a tile's window).
int accumulateWith(const char* countKernel, Context& ctx, const cl::Buffer& dir, const cl::Buffer& deps, const cl::Buffer& acc,
                   const cl::Buffer& taint, const cl::Buffer& weights, const cl::Buffer& first, const cl::Buffer& frontier,
                   const cl::Buffer& state, const io::RasterFrame& frame, bool weighted, Precision p, bool contamination) {
    const std::string options = accOptions(weighted, p);
    const cl_int rows = frame.rows, cols = frame.cols, taintEdges = contamination ? 1 : 0;
    const cl::NDRange global(roundUp(frame.size(), kLocal)), local(kLocal);
    ctx.fill(state, 0, 4 * sizeof(cl_int), "clear frontier sizes");
    cl::Kernel& count = ctx.kernel("drainage.cl", countKernel, p, options);
    setArgs(count, 0, dir, deps, frontier, state, rows, cols);
    ctx.launch(count, global, local);
    cl::Kernel& wide = ctx.kernel("drainage.cl", "d8_accumulate_level", p, options);
    cl::Kernel& narrow = ctx.kernel("drainage.cl", "d8_accumulate_group", p, options);
    setArgs(wide, 0, dir, deps, acc, taint, weights, frontier, state, rows, cols, taintEdges);
    setArgs(narrow, 0, dir, deps, acc, taint, weights, frontier, state, rows, cols, taintEdges);
    const int launches = runFrontier(ctx, wide, narrow, 10, state);
    // A cell whose count never reached zero lies on a cycle (a cycle drains into no outlet, so
    // nothing downstream of it is left waiting but the cycle itself).
    cl::Kernel& check = ctx.kernel("drainage.cl", "d8_first_unfinished", p, options);
    setArgs(check, 0, dir, deps, first, rows, cols);
    ctx.launch(check, global, local);
    return launches + 2;
}

}  // namespace

int accumulateOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& deps, const cl::Buffer& acc,
                       const cl::Buffer& taint, const cl::Buffer& weights, const cl::Buffer& first,
                       const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& frame, bool weighted,
                       Precision p, bool contamination) {
    return accumulateWith("d8_dependencies", ctx, dir, deps, acc, taint, weights, first, frontier, state, frame, weighted, p,
                          contamination);
}

int accumulateWindowOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& deps, const cl::Buffer& acc,
                             const cl::Buffer& taint, const cl::Buffer& weights, const cl::Buffer& first,
                             const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& window,
                             bool weighted, Precision p, bool contamination) {
    return accumulateWith("d8_window_dependencies", ctx, dir, deps, acc, taint, weights, first, frontier, state, window, weighted,
                          p, contamination);
}

int iterateOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer water[2], const cl::Buffer& total,
                    const cl::Buffer& moved, const io::RasterFrame& frame, Iterative scheme) {
    const std::size_t n = frame.size();
    const cl_int rows = frame.rows, cols = frame.cols;
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    ctx.fill(total, 0, n * 8, "clear water received");
    cl::Kernel& step = ctx.kernel("drainage.cl", scheme == Iterative::Push ? "d8_push_step" : "d8_pull_step", Precision::Float);
    int steps = 0;
    for (int cur = 0;; cur ^= 1) {
        const cl_int zero = 0;
        ctx.write(moved, &zero, sizeof zero, "clear water moved flag");
        if (scheme == Iterative::Push) ctx.fill(water[cur ^ 1], 0, n * 8, "clear water");
        setArgs(step, 0, dir, water[cur], water[cur ^ 1], total, moved, rows, cols);
        ctx.launch(step, global, local);
        ++steps;
        cl_int any = 0;
        ctx.read(moved, &any, sizeof any, "water moved flag");
        if (!any) return steps;
    }
}

}  // namespace detail
}  // namespace portacl::drainage

// D∞ on the device (cl/drainage_dinf.cl): the facets' angles in one launch, then the accumulation
// level by level (frontier.cpp) with up to two cells downstream of each cell.
#include <climits>
#include <cmath>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "tiles.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

constexpr std::size_t kLocal = 64;

using detail::shapeText;

std::string dinfOptions(bool weighted) { return std::string(" -D WEIGHTED=") + (weighted ? "1" : "0"); }

template <typename T>
DinfGrid directionsOn(Context& ctx, const io::Raster& dem) {
    const std::size_t n = dem.size();
    ctx.checkFits(n * (2 * sizeof(T) + 1), "D-infinity directions of a " + shapeText(dem.frame) + " DEM");
    cl::Buffer heights = ctx.upload(detail::heightsOf<T>(dem), "DEM heights", CL_MEM_READ_ONLY);
    cl::Buffer nodata = ctx.upload(detail::noDataMask(dem), "DEM NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer angle = ctx.buffer(n * sizeof(T), "D-infinity angles");
    cl::Kernel& k = ctx.kernel("drainage_dinf.cl", "dinf_directions", precisionOf<T>(), dinfOptions(false));
    setArgs(k, 0, heights, nodata, angle, cl_int(dem.rows()), cl_int(dem.cols()), T(dem.frame.cellWidth()), T(dem.frame.cellHeight()),
            T(detail::dinfDiagonal(dem.frame)));
    ctx.launch(k, cl::NDRange(roundUp(n, kLocal)), cl::NDRange(kLocal));
    const auto a = ctx.download<T>(angle, n, "D-infinity angles");
    DinfGrid g;
    g.frame = dem.frame;
    g.source = dem.path;
    g.angle.assign(a.begin(), a.end());
    return g;
}

template <typename T>
Accumulation accumulateOn(Context& ctx, const DinfGrid& g, const AccumulationOptions& opt) {
    const std::size_t n = g.angle.size();
    const bool weighted = opt.weights != nullptr;
    ctx.checkFits(n * (sizeof(T) * (weighted ? 3 : 2) + 1 + 4 + 8), "D-infinity accumulation of a " + shapeText(g.frame) + " grid");
    std::vector<T> angle(n);
    std::vector<std::uint8_t> mask(n);
    for (std::size_t i = 0; i < n; ++i) {
        mask[i] = g.angle[i] == kDinfNoData;
        angle[i] = T(g.angle[i]);
    }
    cl::Buffer angles = ctx.upload(angle, "D-infinity angles", CL_MEM_READ_ONLY);
    cl::Buffer nodata = ctx.upload(mask, "NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer weights = weighted ? ctx.upload(std::vector<T>(opt.weights->begin(), opt.weights->end()), "accumulation weights", CL_MEM_READ_ONLY)
                                  : ctx.buffer(sizeof(T), "no weights", CL_MEM_READ_ONLY);
    cl::Buffer deps = ctx.buffer(n * sizeof(cl_int), "upstream counts");
    cl::Buffer acc = ctx.buffer(n * sizeof(T), "D-infinity accumulation");
    cl::Buffer frontier = ctx.buffer(2 * n * sizeof(cl_int), "frontiers");
    cl::Buffer state = ctx.buffer(4 * sizeof(cl_int), "frontier sizes");
    const cl_int none = INT_MAX;
    cl::Buffer first = ctx.upload(std::vector<cl_int>{none}, "first unfinished cell");
    detail::dinfAccumulateOnDevice(ctx, angles, nodata, deps, acc, weights, first, frontier, state, g.frame, weighted, precisionOf<T>());
    const cl_int cycle = ctx.download<cl_int>(first, 1, "first unfinished cell")[0];
    if (cycle != none) throw Error(detail::dinfCycleSentence(g, std::size_t(cycle)));
    return detail::dinfResult(ctx.download<T>(acc, n, "D-infinity accumulation"), mask, opt);
}

}  // namespace

DinfGrid dinfDirections(Context& ctx, const io::Raster& dem, Precision precision, const Tiling& tiling) {
    validateDem(dem);
    const std::size_t real = detail::realBytes(precision);
    const auto tiles = detail::planTiles(ctx, dem.frame, tiling, {2 * real + 1, 2 * real + 1, real, 1},
                                         "D-infinity directions of a " + shapeText(dem.frame) + " DEM");
    if (!tiles.empty()) return detail::dinfDirectionsTiled(ctx, dem, precision, tiles);
    return detail::onDemInPrecision(ctx, dem, precision, "D-infinity directions run",
                                    [&](auto t) { return directionsOn<decltype(t)>(ctx, dem); });
}

Accumulation dinfAccumulate(Context& ctx, const DinfGrid& g, const AccumulationOptions& opt) {
    detail::checkDinf(g, opt);
    const std::size_t real = detail::realBytes(opt.precision);
    const std::size_t perCell = real * (opt.weights ? 3 : 2) + 1 + 4 + 8;
    const auto tiles = detail::planTiles(ctx, g.frame, opt.tiling, {perCell, perCell, 8, detail::kDinfHalo},
                                         "D-infinity accumulation of a " + shapeText(g.frame) + " grid");
    if (!tiles.empty()) return detail::dinfAccumulateTiled(ctx, g, opt, tiles);
    if (opt.precision == Precision::Float) return accumulateOn<float>(ctx, g, opt);
    ctx.requirePrecision(Precision::Double);
    return accumulateOn<double>(ctx, g, opt);
}

namespace detail {

namespace {

// The accumulation's levels, the counts by `countKernel` (dinf_dependencies over a whole grid,
// dinf_window_dependencies over a tile's window); `first` (null: not looked for) receives the first
// cell of a cycle.
int dinfAccumulateWith(const char* countKernel, Context& ctx, const cl::Buffer& angle, const cl::Buffer& nodata,
                       const cl::Buffer& deps, const cl::Buffer& acc, const cl::Buffer& weights, const cl::Buffer* first,
                       const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& frame, bool weighted,
                       Precision p) {
    const std::string options = dinfOptions(weighted);
    const cl_int rows = frame.rows, cols = frame.cols;
    const cl::NDRange global(roundUp(frame.size(), kLocal)), local(kLocal);
    ctx.fill(state, 0, 4 * sizeof(cl_int), "clear frontier sizes");
    cl::Kernel& count = ctx.kernel("drainage_dinf.cl", countKernel, p, options);
    const double diagonal = dinfDiagonal(frame);
    if (p == Precision::Double) setArgs(count, 0, angle, nodata, deps, frontier, state, rows, cols, diagonal);
    else setArgs(count, 0, angle, nodata, deps, frontier, state, rows, cols, float(diagonal));
    ctx.launch(count, global, local);
    cl::Kernel& wide = ctx.kernel("drainage_dinf.cl", "dinf_accumulate_level", p, options);
    cl::Kernel& narrow = ctx.kernel("drainage_dinf.cl", "dinf_accumulate_group", p, options);
    for (cl::Kernel* k : {&wide, &narrow}) {
        setArgs(*k, 0, angle, nodata, deps, acc, weights, frontier, state, rows, cols);
        if (p == Precision::Double) setArgs(*k, 9, diagonal);
        else setArgs(*k, 9, float(diagonal));
    }
    const int launches = runFrontier(ctx, wide, narrow, 10, state);
    if (!first) return launches + 1;
    cl::Kernel& check = ctx.kernel("drainage_dinf.cl", "dinf_first_unfinished", p, options);
    setArgs(check, 0, nodata, deps, *first, rows, cols);
    ctx.launch(check, global, local);
    return launches + 2;
}

}  // namespace

int dinfAccumulateOnDevice(Context& ctx, const cl::Buffer& angle, const cl::Buffer& nodata, const cl::Buffer& deps,
                           const cl::Buffer& acc, const cl::Buffer& weights, const cl::Buffer& first,
                           const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& frame,
                           bool weighted, Precision p) {
    return dinfAccumulateWith("dinf_dependencies", ctx, angle, nodata, deps, acc, weights, &first, frontier, state, frame,
                              weighted, p);
}

int dinfAccumulateWindowOnDevice(Context& ctx, const cl::Buffer& angle, const cl::Buffer& nodata, const cl::Buffer& deps,
                                 const cl::Buffer& acc, const cl::Buffer& weights, const cl::Buffer& frontier,
                                 const cl::Buffer& state, const io::RasterFrame& window, bool weighted, Precision p) {
    return dinfAccumulateWith("dinf_window_dependencies", ctx, angle, nodata, deps, acc, weights, nullptr, frontier, state,
                              window, weighted, p);
}

}  // namespace detail
}  // namespace portacl::drainage

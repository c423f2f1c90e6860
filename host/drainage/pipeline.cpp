// The D8 steps on grids kept on the device (drainage.hpp's Pipeline): the steps' device functions
// (drainage_detail.hpp) run on the buffers the step before left, and the host sees only what is asked.
#include <algorithm>

#include "drainage_detail.hpp"
#include "tiles.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/staging.hpp"

namespace portacl::drainage {

struct Pipeline::State {
    State(Context& c, const io::Raster& d, Precision p) : ctx(c), dem(d), precision(p), staging(c, detail::stagingBytes(d.size() * 8)) {}
    Context& ctx;
    const io::Raster& dem;
    Precision precision;
    StagedTransfers staging;
    std::vector<std::uint8_t> nodata;  // the DEM's NoData flags, as on the device
    cl::Buffer heights, mask, dir;     // dir: empty until d8Directions()

    std::size_t cells() const { return dem.size(); }
    const cl::Buffer& directions(const char* step) const {
        if (!dir()) throw Error(std::string(step) + " needs the directions: call Pipeline::d8Directions() first");
        return dir;
    }
};

namespace {

// The bytes a cell takes on the device: the grids kept (heights, NoData flags, directions) and the
// largest step's own (fill: the levels; flats: their relaxations; accumulation; Strahler order;
// watersheds).
std::size_t pipelineBytesPerCell(Precision p, bool weighted) {
    const std::size_t real = detail::realBytes(p);
    AccumulationOptions opt;
    std::vector<double> none;
    if (weighted) {
        opt.weights = &none;
        opt.precision = p;
    }
    const std::size_t step = std::max({real, detail::flatBytesPerCell(p) - real - 1, detail::accumulationBytesPerCell(opt) - 1,
                                       std::size_t(1 + 4 + 4 + 8), std::size_t(1 + 4 + 4)});
    return real + 1 + 1 + step;
}

}  // namespace

bool Pipeline::fits(const Context& ctx, const io::RasterFrame& frame, Precision precision, const Tiling& tiling, bool weighted) {
    if (tiling.forced() || frame.size() >= (std::size_t(1) << 31)) return false;
    if (precision != Precision::Float && precision != Precision::Double) return false;
    const std::size_t bytes = frame.size() * pipelineBytesPerCell(precision, weighted);
    // The largest buffer: the accumulation's frontiers (2 ints a cell) or sums (8 bytes a cell).
    if (bytes > ctx.device().globalMemBytes || frame.size() * 8 > ctx.device().maxAllocBytes) return false;
    try {
        ctx.checkFits(bytes, "the drainage pipeline");
    } catch (const Error&) {
        return false;
    }
    return true;
}

Pipeline::Pipeline(Context& ctx, const io::Raster& dem, Precision precision) {
    validateDem(dem);
    if (dem.size() >= (std::size_t(1) << 31))
        throw Error("a DEM of " + std::to_string(dem.size()) + " cells is larger than the 2^31 cells one piece holds");
    if (precision != Precision::Float && precision != Precision::Double) throw Error("the drainage pipeline runs in float or double, not mixed precision");
    if (precision == Precision::Double) ctx.requirePrecision(Precision::Double);
    s_ = std::make_unique<State>(ctx, dem, precision);
    const std::size_t n = dem.size();
    s_->nodata = detail::noDataMask(dem);
    s_->mask = ctx.buffer(n, "DEM NoData mask", CL_MEM_READ_ONLY);
    s_->staging.upload<std::uint8_t>(s_->mask, n, "upload DEM NoData mask", [&](std::uint8_t* to, std::size_t first, std::size_t count) {
        std::copy_n(s_->nodata.data() + first, count, to);
    });
    s_->heights = ctx.buffer(n * detail::realBytes(precision), "DEM heights");
    auto up = [&](auto zero) {
        using T = decltype(zero);
        const double* v = dem.values.data();
        const std::uint8_t* m = s_->nodata.data();
        s_->staging.upload<T>(s_->heights, n, "upload DEM heights", [&](T* to, std::size_t first, std::size_t count) {
            for (std::size_t j = 0; j < count; ++j) to[j] = m[first + j] ? T(0) : T(v[first + j]);
        });
    };
    if (precision == Precision::Float) up(float());
    else up(double());
}

Pipeline::~Pipeline() = default;

void Pipeline::fillDepressions() {
    State& s = *s_;
    const std::size_t n = s.cells();
    cl::Buffer level = s.ctx.buffer(n * detail::realBytes(s.precision), "water levels");
    cl::Buffer changed = s.ctx.buffer(sizeof(cl_int), "levels changed");
    detail::fillOnDevice(s.ctx, s.heights, s.mask, level, changed, s.dem.frame, s.precision);
    // The levels are the DEM's heights on NoData (0, as uploaded) and the filled surface elsewhere:
    // the heights the steps' functions would upload from the filled DEM.
    s.heights = level;
}

io::Raster Pipeline::heights() {
    State& s = *s_;
    const std::size_t n = s.cells();
    io::Raster out;
    out.frame = s.dem.frame;
    out.hasNoData = s.dem.hasNoData;
    out.noData = s.dem.noData;
    out.type = s.dem.type;
    out.path = s.dem.path;
    out.values.resize(n);
    const double* v = s.dem.values.data();
    const std::uint8_t* m = s.nodata.data();
    auto take = [&](const auto* level, std::size_t first, std::size_t count) {
        for (std::size_t j = 0; j < count; ++j) out.values[first + j] = m[first + j] ? v[first + j] : double(level[j]);
    };
    if (s.precision == Precision::Float) s.staging.download<float>(s.heights, n, "download filled DEM", take);
    else s.staging.download<double>(s.heights, n, "download filled DEM", take);
    return out;
}

void Pipeline::d8Directions() {
    State& s = *s_;
    cl::Buffer dir = s.ctx.buffer(s.cells(), "D8 directions");
    detail::directionsOnDevice(s.ctx, s.heights, s.mask, dir, s.dem.frame, s.precision);
    s.dir = dir;
}

void Pipeline::resolveFlats() {
    State& s = *s_;
    cl::Buffer out = s.ctx.buffer(s.cells(), "resolved directions");
    detail::resolveFlatsOnDevice(s.ctx, s.heights, s.directions("flat resolution"), out, s.dem.frame, s.precision);
    s.dir = out;
}

DirectionGrid Pipeline::directions() {
    State& s = *s_;
    const std::size_t n = s.cells();
    DirectionGrid g;
    g.frame = s.dem.frame;
    g.source = s.dem.path;
    g.dir.resize(n);
    s.staging.download<std::uint8_t>(s.directions("the directions"), n, "download D8 directions",
                                     [&](const std::uint8_t* d, std::size_t first, std::size_t count) { std::copy_n(d, count, g.dir.data() + first); });
    return g;
}

Accumulation Pipeline::accumulate(const AccumulationOptions& opt) {
    State& s = *s_;
    const cl::Buffer& dir = s.directions("flow accumulation");
    if (opt.weights && opt.weights->size() != s.cells())
        throw Error("the weight grid has " + std::to_string(opt.weights->size()) + " cells, the DEM " + std::to_string(s.cells()));
    if (opt.precision == Precision::Mixed) throw Error("accumulation runs in float or double, not mixed precision");
    return detail::accumulateResident(s.ctx, s.staging, dir, s.dem.frame, detail::NoDataCells(s.nodata), opt,
                                      [&](std::size_t cell) { return detail::cycleSentence(directions(), cell); });
}

std::vector<int> Pipeline::strahlerOrder(const std::vector<std::uint8_t>& streamCells) {
    State& s = *s_;
    const cl::Buffer& dir = s.directions("Strahler order");
    const std::size_t n = s.cells();
    if (streamCells.size() != n)
        throw Error("the stream grid has " + std::to_string(streamCells.size()) + " cells, the DEM " + std::to_string(n));
    cl::Buffer cells = s.ctx.buffer(n, "stream cells", CL_MEM_READ_ONLY);
    s.staging.upload<std::uint8_t>(cells, n, "upload stream cells", [&](std::uint8_t* to, std::size_t first, std::size_t count) {
        std::copy_n(streamCells.data() + first, count, to);
    });
    cl::Buffer order = s.ctx.buffer(n * 4, "Strahler order");
    detail::strahlerOnDevice(s.ctx, dir, cells, order, s.dem.frame);
    std::vector<int> out(n);
    s.staging.download<cl_int>(order, n, "download Strahler order",
                               [&](const cl_int* o, std::size_t first, std::size_t count) { std::copy_n(o, count, out.data() + first); });
    return out;
}

std::vector<std::int32_t> Pipeline::watersheds(const std::vector<std::size_t>& outlets) {
    State& s = *s_;
    const cl::Buffer& dir = s.directions("watersheds");
    const std::size_t n = s.cells();
    const detail::NoDataCells noData(s.nodata);
    const std::vector<std::uint8_t> given = detail::outletMask(s.dem.frame, noData, outlets);
    cl::Buffer mask = s.ctx.buffer(n, "outlets", CL_MEM_READ_ONLY);
    if (outlets.empty())
        s.ctx.fill(mask, 0, n, "clear outlets");
    else
        s.staging.upload<std::uint8_t>(mask, n, "upload outlets",
                                       [&](std::uint8_t* to, std::size_t first, std::size_t count) { std::copy_n(given.data() + first, count, to); });
    const cl::Buffer to = detail::watershedReachOnDevice(s.ctx, dir, mask, s.dem.frame);
    std::vector<cl_int> reach(n);
    s.staging.download<cl_int>(to, n, "download outlets reached",
                               [&](const cl_int* r, std::size_t first, std::size_t count) { std::copy_n(r, count, reach.data() + first); });
    return detail::numberBasins(n, noData, reach, given, outlets);
}

}  // namespace portacl::drainage

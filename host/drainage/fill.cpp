// Depression filling on the device (cl/drainage.cl): the outlets' levels are their heights, every
// other level relaxes tile by tile (sweeps in local memory) until a launch changes nothing. The flag
// is read after every few launches, so that a DEM that settles quickly costs few round trips.
#include <algorithm>

#include "drainage_detail.hpp"
#include "tiles.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::drainage {
namespace {

constexpr int kLaunchesPerCheck = 4;
static_assert(kLaunchesPerCheck % 2 == 0, "the tiles' flags must end in the buffer they started in");

template <typename T>
io::Raster fillOn(Context& ctx, const io::Raster& dem) {
    const std::size_t n = dem.size();
    ctx.checkFits(n * (2 * sizeof(T) + 1), "depression filling of a " + detail::shapeText(dem.frame) + " DEM");
    const std::vector<std::uint8_t> nodata = detail::noDataMask(dem);
    cl::Buffer heights = ctx.upload(detail::heightsOf<T>(dem), "DEM heights", CL_MEM_READ_ONLY);
    cl::Buffer mask = ctx.upload(nodata, "DEM NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer level = ctx.buffer(n * sizeof(T), "water levels");
    cl::Buffer changed = ctx.buffer(sizeof(cl_int), "levels changed");
    const int launches = detail::fillOnDevice(ctx, heights, mask, level, changed, dem.frame, precisionOf<T>());
    (void)launches;
    const auto filled = ctx.download<T>(level, n, "filled DEM");
    io::Raster out = dem;
    for (std::size_t i = 0; i < n; ++i)
        if (!nodata[i]) out.values[i] = double(filled[i]);
    return out;
}

}  // namespace

io::Raster fillDepressions(Context& ctx, const io::Raster& dem, Precision precision, const Tiling& tiling) {
    validateDem(dem);
    const std::size_t real = detail::realBytes(precision);
    const auto tiles = detail::planTiles(ctx, dem.frame, tiling, {2 * real + 1, 2 * real + 9, real, 0},
                                         "depression filling of a " + detail::shapeText(dem.frame) + " DEM");
    if (!tiles.empty()) return detail::fillDepressionsTiled(ctx, dem, precision, tiles);
    return detail::onDemInPrecision(ctx, dem, precision, "depression filling runs",
                                    [&](auto t) { return fillOn<decltype(t)>(ctx, dem); });
}

namespace detail {

int fillOnDevice(Context& ctx, const cl::Buffer& heights, const cl::Buffer& nodata, const cl::Buffer& level,
                 const cl::Buffer& changed, const io::RasterFrame& frame, Precision p) {
    // 16 x 16 work-items where the device allows them, else 8 x 8; [drainage] fill_tile overrides.
    const std::size_t fallback = ctx.device().maxWorkGroupSize >= 256 ? 16 : 8;
    const std::size_t side = std::size_t(ctx.tuning().getInt("drainage", "fill_tile", long(fallback), 4, 64));
    const std::string options = "-D FILL_TILE=" + std::to_string(side);
    const cl_int rows = frame.rows, cols = frame.cols;
    cl::Kernel& init = ctx.kernel("drainage.cl", "fill_init", p, options);
    setArgs(init, 0, heights, nodata, level, rows, cols);
    ctx.launch(init, cl::NDRange(roundUp(frame.size(), 64)), cl::NDRange(64));
    cl::Kernel& tile = ctx.kernel("drainage.cl", "fill_tile", p, options);
    setArgs(tile, 0, heights, nodata, level, changed, rows, cols);
    const cl::NDRange global(roundUp(std::size_t(cols), side), roundUp(std::size_t(rows), side)), local(side, side);
    // Which tiles' levels fell in a launch, read by the next (every tile runs in the first).
    const std::size_t tiles = (std::size_t(cols) + side - 1) / side * ((std::size_t(rows) + side - 1) / side);
    const cl::Buffer fell[2] = {ctx.buffer(tiles, "tiles whose levels fell"), ctx.buffer(tiles, "tiles whose levels fell (the other of the pair)")};
    ctx.fill(fell[0], 1, tiles, "every tile to run");
    Progress progress("depression filling", 0, "launches");
    int launches = 0;
    for (;;) {
        const cl_int zero = 0;
        ctx.write(changed, &zero, sizeof zero, "clear levels changed");
        for (int k = 0; k < kLaunchesPerCheck; ++k) {
            setArgs(tile, 6, fell[k % 2], fell[(k + 1) % 2]);
            ctx.launch(tile, global, local);
        }
        launches += kLaunchesPerCheck;
        cl_int any = 0;
        ctx.read(changed, &any, sizeof any, "levels changed");
        progress.update(std::uint64_t(launches));
        if (!any) break;
    }
    progress.finish();
    return launches;
}

}  // namespace detail
}  // namespace portacl::drainage

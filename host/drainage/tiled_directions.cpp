// D8 directions tile by tile: each tile's window holds a one-cell ring of its neighbours' heights (the
// ring's cells off the grid as NoData, which D8 skips as it skips the grid's outside), so every cell
// of the tile sees the neighbours it sees in one piece.
#include "drainage_detail.hpp"
#include "tiles.hpp"

namespace portacl::drainage::detail {
namespace {

template <typename T>
DirectionGrid directionsTiled(Context& ctx, const io::Raster& dem, const std::vector<Tile>& tiles) {
    std::size_t largest = 0;
    for (const Tile& t : tiles) largest = std::max(largest, std::size_t(t.rows + 2) * std::size_t(t.cols + 2));
    cl::Buffer heights = ctx.buffer(largest * sizeof(T), "tile heights", CL_MEM_READ_ONLY);
    cl::Buffer nodata = ctx.buffer(largest, "tile NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer dir = ctx.buffer(largest, "tile D8 directions");
    DirectionGrid g;
    g.frame = dem.frame;
    g.source = dem.path;
    g.dir.assign(dem.size(), kNoData);
    const int cols = dem.cols();
    for (const Tile& t : tiles) {
        const std::size_t cells = writeHeightWindow<T>(ctx, dem, t, heights, nodata);
        directionsOnDevice(ctx, heights, nodata, dir, windowFrame(dem.frame, t.rows + 2, t.cols + 2), precisionOf<T>());
        const auto d = ctx.download<std::uint8_t>(dir, cells, "tile D8 directions");
        for (int y = 0; y < t.rows; ++y)
            std::copy_n(d.begin() + std::ptrdiff_t(y + 1) * (t.cols + 2) + 1, t.cols,
                        g.dir.begin() + std::ptrdiff_t(std::size_t(t.r0 + y) * cols + t.c0));
    }
    return g;
}

}  // namespace

DirectionGrid d8DirectionsTiled(Context& ctx, const io::Raster& dem, Precision precision, const std::vector<Tile>& tiles) {
    return inPrecision(ctx, precision, "D8 directions run", [&](auto t) { return directionsTiled<decltype(t)>(ctx, dem, tiles); });
}

}  // namespace portacl::drainage::detail

// Tiled processing (drainage.hpp's Tiling): the plan of tiles, and windows cut from the host's grid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/drainage.hpp"
#include "portacl/export.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage::detail {

// Cells [r0, r0 + rows) x [c0, c0 + cols) of the grid.
struct Tile {
    int r0 = 0, c0 = 0, rows = 0, cols = 0;
    bool holds(long r, long c) const { return r >= r0 && r < r0 + rows && c >= c0 && c < c0 + cols; }
};

// The device bytes a step takes per cell in one piece, per cell of a tile's window, and per cell in
// its largest buffer; the ring of cells a window holds around its tile.
struct StepBytes {
    std::size_t onePiece = 0, tile = 0, largest = 0;
    int halo = 0;
};

// The tiles a step runs on: empty for one piece. A forced tiling is used as given (clipped to the
// grid); otherwise one piece when the grid has fewer than 2^31 cells and its buffers fit the device,
// else square tiles whose windows fit half its memory and its largest buffer. `what` names the step
// for the sentence when not even a small tile fits.
std::vector<Tile> planTiles(const Context& ctx, const io::RasterFrame& f, const Tiling& tiling, const StepBytes& bytes,
                            const std::string& what);

// planTiles' choice for a device of `deviceBytes` whose largest buffer is `maxAllocBytes` (exported
// for the tests).
PORTACL_API std::vector<Tile> planTilesFor(const io::RasterFrame& f, const Tiling& tiling, const StepBytes& bytes,
                                           std::uint64_t deviceBytes, std::uint64_t maxAllocBytes, const std::string& what);

// The tiles of at most tileRows x tileCols cells covering the grid, row by row.
std::vector<Tile> cutTiles(const io::RasterFrame& f, int tileRows, int tileCols);

// The frame of a window of rows x cols cells (the grid's cell size, for the distances).
inline io::RasterFrame windowFrame(const io::RasterFrame& f, int rows, int cols) {
    io::RasterFrame w = f;
    w.rows = rows;
    w.cols = cols;
    return w;
}

// The window of `t` with a ring of `halo` cells: at(r, c) of each of its cells in the grid, `outside`
// for the ring's cells off the grid.
template <typename T, typename At>
std::vector<T> cutWindow(const io::RasterFrame& f, const Tile& t, int halo, T outside, At&& at) {
    const int wr = t.rows + 2 * halo, wc = t.cols + 2 * halo;
    std::vector<T> w(std::size_t(wr) * std::size_t(wc));
    for (int y = 0; y < wr; ++y) {
        const long r = long(t.r0) + y - halo;
        for (int x = 0; x < wc; ++x) {
            const long c = long(t.c0) + x - halo;
            w[std::size_t(y) * wc + x] = (r < 0 || r >= f.rows || c < 0 || c >= f.cols) ? outside : at(std::size_t(r) * f.cols + c);
        }
    }
    return w;
}

// Writes the window of `t` with a ring of one cell, as the direction kernels read it: its heights in
// T (0 on NoData and off the grid) into `heights`, its NoData flags (1 off the grid) into `nodata`.
// Returns the window's cell count.
template <typename T>
std::size_t writeHeightWindow(Context& ctx, const io::Raster& dem, const Tile& t, cl::Buffer& heights, cl::Buffer& nodata) {
    const auto z = cutWindow<T>(dem.frame, t, 1, T(0), [&](std::size_t i) { return dem.isNoData(i) ? T(0) : T(dem.values[i]); });
    const auto m = cutWindow<std::uint8_t>(dem.frame, t, 1, 1, [&](std::size_t i) { return std::uint8_t(dem.isNoData(i)); });
    ctx.write(heights, z.data(), z.size() * sizeof(T), "tile heights");
    ctx.write(nodata, m.data(), m.size(), "tile NoData mask");
    return m.size();
}

// Runs run(T()) with T float or double as `precision` asks (double checked on the device); `what`
// begins the sentence for mixed precision.
template <typename Run>
auto inPrecision(Context& ctx, Precision precision, const std::string& what, Run&& run) {
    if (precision == Precision::Float) return run(float());
    if (precision != Precision::Double) throw Error(what + " in float or double, not mixed precision");
    ctx.requirePrecision(Precision::Double);
    return run(double());
}
inline std::size_t realBytes(Precision p) { return p == Precision::Float ? 4 : 8; }

// The cells of the neighbouring tiles that a tile's window for D∞ accumulation computes again with
// the tile (its halo is one more, the ring of inflows): a flow path that wanders back and forth
// across the tile's edge within the margin is settled in one run of the tile.
constexpr int kDinfMargin = 8;
constexpr int kDinfHalo = kDinfMargin + 1;

// The tiled steps (tiles from planTiles, never empty).
DirectionGrid d8DirectionsTiled(Context& ctx, const io::Raster& dem, Precision precision, const std::vector<Tile>& tiles);
io::Raster fillDepressionsTiled(Context& ctx, const io::Raster& dem, Precision precision, const std::vector<Tile>& tiles);
// Flats in windows; a window larger than a tile whose bytes exceed `deviceBytes` (0: what the
// context's device holds) is resolved by the serial reference. Exported for the tests.
PORTACL_API DirectionGrid resolveFlatsTiled(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision,
                                            const std::vector<Tile>& tiles, std::uint64_t deviceBytes = 0);
// Flat resolution of a DEM (or a window of one) in one piece, and the device bytes it takes a cell.
DirectionGrid resolveFlatsWindow(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision);
std::size_t flatBytesPerCell(Precision p);
Accumulation accumulateTiled(Context& ctx, const DirectionGrid& g, const AccumulationOptions& opt, const std::vector<Tile>& tiles);
std::vector<int> strahlerOrderTiled(Context& ctx, const DirectionGrid& g, const std::vector<std::uint8_t>& stream,
                                    const std::vector<Tile>& tiles);
std::vector<std::int32_t> watershedsTiled(Context& ctx, const DirectionGrid& g, const std::vector<std::size_t>& outlets,
                                          const std::vector<Tile>& tiles);
DinfGrid dinfDirectionsTiled(Context& ctx, const io::Raster& dem, Precision precision, const std::vector<Tile>& tiles);
Accumulation dinfAccumulateTiled(Context& ctx, const DinfGrid& g, const AccumulationOptions& opt, const std::vector<Tile>& tiles);

}  // namespace portacl::drainage::detail

// The plan of tiles: forced by the caller, or chosen when the grid's buffers exceed the device.
#include "tiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "portacl/runtime/error.hpp"

namespace portacl::drainage {

Tiling parseTiling(const std::string& text) {
    int rows = 0, cols = 0;
    char x = 0, extra = 0;
    const int got = std::sscanf(text.c_str(), "%d%c%d%c", &rows, &x, &cols, &extra);
    if (got == 1) cols = rows;
    else if (!(got == 3 && (x == 'x' || x == 'X'))) rows = 0;
    if (rows < 1 || cols < 1) throw Error("--tile takes N or RxC, positive whole numbers of cells, not '" + text + "'");
    return Tiling{rows, cols};
}

namespace detail {

std::vector<Tile> cutTiles(const io::RasterFrame& f, int tileRows, int tileCols) {
    std::vector<Tile> tiles;
    for (int r = 0; r < f.rows; r += tileRows)
        for (int c = 0; c < f.cols; c += tileCols)
            tiles.push_back(Tile{r, c, std::min(tileRows, f.rows - r), std::min(tileCols, f.cols - c)});
    return tiles;
}

std::vector<Tile> planTilesFor(const io::RasterFrame& f, const Tiling& tiling, const StepBytes& bytes, std::uint64_t deviceBytes,
                               std::uint64_t maxAllocBytes, const std::string& what) {
    if (tiling.forced()) return cutTiles(f, std::min(tiling.rows, f.rows), std::min(tiling.cols, f.cols));
    constexpr std::size_t kOnePieceCells = std::size_t(1) << 31;
    if (f.size() < kOnePieceCells && f.size() * bytes.onePiece <= deviceBytes && f.size() * bytes.largest <= maxAllocBytes) return {};
    const double cells = std::min(double(deviceBytes) / 2 / double(bytes.tile), double(maxAllocBytes) / double(bytes.largest));
    const long side = std::min<long>(long(std::floor(std::sqrt(cells))) - 2 * bytes.halo, 46340 - 2 * bytes.halo);
    if (side < 16)
        throw Error(what + " cannot be tiled: not even a 16x16 tile's " + std::to_string(bytes.tile) + " bytes a cell fit the device");
    return cutTiles(f, int(std::min<long>(side, f.rows)), int(std::min<long>(side, f.cols)));
}

std::vector<Tile> planTiles(const Context& ctx, const io::RasterFrame& f, const Tiling& tiling, const StepBytes& bytes,
                            const std::string& what) {
    const DeviceInfo& d = ctx.device();
    const std::string where = what + " on " + d.label();
    auto tiles = planTilesFor(f, tiling, bytes, d.globalMemBytes, d.maxAllocBytes, where);
    if (tiles.empty()) {
        try {
            ctx.checkFits(f.size() * bytes.onePiece, what);
            return tiles;
        } catch (const Error&) {
            // a CPU device whose host has too little free memory for one piece: tiles, as for a smaller device
            tiles = planTilesFor(f, tiling, bytes, f.size() * bytes.onePiece - 1, d.maxAllocBytes, where);
        }
    }
    const std::size_t window = std::size_t(tiles.front().rows + 2 * bytes.halo) * std::size_t(tiles.front().cols + 2 * bytes.halo);
    ctx.checkFits(window * bytes.tile, what + ", a tile of " + std::to_string(tiles.front().rows) + "x" +
                                           std::to_string(tiles.front().cols) + " cells,");
    return tiles;
}

}  // namespace detail
}  // namespace portacl::drainage

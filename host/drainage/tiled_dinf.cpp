// D∞ tile by tile. Directions: each tile's window holds a one-cell ring of its neighbours' heights
// (cells off the grid as NoData, whose facets D∞ skips alike), so every cell sees what it sees in one
// piece. Accumulation (Barnes 2017's tiles, with flow split between two receivers): each tile's
// window holds the tile, a margin of kDinfMargin cells of its neighbours computed again with it, and
// a one-cell ring beyond whose cells carry their latest values in (dinf_window_dependencies: pulled
// as any contributor's share, in the one-piece order, neither counted nor summed). Every tile runs
// once with what its ring holds so far; a tile runs again whenever a value on its ring that flows
// into its window changed, until none does (sweeping the tiles forwards and backwards in turn). The
// margin keeps a path that wanders back and forth across a tile's edge within one run. Each cell's sum is then formed from the same shares of the
// same values in the same order as in one piece: the one-piece result bit for bit. (A split flow
// makes an edge cell's value a weighted sum of many entries' inflows, rounded in the order of the
// one-piece additions; a link graph solved on the host would add them in another order.) Cycles are
// found first on the host, naming the cell the one-piece run names.
#include <algorithm>
#include <cstring>

#include "drainage_detail.hpp"
#include "portacl/runtime/progress.hpp"
#include "tiles.hpp"

namespace portacl::drainage::detail {
namespace {

constexpr std::size_t kLocal = 64;

std::size_t largestWindow(const std::vector<Tile>& tiles, int halo) {
    std::size_t largest = 0;
    for (const Tile& t : tiles) largest = std::max(largest, std::size_t(t.rows + 2 * halo) * std::size_t(t.cols + 2 * halo));
    return largest;
}

// How far (r, c) lies outside tile t: 0 inside it, 1 on the ring around it, ... (Chebyshev distance).
long distanceFrom(const Tile& t, long r, long c) {
    const long dr = std::max({long(t.r0) - r, 0L, r - long(t.r0 + t.rows - 1)});
    const long dc = std::max({long(t.c0) - c, 0L, c - long(t.c0 + t.cols - 1)});
    return std::max(dr, dc);
}

template <typename T>
DinfGrid directionsTiled(Context& ctx, const io::Raster& dem, const std::vector<Tile>& tiles) {
    const std::size_t largest = largestWindow(tiles, 1);
    cl::Buffer heights = ctx.buffer(largest * sizeof(T), "tile heights", CL_MEM_READ_ONLY);
    cl::Buffer nodata = ctx.buffer(largest, "tile NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer angle = ctx.buffer(largest * sizeof(T), "tile D-infinity angles");
    cl::Kernel& k = ctx.kernel("drainage_dinf.cl", "dinf_directions", precisionOf<T>(), " -D WEIGHTED=0");
    DinfGrid g;
    g.frame = dem.frame;
    g.source = dem.path;
    g.angle.assign(dem.size(), kDinfNoData);
    const int cols = dem.cols();
    for (const Tile& t : tiles) {
        const std::size_t cells = writeHeightWindow<T>(ctx, dem, t, heights, nodata);
        const int wr = t.rows + 2, wc = t.cols + 2;
        setArgs(k, 0, heights, nodata, angle, cl_int(wr), cl_int(wc), T(dem.frame.cellWidth()), T(dem.frame.cellHeight()),
                T(dinfDiagonal(dem.frame)));
        ctx.launch(k, cl::NDRange(roundUp(cells, kLocal)), cl::NDRange(kLocal));
        const auto a = ctx.download<T>(angle, cells, "tile D-infinity angles");
        for (int y = 0; y < t.rows; ++y)
            for (int x = 0; x < t.cols; ++x)
                g.angle[std::size_t(t.r0 + y) * cols + std::size_t(t.c0 + x)] = double(a[std::size_t(y + 1) * wc + std::size_t(x + 1)]);
    }
    return g;
}

template <typename T>
class TiledDinf {
public:
    TiledDinf(Context& ctx, const DinfGrid& g, const AccumulationOptions& opt, const std::vector<Tile>& tiles)
        : ctx_(ctx), g_(g), opt_(opt), tiles_(tiles) {
        tileRows_ = tiles.front().rows;
        tileCols_ = tiles.front().cols;
        tilesAcross_ = (g.frame.cols + tileCols_ - 1) / tileCols_;
        const std::size_t largest = largestWindow(tiles, kDinfHalo);
        angle_ = ctx.buffer(largest * sizeof(T), "tile D-infinity angles", CL_MEM_READ_ONLY);
        nodata_ = ctx.buffer(largest, "tile NoData mask", CL_MEM_READ_ONLY);
        deps_ = ctx.buffer(largest * sizeof(cl_int), "tile upstream counts");
        frontier_ = ctx.buffer(2 * largest * sizeof(cl_int), "tile frontiers");
        state_ = ctx.buffer(4 * sizeof(cl_int), "tile frontier sizes");
        acc_ = ctx.buffer(largest * sizeof(T), "tile D-infinity accumulation");
        weights_ = ctx.buffer(opt.weights ? largest * sizeof(T) : sizeof(T), "tile accumulation weights", CL_MEM_READ_ONLY);
        value_.assign(g.angle.size(), T(0));
    }

    Accumulation run() {
        std::vector<std::uint8_t> dirty(tiles_.size(), 1);
        Progress progress("tiled D-infinity accumulation", 0, "tile runs");  // runs: as many as the inflows need
        std::uint64_t runs = 0;
        // Sweeps alternately forwards and backwards through the tiles, so that flow crossing tile edges
        // against the order of one sweep follows in the next.
        for (bool any = true, backwards = false; any; backwards = !backwards) {
            any = false;
            for (std::size_t k = 0; k < tiles_.size(); ++k) {
                const std::size_t t = backwards ? tiles_.size() - 1 - k : k;
                if (!dirty[t]) continue;
                dirty[t] = 0;
                runTile(t, dirty);
                any = true;
                progress.update(++runs);
            }
        }
        progress.finish();
        std::vector<std::uint8_t> nodata(g_.angle.size());
        for (std::size_t i = 0; i < nodata.size(); ++i) nodata[i] = g_.angle[i] == kDinfNoData;
        return dinfResult(value_, nodata, opt_);
    }

private:
    // Tile t with its margin, and its ring's latest values; its cells' values stored, and the tiles
    // whose ring holds a cell whose value changed and that sends flow into their margin marked to run
    // again.
    void runTile(std::size_t ti, std::vector<std::uint8_t>& dirty) {
        const Tile& t = tiles_[ti];
        const io::RasterFrame& f = g_.frame;
        const int h = kDinfHalo, wr = t.rows + 2 * h, wc = t.cols + 2 * h;
        const std::size_t w = std::size_t(wr) * std::size_t(wc);
        const auto angle = cutWindow<T>(f, t, h, T(kDinfNoData), [&](std::size_t i) { return T(g_.angle[i]); });
        const auto nodata = cutWindow<std::uint8_t>(f, t, h, 1, [&](std::size_t i) { return std::uint8_t(g_.angle[i] == kDinfNoData); });
        auto acc = cutWindow<T>(f, t, h, T(0), [&](std::size_t i) { return value_[i]; });
        ctx_.write(angle_, angle.data(), w * sizeof(T), "tile D-infinity angles");
        ctx_.write(nodata_, nodata.data(), w, "tile NoData mask");
        ctx_.write(acc_, acc.data(), w * sizeof(T), "tile inflows");
        if (opt_.weights) {
            const auto weights = cutWindow<T>(f, t, h, T(0), [&](std::size_t i) { return T((*opt_.weights)[i]); });
            ctx_.write(weights_, weights.data(), w * sizeof(T), "tile accumulation weights");
        }
        dinfAccumulateWindowOnDevice(ctx_, angle_, nodata_, deps_, acc_, weights_, frontier_, state_, windowFrame(f, wr, wc),
                                     opt_.weights != nullptr, precisionOf<T>());
        acc = ctx_.download<T>(acc_, w, "tile D-infinity accumulation");
        for (int y = 0; y < t.rows; ++y)
            for (int x = 0; x < t.cols; ++x) {
                const std::size_t cell = std::size_t(t.r0 + y) * f.cols + std::size_t(t.c0 + x);
                if (g_.angle[cell] == kDinfNoData) continue;
                const T v = acc[std::size_t(y + h) * wc + std::size_t(x + h)];
                // A cell deeper inside its tile than the margin lies in no other tile's window.
                const bool near = std::min({y, x, t.rows - 1 - y, t.cols - 1 - x}) < h;
                if (near && std::memcmp(&v, &value_[cell], sizeof v) != 0) markReaders(t.r0 + y, t.c0 + x, ti, dirty);
                value_[cell] = v;
            }
    }

    // The tiles other than `own` whose ring holds (r, c) and whose tile or margin holds a cell that
    // (r, c) sends flow to (both neighbours of its angle's sector: a superset of those its shares reach).
    void markReaders(long r, long c, std::size_t own, std::vector<std::uint8_t>& dirty) const {
        const int k = dinfSector(g_.angle[std::size_t(r) * g_.frame.cols + std::size_t(c)], g_.frame, precisionOf<T>());
        if (k < 0) return;
        const long h = kDinfHalo;
        const long tilesDown = (g_.frame.rows + tileRows_ - 1) / tileRows_;
        const long tr0 = std::max(0L, (r - h) / tileRows_), tr1 = std::min(tilesDown - 1, (r + h) / tileRows_);
        const long tc0 = std::max(0L, (c - h) / tileCols_), tc1 = std::min(long(tilesAcross_) - 1, (c + h) / tileCols_);
        for (long tr = tr0; tr <= tr1; ++tr)
            for (long tc = tc0; tc <= tc1; ++tc) {
                const std::size_t u = std::size_t(tr) * std::size_t(tilesAcross_) + std::size_t(tc);
                if (u == own || dirty[u] || distanceFrom(tiles_[u], r, c) != h) continue;
                for (int d : {k, (k + 1) & 7}) {
                    const long rr = r + kRowOffset[d], cc = c + kColOffset[d];
                    if (rr >= 0 && rr < g_.frame.rows && cc >= 0 && cc < g_.frame.cols && distanceFrom(tiles_[u], rr, cc) < h) dirty[u] = 1;
                }
            }
    }

    Context& ctx_;
    const DinfGrid& g_;
    const AccumulationOptions& opt_;
    const std::vector<Tile>& tiles_;
    int tileRows_ = 0, tileCols_ = 0, tilesAcross_ = 0;
    cl::Buffer angle_, nodata_, deps_, frontier_, state_, acc_, weights_;
    std::vector<T> value_;  // every cell's latest value
};

}  // namespace

DinfGrid dinfDirectionsTiled(Context& ctx, const io::Raster& dem, Precision precision, const std::vector<Tile>& tiles) {
    return inPrecision(ctx, precision, "D-infinity directions run", [&](auto t) { return directionsTiled<decltype(t)>(ctx, dem, tiles); });
}

Accumulation dinfAccumulateTiled(Context& ctx, const DinfGrid& g, const AccumulationOptions& opt, const std::vector<Tile>& tiles) {
    // A cycle would keep its tiles running: refused first, naming the one-piece run's cell.
    if (const long c = dinfFirstUnfinished(g, opt.precision); c >= 0) throw Error(dinfCycleSentence(g, std::size_t(c)));
    if (opt.precision == Precision::Float) return TiledDinf<float>(ctx, g, opt, tiles).run();
    ctx.requirePrecision(Precision::Double);
    return TiledDinf<double>(ctx, g, opt, tiles).run();
}

}  // namespace portacl::drainage::detail

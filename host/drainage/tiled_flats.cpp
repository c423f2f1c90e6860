// Flat resolution in windows. A flat's directions depend only on its connected set of equal heights
// (the cells its labels flood over from its low edges) and their neighbours: which cells have no
// flow, which drain (the low edges) and which are higher (the high edges). So each such set that
// holds a cell without flow is resolved in a window of its bounding box and a one-cell ring: the set
// is maximal, so no cell of the ring has its height, and every neighbour of its cells lies in the
// window, where the one-piece method gives them the directions it gives them in the whole grid.
// Sets are taken in the order of their first cell and share a window while the window stays within a
// tile's cell count; a set whose own window is larger runs alone, on the device if it holds the
// window, else by the serial reference on the host.
#include <algorithm>
#include <deque>

#include "drainage_detail.hpp"
#include "portacl/runtime/progress.hpp"
#include "tiles.hpp"

namespace portacl::drainage::detail {
namespace {

struct Flat {
    std::size_t first = 0, end = 0;  // its cells: cells[first, end)
    Tile box;                        // its bounding box and a one-cell ring, clipped to the grid
};

Tile unite(const Tile& a, const Tile& b) {
    const int r0 = std::min(a.r0, b.r0), c0 = std::min(a.c0, b.c0);
    const int r1 = std::max(a.r0 + a.rows, b.r0 + b.rows), c1 = std::max(a.c0 + a.cols, b.c0 + b.cols);
    return Tile{r0, c0, r1 - r0, c1 - c0};
}
std::size_t cellsOf(const Tile& t) { return std::size_t(t.rows) * std::size_t(t.cols); }

template <typename T>
DirectionGrid resolveTiled(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision p, const std::vector<Tile>& tiles,
                           std::uint64_t deviceBytes) {
    const io::RasterFrame& f = dem.frame;
    const int rows = f.rows, cols = f.cols;
    auto hasData = [&](long r, long c) { return r >= 0 && r < rows && c >= 0 && c < cols && d8.dir[std::size_t(r) * cols + c] != kNoData; };
    auto height = [&](std::size_t i) { return T(dem.values[i]); };
    // The connected sets of equal heights that hold a cell without flow inside the grid.
    std::vector<std::uint8_t> seen(dem.size(), 0);
    std::vector<std::size_t> cells;
    std::vector<Flat> flats;
    std::deque<std::size_t> queue;
    for (std::size_t s = 0; s < dem.size(); ++s) {
        if (seen[s] || d8.dir[s] != kNoFlow) continue;
        const long sr = long(s / cols), sc = long(s % cols);
        bool inside = true;
        for (int k = 0; k < 8; ++k) inside = inside && hasData(sr + kRowOffset[k], sc + kColOffset[k]);
        if (!inside) continue;
        Flat flat;
        flat.first = cells.size();
        long r0 = sr, r1 = sr, c0 = sc, c1 = sc;
        seen[s] = 1;
        queue.push_back(s);
        while (!queue.empty()) {
            const std::size_t i = queue.front();
            queue.pop_front();
            cells.push_back(i);
            const long r = long(i / cols), c = long(i % cols);
            r0 = std::min(r0, r), r1 = std::max(r1, r), c0 = std::min(c0, c), c1 = std::max(c1, c);
            for (int k = 0; k < 8; ++k) {
                const long rr = r + kRowOffset[k], cc = c + kColOffset[k];
                if (!hasData(rr, cc)) continue;
                const std::size_t m = std::size_t(rr) * cols + std::size_t(cc);
                if (!seen[m] && height(m) == height(i)) seen[m] = 1, queue.push_back(m);
            }
        }
        flat.end = cells.size();
        r0 = std::max(0L, r0 - 1), c0 = std::max(0L, c0 - 1), r1 = std::min(long(rows) - 1, r1 + 1), c1 = std::min(long(cols) - 1, c1 + 1);
        flat.box = Tile{int(r0), int(c0), int(r1 - r0 + 1), int(c1 - c0 + 1)};
        flats.push_back(flat);
    }

    DirectionGrid out = d8;
    const std::size_t budget = cellsOf(tiles.front());
    auto resolveWindow = [&](const Tile& w, std::size_t from, std::size_t to) {
        // A window larger than a tile runs on the device when it holds it, else by the serial
        // reference on the host (the same directions).
        const std::uint64_t need = std::uint64_t(cellsOf(w)) * flatBytesPerCell(p);
        bool device = true;
        if (cellsOf(w) > budget && deviceBytes) {
            device = need <= deviceBytes;
        } else if (cellsOf(w) > budget) {
            try {
                ctx.checkFits(need, "a flat's window");
            } catch (const Error&) {
                device = false;
            }
        }
        io::Raster wd;
        wd.frame = windowFrame(f, w.rows, w.cols);
        wd.hasNoData = dem.hasNoData, wd.noData = dem.noData, wd.type = dem.type, wd.path = dem.path;
        wd.values = cutWindow<double>(f, w, 0, 0.0, [&](std::size_t i) { return dem.values[i]; });
        DirectionGrid wg;
        wg.frame = wd.frame;
        wg.source = d8.source;
        wg.dir = cutWindow<std::uint8_t>(f, w, 0, kNoData, [&](std::size_t i) { return d8.dir[i]; });
        const DirectionGrid res = device ? resolveFlatsWindow(ctx, wd, wg, p) : resolveFlatsReference(wd, wg, p);
        for (std::size_t k = flats[from].first; k < flats[to - 1].end; ++k) {
            const std::size_t i = cells[k];
            const int r = int(i / cols) - w.r0, c = int(i % cols) - w.c0;
            out.dir[i] = res.dir[std::size_t(r) * w.cols + c];
        }
    };
    Progress progress("flat resolution in windows", flats.size(), "flats");
    std::size_t start = 0;
    Tile window;
    for (std::size_t k = 0; k <= flats.size(); ++k) {
        if (k < flats.size() && k > start && cellsOf(unite(window, flats[k].box)) <= budget) {
            window = unite(window, flats[k].box);
            continue;
        }
        if (k > start) resolveWindow(window, start, k);
        progress.update(k);
        start = k;
        if (k < flats.size()) window = flats[k].box;
    }
    progress.finish();
    return out;
}

}  // namespace

DirectionGrid resolveFlatsTiled(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision,
                                const std::vector<Tile>& tiles, std::uint64_t deviceBytes) {
    return inPrecision(ctx, precision, "flat resolution runs",
                       [&](auto t) { return resolveTiled<decltype(t)>(ctx, dem, d8, precision, tiles, deviceBytes); });
}

}  // namespace portacl::drainage::detail

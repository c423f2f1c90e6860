// Strahler order and watersheds tile by tile: each tile on the device on its own (the one-piece
// kernels on the tile's cells, flow leaving the tile ending there), then the tiles joined on the host
// through the cells where flow crosses a tile's edge (after Barnes 2017's links).
// - Watersheds: each tile's cells labelled by pointer jumping with the outlet they reach inside the
//   tile (a cell whose flow leaves the tile its own outlet there); on the host, each such tile outlet
//   whose flow goes on into the next tile takes the final outlet of the tile outlet its entry cell
//   reached, followed through that chain (a forest of tile outlets), and every cell takes its tile
//   outlet's final outlet; the basins are then numbered as in one piece (numberBasins).
// - Strahler order: each tile ordered with its stream cells' contributors in other tiles left out,
//   which gives every cell its final order except those downstream of a stream entering the tile;
//   those cells (the stream paths from each entry to where they leave their tile, joined across
//   tiles) are ordered on the host in Kahn's order, each from its stream contributors' final orders.
#include <deque>
#include <unordered_map>

#include "drainage_detail.hpp"
#include "portacl/runtime/progress.hpp"
#include "tiles.hpp"

namespace portacl::drainage::detail {
namespace {

constexpr std::size_t kLocal = 64;

std::size_t largestTile(const std::vector<Tile>& tiles) {
    std::size_t largest = 0;
    for (const Tile& t : tiles) largest = std::max(largest, std::size_t(t.rows) * std::size_t(t.cols));
    return largest;
}

// The tile's cells of a grid, row by row.
template <typename V>
std::vector<V> cutTile(const io::RasterFrame& f, const Tile& t, const std::vector<V>& grid) {
    std::vector<V> w(std::size_t(t.rows) * std::size_t(t.cols));
    for (int y = 0; y < t.rows; ++y)
        std::copy_n(grid.begin() + std::ptrdiff_t(std::size_t(t.r0 + y) * f.cols + std::size_t(t.c0)), t.cols,
                    w.begin() + std::ptrdiff_t(y) * t.cols);
    return w;
}

}  // namespace

std::vector<std::int32_t> watershedsTiled(Context& ctx, const DirectionGrid& g, const std::vector<std::size_t>& outlets,
                                          const std::vector<Tile>& tiles) {
    const std::vector<std::uint8_t> given = outletMask(g, outlets);
    if (const long c = cycleCell(g); c >= 0) throw Error(cycleSentence(g, std::size_t(c)));
    const io::RasterFrame& f = g.frame;
    const std::size_t largest = largestTile(tiles);
    cl::Buffer dir = ctx.buffer(largest, "tile D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer mask = ctx.buffer(largest, "tile outlets", CL_MEM_READ_ONLY);
    cl::Buffer to[2] = {ctx.buffer(largest * 4, "tile pointers"), ctx.buffer(largest * 4, "tile pointers doubled")};
    cl::Buffer changed = ctx.buffer(kJumpsPerRead * sizeof(cl_int), "tile pointers changed");
    cl::Kernel& init = ctx.kernel("drainage_network.cl", "watershed_init", Precision::Float);
    // reach: first each cell's outlet inside its tile, then its outlet in the grid.
    std::vector<long> reach(g.dir.size(), -1);
    Progress progress("tiled watersheds", tiles.size(), "tiles");
    std::uint64_t done = 0;
    for (const Tile& t : tiles) {
        const std::size_t n = std::size_t(t.rows) * std::size_t(t.cols);
        const auto d = cutTile(f, t, g.dir);
        const auto m = cutTile(f, t, given);
        ctx.write(dir, d.data(), n, "tile D8 directions");
        ctx.write(mask, m.data(), n, "tile outlets");
        const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
        setArgs(init, 0, dir, mask, to[0], cl_int(t.rows), cl_int(t.cols));
        ctx.launch(init, global, local);
        const int cur = doublePointers(ctx, to, changed, n);
        const auto end = ctx.download<cl_int>(to[cur], n, "tile outlets reached");
        for (int y = 0; y < t.rows; ++y)
            for (int x = 0; x < t.cols; ++x) {
                const cl_int e = end[std::size_t(y) * t.cols + x];
                if (e < 0) continue;
                reach[std::size_t(t.r0 + y) * f.cols + std::size_t(t.c0 + x)] =
                    long(std::size_t(t.r0 + e / t.cols) * f.cols + std::size_t(t.c0 + e % t.cols));
            }
        progress.update(++done);
    }
    progress.finish();
    // A tile outlet is the grid's outlet when it is a given outlet or its flow ends (no flow, off the
    // grid, into NoData); otherwise its flow enters the next tile, whose cell there has reached a tile
    // outlet of its own. Each tile outlet's final outlet, remembered (the chains form a forest: the
    // directions hold no cycle).
    std::unordered_map<std::size_t, std::size_t> final;
    std::vector<std::size_t> chain;
    auto finalOf = [&](std::size_t o) {
        chain.clear();
        std::size_t at = o, result;
        for (;;) {
            if (auto it = final.find(at); it != final.end()) {
                result = it->second;
                break;
            }
            chain.push_back(at);
            const long next = downstreamOf(g, at);
            if (given[at] || next < 0) {
                result = at;
                break;
            }
            at = std::size_t(reach[std::size_t(next)]);
        }
        for (std::size_t c : chain) final.emplace(c, result);
        return result;
    };
    for (std::size_t i = 0; i < reach.size(); ++i)
        if (reach[i] == long(i)) finalOf(i);
    // Neighbouring cells mostly share their tile outlet: the last one looked up is kept.
    long lastOutlet = -1, lastFinal = -1;
    for (auto& r : reach) {
        if (r < 0) continue;
        if (r != lastOutlet) lastOutlet = r, lastFinal = long(final.at(std::size_t(r)));
        r = lastFinal;
    }
    return numberBasins(g, reach, given, outlets);
}

std::vector<int> strahlerOrderTiled(Context& ctx, const DirectionGrid& g, const std::vector<std::uint8_t>& stream,
                                    const std::vector<Tile>& tiles) {
    if (const long c = cycleCell(g); c >= 0) throw Error(cycleSentence(g, std::size_t(c)));
    const io::RasterFrame& f = g.frame;
    const std::size_t largest = largestTile(tiles);
    cl::Buffer dir = ctx.buffer(largest, "tile D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer cells = ctx.buffer(largest, "tile stream cells", CL_MEM_READ_ONLY);
    cl::Buffer deps = ctx.buffer(largest * 4, "tile stream contributors");
    cl::Buffer order = ctx.buffer(largest * 4, "tile Strahler order");
    cl::Buffer frontier = ctx.buffer(2 * largest * 4, "tile stream frontiers");
    cl::Buffer state = ctx.buffer(4 * sizeof(cl_int), "tile stream frontier sizes");
    cl::Kernel& count = ctx.kernel("drainage_network.cl", "strahler_dependencies", Precision::Float);
    cl::Kernel& wide = ctx.kernel("drainage_network.cl", "strahler_level", Precision::Float);
    cl::Kernel& narrow = ctx.kernel("drainage_network.cl", "strahler_group", Precision::Float);
    std::vector<int> result(g.dir.size(), 0);
    Progress progress("tiled Strahler order", tiles.size(), "tiles");
    std::uint64_t done = 0;
    for (const Tile& t : tiles) {
        const std::size_t n = std::size_t(t.rows) * std::size_t(t.cols);
        const cl_int rows = t.rows, cols = t.cols;
        const auto d = cutTile(f, t, g.dir);
        const auto s = cutTile(f, t, stream);
        ctx.write(dir, d.data(), n, "tile D8 directions");
        ctx.write(cells, s.data(), n, "tile stream cells");
        ctx.fill(order, 0, n * 4, "clear tile Strahler order");
        ctx.fill(state, 0, 4 * sizeof(cl_int), "clear tile stream frontier sizes");
        setArgs(count, 0, dir, cells, deps, frontier, state, rows, cols);
        ctx.launch(count, cl::NDRange(roundUp(n, kLocal)), cl::NDRange(kLocal));
        setArgs(wide, 0, dir, cells, deps, order, frontier, state, rows, cols);
        setArgs(narrow, 0, dir, cells, deps, order, frontier, state, rows, cols);
        runFrontier(ctx, wide, narrow, 8, state);
        const auto o = ctx.download<int>(order, n, "tile Strahler order");
        for (int y = 0; y < t.rows; ++y)
            std::copy_n(o.begin() + std::ptrdiff_t(y) * t.cols, t.cols, result.begin() + std::ptrdiff_t(std::size_t(t.r0 + y) * f.cols + std::size_t(t.c0)));
        progress.update(++done);
    }
    progress.finish();

    const int tileRows = tiles.front().rows, tileCols = tiles.front().cols;
    auto sameTile = [&](std::size_t a, std::size_t b) {
        const std::size_t ca = std::size_t(f.cols);
        return (a / ca) / std::size_t(tileRows) == (b / ca) / std::size_t(tileRows) &&
               (a % ca) / std::size_t(tileCols) == (b % ca) / std::size_t(tileCols);
    };
    // The stream cell downstream of stream cell i, or -1.
    auto down = [&](std::size_t i) -> long {
        const long d = downstreamOf(g, i);
        return d >= 0 && stream[std::size_t(d)] == 1 ? d : -1;
    };
    // The cells to order again: downstream of every stream crossing into a tile (the entries), to
    // where the stream ends; each with its number of such cells among its stream contributors.
    std::unordered_map<std::size_t, int> pending;
    for (std::size_t i = 0; i < g.dir.size(); ++i) {
        if (stream[i] != 1) continue;
        const long e = down(i);
        if (e < 0 || sameTile(i, std::size_t(e))) continue;
        for (long c = e; c >= 0; c = down(std::size_t(c))) {
            const bool seen = pending.count(std::size_t(c)) > 0;
            pending.emplace(std::size_t(c), 0);
            if (seen) break;
        }
    }
    for (const auto& [c, unused] : pending) {
        (void)unused;
        if (const long d = down(c); d >= 0 && pending.count(std::size_t(d))) ++pending[std::size_t(d)];
    }
    std::deque<std::size_t> ready;
    for (const auto& [c, k] : pending)
        if (k == 0) ready.push_back(c);
    while (!ready.empty()) {
        const std::size_t i = ready.front();
        ready.pop_front();
        result[i] = strahlerFromUpstream(g, stream, result, i);
        if (const long d = down(i); d >= 0)
            if (auto it = pending.find(std::size_t(d)); it != pending.end() && --it->second == 0) ready.push_back(std::size_t(d));
    }
    return result;
}

}  // namespace portacl::drainage::detail

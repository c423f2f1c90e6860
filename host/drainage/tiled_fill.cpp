// Depression filling tile by tile (after Barnes 2016's three stages).
// 1. Each tile alone on the device: filled with its edge cells and its cells next to NoData as
//    outlets (fillOnDevice), then each cell labelled by an outlet of the tile that it reaches through
//    cells whose levels are no higher than its own (fill_label_tile).
// 2. On the host, a graph: a node per label (the labels of the grid's true outlets, its edge cells
//    and the cells next to NoData, are one node, the sea); wherever two cells of different labels
//    touch, inside a tile or across the edge between two, an edge between their labels at the higher
//    of their tile levels, the lowest such edge kept; each label's level is its lowest way to the sea,
//    the lowest over paths of the highest edge (Priority-Flood on the graph).
// 3. Each cell raised to the higher of its tile level and its label's level.
// Why this is the one-piece surface: a cell's lowest way out of the grid leaves its tile at some cell
// whose tile level is no higher than the way's highest cell, and every step of it between two labels
// is an edge of the graph no higher than that; the other way round, every edge of the graph is a way
// between its two labels' outlets no higher than the edge. Levels are taken, compared and kept as the
// DEM's own heights, so the surface is Priority-Flood's bit for bit in float and in double.
#include <algorithm>
#include <limits>
#include <queue>
#include <unordered_map>

#include "drainage_detail.hpp"
#include "portacl/runtime/progress.hpp"
#include "tiles.hpp"

namespace portacl::drainage::detail {
namespace {

constexpr std::size_t kLocal = 64;
constexpr int kLabelLaunchesPerCheck = 4;
constexpr std::uint32_t kSea = 0;

template <typename T>
io::Raster fillTiled(Context& ctx, const io::Raster& dem, const std::vector<Tile>& tiles) {
    const io::RasterFrame& f = dem.frame;
    const std::size_t n = dem.size();
    const Precision p = precisionOf<T>();
    std::size_t largest = 0;
    for (const Tile& t : tiles) largest = std::max(largest, std::size_t(t.rows) * std::size_t(t.cols));
    cl::Buffer heights = ctx.buffer(largest * sizeof(T), "tile heights", CL_MEM_READ_ONLY);
    cl::Buffer mask = ctx.buffer(largest, "tile NoData mask", CL_MEM_READ_ONLY);
    cl::Buffer level = ctx.buffer(largest * sizeof(T), "tile water levels");
    cl::Buffer labels = ctx.buffer(largest * 4, "tile labels");
    cl::Buffer changed = ctx.buffer(sizeof(cl_int), "tile levels changed");
    // The label relaxation's work-groups, as fillOnDevice's: 16 x 16 where the device allows, else 8 x 8.
    const std::size_t side = ctx.device().maxWorkGroupSize >= 256 ? 16 : 8;
    const std::string options = "-D FILL_TILE=" + std::to_string(side);

    auto noData = [&](long r, long c) { return r < 0 || r >= f.rows || c < 0 || c >= f.cols || dem.isNoData(std::size_t(r) * f.cols + c); };
    // Stage 1: every cell's tile level and label (the grid index of its tile outlet).
    std::vector<T> tileLevel(n, T(0));
    std::vector<std::uint32_t> node(n, kSea);  // the label's node in the graph
    std::uint32_t nodes = 1;
    constexpr std::uint32_t kUnset = 0xffffffffu;
    std::vector<std::uint32_t> nodeOfSeed;  // a tile's outlets (its own cells) -> their nodes
    Progress progress("tiled depression filling", tiles.size(), "tiles");
    std::uint64_t done = 0;
    for (const Tile& t : tiles) {
        const std::size_t cells = std::size_t(t.rows) * std::size_t(t.cols);
        const auto z = cutWindow<T>(f, t, 0, T(0), [&](std::size_t i) { return dem.isNoData(i) ? T(0) : T(dem.values[i]); });
        const auto m = cutWindow<std::uint8_t>(f, t, 0, 1, [&](std::size_t i) { return std::uint8_t(dem.isNoData(i)); });
        ctx.write(heights, z.data(), cells * sizeof(T), "tile heights");
        ctx.write(mask, m.data(), cells, "tile NoData mask");
        const io::RasterFrame tf = windowFrame(f, t.rows, t.cols);
        fillOnDevice(ctx, heights, mask, level, changed, tf, p);
        const cl_int rows = t.rows, cols = t.cols;
        cl::Kernel& init = ctx.kernel("drainage.cl", "fill_label_init", p, options);
        setArgs(init, 0, mask, labels, rows, cols);
        ctx.launch(init, cl::NDRange(roundUp(cells, kLocal)), cl::NDRange(kLocal));
        cl::Kernel& relax = ctx.kernel("drainage.cl", "fill_label_tile", p, options);
        setArgs(relax, 0, level, mask, labels, changed, rows, cols);
        const cl::NDRange global(roundUp(std::size_t(cols), side), roundUp(std::size_t(rows), side)), local(side, side);
        for (;;) {
            const cl_int zero = 0;
            ctx.write(changed, &zero, sizeof zero, "clear tile labels changed");
            for (int j = 0; j < kLabelLaunchesPerCheck; ++j) ctx.launch(relax, global, local);
            cl_int any = 0;
            ctx.read(changed, &any, sizeof any, "tile labels changed");
            if (!any) break;
        }
        const auto lv = ctx.download<T>(level, cells, "tile water levels");
        const auto lb = ctx.download<cl_int>(labels, cells, "tile labels");
        nodeOfSeed.assign(cells, kUnset);
        for (int y = 0; y < t.rows; ++y)
            for (int x = 0; x < t.cols; ++x) {
                const std::size_t k = std::size_t(y) * t.cols + x, cell = std::size_t(t.r0 + y) * f.cols + std::size_t(t.c0 + x);
                if (m[k]) continue;
                tileLevel[cell] = lv[k];
                const std::size_t s = std::size_t(lb[k]);
                if (nodeOfSeed[s] == kUnset) {
                    const long sr = t.r0 + long(s) / t.cols, sc = t.c0 + long(s) % t.cols;
                    bool sea = sr == 0 || sc == 0 || sr == f.rows - 1 || sc == f.cols - 1;
                    for (int d = 0; d < 8 && !sea; ++d) sea = noData(sr + kRowOffset[d], sc + kColOffset[d]);
                    if (!sea && nodes == kUnset) throw Error("a tiled DEM with more than 2^32 tile outlets is not offered; give larger tiles");
                    nodeOfSeed[s] = sea ? kSea : nodes++;
                }
                node[cell] = nodeOfSeed[s];
            }
        progress.update(++done);
    }
    progress.finish();

    // Stage 2: the graph's edges (the lowest between each pair of labels), then Priority-Flood on it.
    std::unordered_map<std::uint64_t, T> lowest;
    for (long r = 0; r < f.rows; ++r)
        for (long c = 0; c < f.cols; ++c) {
            const std::size_t i = std::size_t(r) * f.cols + std::size_t(c);
            if (dem.isNoData(i)) continue;
            for (int d : {0, 7, 6, 5}) {  // E, SE, S, SW: each touching pair once
                const long rr = r + kRowOffset[d], cc = c + kColOffset[d];
                if (noData(rr, cc)) continue;
                const std::size_t j = std::size_t(rr) * f.cols + std::size_t(cc);
                const std::uint32_t a = node[i], b = node[j];
                if (a == b) continue;
                const std::uint64_t key = (std::uint64_t(std::min(a, b)) << 32) | std::max(a, b);
                const T w = std::max(tileLevel[i], tileLevel[j]);
                auto [it, added] = lowest.emplace(key, w);
                if (!added && w < it->second) it->second = w;
            }
        }
    std::vector<std::vector<std::pair<std::uint32_t, T>>> adjacent(nodes);
    for (const auto& [key, w] : lowest) {
        const auto a = std::uint32_t(key >> 32), b = std::uint32_t(key & 0xffffffffu);
        adjacent[a].push_back({b, w});
        adjacent[b].push_back({a, w});
    }
    std::vector<T> graphLevel(nodes, std::numeric_limits<T>::infinity());
    graphLevel[kSea] = -std::numeric_limits<T>::infinity();
    using Entry = std::pair<T, std::uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
    open.push({graphLevel[kSea], kSea});
    while (!open.empty()) {
        const auto [w, a] = open.top();
        open.pop();
        if (w > graphLevel[a]) continue;
        for (const auto& [b, e] : adjacent[a]) {
            const T through = std::max(w, e);
            if (through < graphLevel[b]) graphLevel[b] = through, open.push({through, b});
        }
    }

    // Stage 3: every cell at the higher of its tile level and its label's.
    io::Raster out = dem;
    for (std::size_t i = 0; i < n; ++i)
        if (!dem.isNoData(i)) out.values[i] = double(std::max(tileLevel[i], graphLevel[node[i]]));
    return out;
}

}  // namespace

io::Raster fillDepressionsTiled(Context& ctx, const io::Raster& dem, Precision precision, const std::vector<Tile>& tiles) {
    return inPrecision(ctx, precision, "depression filling runs", [&](auto t) { return fillTiled<decltype(t)>(ctx, dem, tiles); });
}

}  // namespace portacl::drainage::detail

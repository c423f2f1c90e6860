// The stream network on the device (cl/drainage_network.cl): Strahler order by dependency counting
// along the stream cells, level by level (frontier.cpp), watersheds by pointer jumping; in tiles
// (tiled_network.cpp) when tiling is forced or the grid does not fit the device.
#include <climits>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"
#include "tiles.hpp"

namespace portacl::drainage {
namespace {

constexpr std::size_t kLocal = 64;

}  // namespace

std::vector<int> strahlerOrder(Context& ctx, const DirectionGrid& g, const std::vector<std::uint8_t>& stream, const Tiling& tiling) {
    detail::checkGrid(g);
    detail::checkStreams(g, stream);
    const auto tiles = detail::planTiles(ctx, g.frame, tiling, {18, 18, 8, 0}, "Strahler order of a " + detail::shapeText(g.frame) + " grid");
    if (!tiles.empty()) return detail::strahlerOrderTiled(ctx, g, stream, tiles);
    if (const long c = detail::cycleCell(g); c >= 0) throw Error(detail::cycleSentence(g, std::size_t(c)));
    const std::size_t n = g.dir.size();
    ctx.checkFits(n * (1 + 1 + 4 + 4 + 8), "Strahler order of a " + std::to_string(g.frame.rows) + "x" + std::to_string(g.frame.cols) + " grid");
    const cl_int rows = g.frame.rows, cols = g.frame.cols;
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    cl::Buffer dir = ctx.upload(g.dir, "D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer cells = ctx.upload(stream, "stream cells", CL_MEM_READ_ONLY);
    cl::Buffer deps = ctx.buffer(n * 4, "stream contributors");
    cl::Buffer order = ctx.buffer(n * 4, "Strahler order");
    cl::Buffer frontier = ctx.buffer(2 * n * 4, "stream frontiers");
    cl::Buffer state = ctx.buffer(4 * sizeof(cl_int), "stream frontier sizes");
    ctx.fill(order, 0, n * 4, "clear Strahler order");
    ctx.fill(state, 0, 4 * sizeof(cl_int), "clear stream frontier sizes");
    cl::Kernel& count = ctx.kernel("drainage_network.cl", "strahler_dependencies", Precision::Float);
    setArgs(count, 0, dir, cells, deps, frontier, state, rows, cols);
    ctx.launch(count, global, local);
    cl::Kernel& wide = ctx.kernel("drainage_network.cl", "strahler_level", Precision::Float);
    cl::Kernel& narrow = ctx.kernel("drainage_network.cl", "strahler_group", Precision::Float);
    setArgs(wide, 0, dir, cells, deps, order, frontier, state, rows, cols);
    setArgs(narrow, 0, dir, cells, deps, order, frontier, state, rows, cols);
    detail::runFrontier(ctx, wide, narrow, 8, state);
    return ctx.download<int>(order, n, "Strahler order");
}

std::vector<std::int32_t> watersheds(Context& ctx, const DirectionGrid& g, const std::vector<std::size_t>& outlets,
                                     const Tiling& tiling) {
    detail::checkGrid(g);
    const auto tiles = detail::planTiles(ctx, g.frame, tiling, {10, 10, 4, 0}, "watersheds of a " + detail::shapeText(g.frame) + " grid");
    if (!tiles.empty()) return detail::watershedsTiled(ctx, g, outlets, tiles);
    const std::vector<std::uint8_t> given = detail::outletMask(g, outlets);
    if (const long c = detail::cycleCell(g); c >= 0) throw Error(detail::cycleSentence(g, std::size_t(c)));
    const std::size_t n = g.dir.size();
    ctx.checkFits(n * (1 + 1 + 4 + 4), "watersheds of a " + std::to_string(g.frame.rows) + "x" + std::to_string(g.frame.cols) + " grid");
    const cl_int rows = g.frame.rows, cols = g.frame.cols;
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    cl::Buffer dir = ctx.upload(g.dir, "D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer mask = ctx.upload(given, "outlets", CL_MEM_READ_ONLY);
    cl::Buffer to[2] = {ctx.buffer(n * 4, "pointers"), ctx.buffer(n * 4, "pointers doubled")};
    cl::Buffer changed = ctx.buffer(sizeof(cl_int), "pointers changed");
    cl::Kernel& init = ctx.kernel("drainage_network.cl", "watershed_init", Precision::Float);
    setArgs(init, 0, dir, mask, to[0], rows, cols);
    ctx.launch(init, global, local);
    cl::Kernel& jump = ctx.kernel("drainage_network.cl", "watershed_jump", Precision::Float);
    int cur = 0;
    for (;;) {
        const cl_int zero = 0;
        ctx.write(changed, &zero, sizeof zero, "clear pointers changed");
        setArgs(jump, 0, to[cur], to[cur ^ 1], changed, cl_int(n));
        ctx.launch(jump, global, local);
        cur ^= 1;
        cl_int any = 0;
        ctx.read(changed, &any, sizeof any, "pointers changed");
        if (!any) break;
    }
    const auto end = ctx.download<cl_int>(to[cur], n, "outlets reached");
    std::vector<long> reach(end.begin(), end.end());
    return detail::numberBasins(g, reach, given, outlets);
}

namespace detail {

void checkStreams(const DirectionGrid& g, const std::vector<std::uint8_t>& stream) {
    if (stream.size() != g.dir.size())
        throw Error("the stream grid has " + std::to_string(stream.size()) + " cells, the direction grid " + std::to_string(g.dir.size()));
}

std::vector<std::uint8_t> outletMask(const DirectionGrid& g, const std::vector<std::size_t>& outlets) {
    std::vector<std::uint8_t> given(g.dir.size(), 0);
    for (std::size_t j = 0; j < outlets.size(); ++j) {
        if (outlets[j] >= g.dir.size())
            throw Error("outlet " + std::to_string(j + 1) + " (cell " + std::to_string(outlets[j]) + ") lies outside the " +
                        std::to_string(g.frame.rows) + "x" + std::to_string(g.frame.cols) + " grid");
        if (g.dir[outlets[j]] == kNoData)
            throw Error("outlet " + std::to_string(j + 1) + " (row " + std::to_string(outlets[j] / std::size_t(g.frame.cols)) +
                        ", column " + std::to_string(outlets[j] % std::size_t(g.frame.cols)) + ") is a NoData cell");
        given[outlets[j]] = 1;
    }
    return given;
}

std::vector<std::int32_t> numberBasins(const DirectionGrid& g, const std::vector<long>& reach, const std::vector<std::uint8_t>& given,
                                       const std::vector<std::size_t>& outlets) {
    const std::size_t n = g.dir.size();
    std::vector<std::int32_t> id(n, 0), label(n, -1);
    if (outlets.empty()) {
        std::int32_t next = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (g.dir[i] != kNoData && reach[i] == long(i)) id[i] = ++next;
    } else {
        for (std::size_t j = outlets.size(); j-- > 0;) id[outlets[j]] = std::int32_t(j + 1);  // the first mention wins
    }
    for (std::size_t i = 0; i < n; ++i)
        if (g.dir[i] != kNoData) label[i] = outlets.empty() || given[std::size_t(reach[i])] ? id[std::size_t(reach[i])] : 0;
    return label;
}

}  // namespace detail
}  // namespace portacl::drainage

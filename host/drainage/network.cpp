// The stream network on the device (cl/drainage_network.cl): Strahler order by dependency counting
// along the stream cells, level by level (frontier.cpp), watersheds by pointer jumping; in tiles
// (tiled_network.cpp) when tiling is forced or the grid does not fit the device.
#include <array>
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
    cl::Buffer dir = ctx.upload(g.dir, "D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer cells = ctx.upload(stream, "stream cells", CL_MEM_READ_ONLY);
    cl::Buffer order = ctx.buffer(n * 4, "Strahler order");
    detail::strahlerOnDevice(ctx, dir, cells, order, g.frame);
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
    cl::Buffer dir = ctx.upload(g.dir, "D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer mask = ctx.upload(given, "outlets", CL_MEM_READ_ONLY);
    const auto end = ctx.download<cl_int>(detail::watershedReachOnDevice(ctx, dir, mask, g.frame), n, "outlets reached");
    return detail::numberBasins(n, detail::NoDataCells(g), end, given, outlets);
}

namespace detail {

void strahlerOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& cells, const cl::Buffer& order, const io::RasterFrame& frame) {
    const std::size_t n = frame.size();
    const cl_int rows = frame.rows, cols = frame.cols;
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    cl::Buffer deps = ctx.buffer(n * 4, "stream contributors");
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
}

cl::Buffer watershedReachOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& outlets, const io::RasterFrame& frame) {
    const std::size_t n = frame.size();
    const cl_int rows = frame.rows, cols = frame.cols;
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    cl::Buffer to[2] = {ctx.buffer(n * 4, "pointers"), ctx.buffer(n * 4, "pointers doubled")};
    cl::Buffer changed = ctx.buffer(kJumpsPerRead * sizeof(cl_int), "pointers changed");
    cl::Kernel& init = ctx.kernel("drainage_network.cl", "watershed_init", Precision::Float);
    setArgs(init, 0, dir, outlets, to[0], rows, cols);
    ctx.launch(init, global, local);
    return to[doublePointers(ctx, to, changed, n)];
}

int doublePointers(Context& ctx, const cl::Buffer (&to)[2], const cl::Buffer& changed, std::size_t n) {
    cl::Kernel& jump = ctx.kernel("drainage_network.cl", "watershed_jump", Precision::Float);
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    std::array<cl_int, kJumpsPerRead> moved{};
    int cur = 0;
    for (;;) {
        ctx.fill(changed, 0, sizeof moved, "clear pointers changed");
        for (int k = 0; k < kJumpsPerRead; ++k, cur ^= 1) {
            setArgs(jump, 0, to[cur], to[cur ^ 1], changed, cl_int(k), cl_int(n));
            ctx.launch(jump, global, local);
        }
        ctx.read(changed, moved.data(), sizeof moved, "pointers changed");
        if (!moved.back()) return cur;  // the last jump moved nothing: every pointer has settled
    }
}

void checkStreams(const DirectionGrid& g, const std::vector<std::uint8_t>& stream) {
    if (stream.size() != g.dir.size())
        throw Error("the stream grid has " + std::to_string(stream.size()) + " cells, the direction grid " + std::to_string(g.dir.size()));
}

std::vector<std::uint8_t> outletMask(const DirectionGrid& g, const std::vector<std::size_t>& outlets) {
    return outletMask(g.frame, NoDataCells(g), outlets);
}

std::vector<std::uint8_t> outletMask(const io::RasterFrame& frame, NoDataCells noData, const std::vector<std::size_t>& outlets) {
    const std::size_t n = frame.size();
    std::vector<std::uint8_t> given(n, 0);
    for (std::size_t j = 0; j < outlets.size(); ++j) {
        if (outlets[j] >= n)
            throw Error("outlet " + std::to_string(j + 1) + " (cell " + std::to_string(outlets[j]) + ") lies outside the " +
                        std::to_string(frame.rows) + "x" + std::to_string(frame.cols) + " grid");
        if (noData(outlets[j]))
            throw Error("outlet " + std::to_string(j + 1) + " (row " + std::to_string(outlets[j] / std::size_t(frame.cols)) +
                        ", column " + std::to_string(outlets[j] % std::size_t(frame.cols)) + ") is a NoData cell");
        given[outlets[j]] = 1;
    }
    return given;
}

std::vector<std::int32_t> numberBasins(const DirectionGrid& g, const std::vector<long>& reach, const std::vector<std::uint8_t>& given,
                                       const std::vector<std::size_t>& outlets) {
    return numberBasins(g.dir.size(), NoDataCells(g), reach, given, outlets);
}

}  // namespace detail
}  // namespace portacl::drainage

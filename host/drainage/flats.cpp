// Flat resolution on the device (cl/drainage_flats.cl): the edges, the labels and the two distances
// relax until a launch changes nothing (the flag is read after every few launches), each launch
// reading one buffer of the pair and writing the other; then each flat's height and the directions
// take one launch each.
#include <array>
#include <vector>

#include "drainage_detail.hpp"
#include "tiles.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::drainage {
namespace {

constexpr std::size_t kLocal = 64;
constexpr int kLaunchesPerCheck = 8;
static_assert(kLaunchesPerCheck % 2 == 0, "the values must end in the buffers they started in");

// A relaxation's buffers: launch j reads pairs[b][j % 2] and writes pairs[b][(j + 1) % 2] (set from argument
// `first` on, a pair of buffers per value relaxed).
struct PingPong {
    cl_uint first;
    std::vector<std::array<const cl::Buffer*, 2>> pairs;
};

// Launches `k` (its other arguments set) until it leaves `changed` at 0.
void relax(Context& ctx, cl::Kernel& k, const PingPong& buffers, const cl::Buffer& changed, std::size_t cells, Progress& progress,
           std::uint64_t& launches) {
    for (;;) {
        const cl_int zero = 0;
        ctx.write(changed, &zero, sizeof zero, "clear flats changed");
        for (int j = 0; j < kLaunchesPerCheck; ++j) {
            const std::size_t count = buffers.pairs.size();
            for (std::size_t b = 0; b < count; ++b) {
                setArgs(k, buffers.first + cl_uint(b), *buffers.pairs[b][j % 2]);
                setArgs(k, buffers.first + cl_uint(count + b), *buffers.pairs[b][(j + 1) % 2]);
            }
            ctx.launch(k, cl::NDRange(roundUp(cells, kLocal)), cl::NDRange(kLocal));
        }
        launches += kLaunchesPerCheck;
        cl_int any = 0;
        ctx.read(changed, &any, sizeof any, "flats changed");
        progress.update(launches);
        if (!any) return;
    }
}

template <typename T>
DirectionGrid resolveOn(Context& ctx, const io::Raster& dem, const DirectionGrid& d8) {
    const std::size_t n = dem.size();
    ctx.checkFits(n * detail::flatBytesPerCell(precisionOf<T>()), "flat resolution of a " + detail::shapeText(dem.frame) + " DEM");
    cl::Buffer heights = ctx.upload(detail::heightsOf<T>(dem), "DEM heights", CL_MEM_READ_ONLY);
    cl::Buffer dir = ctx.upload(d8.dir, "D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer out = ctx.buffer(n, "resolved directions");
    detail::resolveFlatsOnDevice(ctx, heights, dir, out, dem.frame, precisionOf<T>());
    DirectionGrid g = d8;
    g.dir = ctx.download<std::uint8_t>(out, n, "resolved directions");
    return g;
}

}  // namespace

DirectionGrid resolveFlats(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision, const Tiling& tiling) {
    validateDem(dem);
    detail::checkGrid(d8);
    if (d8.frame.rows != dem.rows() || d8.frame.cols != dem.cols())
        throw Error("the direction grid does not have the DEM's shape");
    const auto tiles = detail::planTiles(ctx, dem.frame, tiling, {detail::flatBytesPerCell(precision), detail::flatBytesPerCell(precision), 4, 0},
                                         "flat resolution of a " + detail::shapeText(dem.frame) + " DEM");
    if (!tiles.empty()) return detail::resolveFlatsTiled(ctx, dem, d8, precision, tiles);
    return detail::resolveFlatsWindow(ctx, dem, d8, precision);
}

namespace detail {

void resolveFlatsOnDevice(Context& ctx, const cl::Buffer& heights, const cl::Buffer& dir, const cl::Buffer& out,
                          const io::RasterFrame& frame, Precision p) {
    const std::size_t n = frame.size();
    const cl_int rows = frame.rows, cols = frame.cols;
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    cl::Buffer kind = ctx.buffer(n, "flat cell kinds");
    cl::Buffer comp = ctx.buffer(n * 4, "flat labels");
    cl::Buffer outlet = ctx.buffer(n, "flats with an outlet");
    cl::Buffer towards = ctx.buffer(n * 4, "steps from lower terrain");
    cl::Buffer away = ctx.buffer(n * 4, "steps from higher terrain");
    // The other buffer of each relaxed pair.
    cl::Buffer compNext = ctx.buffer(n * 4, "flat labels (the other of the pair)");
    cl::Buffer towardsNext = ctx.buffer(n * 4, "steps from lower terrain (the other of the pair)");
    cl::Buffer awayNext = ctx.buffer(n * 4, "steps from higher terrain (the other of the pair)");
    cl::Buffer height = ctx.buffer(n * 4, "flat heights");
    cl::Buffer changed = ctx.buffer(sizeof(cl_int), "flats changed");
    ctx.fill(outlet, 0, n, "clear flat outlets");
    ctx.fill(height, 0, n * 4, "clear flat heights");
    Progress progress("flat resolution", 0, "launches");
    std::uint64_t launches = 0;

    cl::Kernel& edges = ctx.kernel("drainage_flats.cl", "flat_edges", p);
    setArgs(edges, 0, heights, dir, kind, comp, compNext, rows, cols);
    ctx.launch(edges, global, local);
    cl::Kernel& label = ctx.kernel("drainage_flats.cl", "flat_label_step", p);
    setArgs(label, 0, heights, dir);
    setArgs(label, 4, changed, rows, cols);
    relax(ctx, label, PingPong{2, {{&comp, &compNext}}}, changed, n, progress, launches);
    cl::Kernel& seeds = ctx.kernel("drainage_flats.cl", "flat_seeds", p);
    setArgs(seeds, 0, kind, comp, outlet, rows, cols);
    ctx.launch(seeds, global, local);
    cl::Kernel& init = ctx.kernel("drainage_flats.cl", "flat_distance_init", p);
    setArgs(init, 0, kind, comp, outlet, towards, away, towardsNext, awayNext, rows, cols);
    ctx.launch(init, global, local);
    cl::Kernel& step = ctx.kernel("drainage_flats.cl", "flat_distance_step", p);
    setArgs(step, 0, dir, kind, comp, outlet);
    setArgs(step, 8, changed, rows, cols);
    relax(ctx, step, PingPong{4, {{&towards, &towardsNext}, {&away, &awayNext}}}, changed, n, progress, launches);
    cl::Kernel& tallest = ctx.kernel("drainage_flats.cl", "flat_height", p);
    setArgs(tallest, 0, kind, comp, away, height, rows, cols);
    ctx.launch(tallest, global, local);
    cl::Kernel& directions = ctx.kernel("drainage_flats.cl", "flat_directions", p);
    setArgs(directions, 0, kind, comp, outlet, towards, away, height, dir, out, rows, cols);
    ctx.launch(directions, global, local);
    progress.finish();
}

std::size_t flatBytesPerCell(Precision p) { return realBytes(p) + 2 + 1 + 7 * 4 + 1; }

DirectionGrid resolveFlatsWindow(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision) {
    return inPrecision(ctx, precision, "flat resolution runs", [&](auto t) { return resolveOn<decltype(t)>(ctx, dem, d8); });
}

}  // namespace detail
}  // namespace portacl::drainage

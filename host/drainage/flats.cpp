// Flat resolution on the device (cl/drainage_flats.cl): the edges, the labels and the two distances
// relax until a launch changes nothing (the flag is read after every few launches), then each flat's
// height and the directions take one launch each.
#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::drainage {
namespace {

constexpr std::size_t kLocal = 64;
constexpr int kLaunchesPerCheck = 8;

// Launches `k` (its arguments set) until it leaves `changed` at 0.
void relax(Context& ctx, cl::Kernel& k, const cl::Buffer& changed, std::size_t cells, Progress& progress, std::uint64_t& launches) {
    for (;;) {
        const cl_int zero = 0;
        ctx.write(changed, &zero, sizeof zero, "clear flats changed");
        for (int j = 0; j < kLaunchesPerCheck; ++j) ctx.launch(k, cl::NDRange(roundUp(cells, kLocal)), cl::NDRange(kLocal));
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
    ctx.checkFits(n * (sizeof(T) + 2 + 1 + 4 * 4 + 1), "flat resolution of a " + std::to_string(dem.rows()) + "x" +
                                                           std::to_string(dem.cols()) + " DEM");
    std::vector<T> z(n);
    for (std::size_t i = 0; i < n; ++i) z[i] = dem.isNoData(i) ? T(0) : T(dem.values[i]);
    const Precision p = precisionOf<T>();
    const cl_int rows = dem.rows(), cols = dem.cols();
    const cl::NDRange global(roundUp(n, kLocal)), local(kLocal);
    cl::Buffer heights = ctx.upload(z, "DEM heights", CL_MEM_READ_ONLY);
    cl::Buffer dir = ctx.upload(d8.dir, "D8 directions", CL_MEM_READ_ONLY);
    cl::Buffer kind = ctx.buffer(n, "flat cell kinds");
    cl::Buffer comp = ctx.buffer(n * 4, "flat labels");
    cl::Buffer outlet = ctx.buffer(n, "flats with an outlet");
    cl::Buffer towards = ctx.buffer(n * 4, "steps from lower terrain");
    cl::Buffer away = ctx.buffer(n * 4, "steps from higher terrain");
    cl::Buffer height = ctx.buffer(n * 4, "flat heights");
    cl::Buffer out = ctx.buffer(n, "resolved directions");
    cl::Buffer changed = ctx.buffer(sizeof(cl_int), "flats changed");
    ctx.fill(outlet, 0, n, "clear flat outlets");
    ctx.fill(height, 0, n * 4, "clear flat heights");
    Progress progress("flat resolution", 0, "launches");
    std::uint64_t launches = 0;

    cl::Kernel& edges = ctx.kernel("drainage_flats.cl", "flat_edges", p);
    setArgs(edges, 0, heights, dir, kind, comp, rows, cols);
    ctx.launch(edges, global, local);
    cl::Kernel& label = ctx.kernel("drainage_flats.cl", "flat_label_step", p);
    setArgs(label, 0, heights, dir, comp, changed, rows, cols);
    relax(ctx, label, changed, n, progress, launches);
    cl::Kernel& seeds = ctx.kernel("drainage_flats.cl", "flat_seeds", p);
    setArgs(seeds, 0, kind, comp, outlet, rows, cols);
    ctx.launch(seeds, global, local);
    cl::Kernel& init = ctx.kernel("drainage_flats.cl", "flat_distance_init", p);
    setArgs(init, 0, kind, comp, outlet, towards, away, rows, cols);
    ctx.launch(init, global, local);
    cl::Kernel& step = ctx.kernel("drainage_flats.cl", "flat_distance_step", p);
    setArgs(step, 0, dir, kind, comp, outlet, towards, away, changed, rows, cols);
    relax(ctx, step, changed, n, progress, launches);
    cl::Kernel& tallest = ctx.kernel("drainage_flats.cl", "flat_height", p);
    setArgs(tallest, 0, kind, comp, away, height, rows, cols);
    ctx.launch(tallest, global, local);
    cl::Kernel& directions = ctx.kernel("drainage_flats.cl", "flat_directions", p);
    setArgs(directions, 0, kind, comp, outlet, towards, away, height, dir, out, rows, cols);
    ctx.launch(directions, global, local);
    progress.finish();
    DirectionGrid g = d8;
    g.dir = ctx.download<std::uint8_t>(out, n, "resolved directions");
    return g;
}

}  // namespace

DirectionGrid resolveFlats(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision) {
    validateDem(dem);
    detail::checkGrid(d8);
    if (d8.frame.rows != dem.rows() || d8.frame.cols != dem.cols())
        throw Error("the direction grid does not have the DEM's shape");
    if (precision == Precision::Float) return resolveOn<float>(ctx, dem, d8);
    if (precision == Precision::Double) {
        ctx.requirePrecision(Precision::Double);
        return resolveOn<double>(ctx, dem, d8);
    }
    throw Error("flat resolution runs in float or double, not mixed precision");
}

}  // namespace portacl::drainage

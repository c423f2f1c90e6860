// The uniform-grid broad phase over a mesh's triangles (cl/mesh_grid.cl): the cell size, the counting
// sort of the triangles into the cells their boxes touch, on the device.
#include <algorithm>
#include <cmath>
#include <limits>

#include "mesh_detail.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl::mesh::detail {

namespace {

constexpr const char* kGridSource = "mesh_grid.cl";
constexpr std::size_t kScanItems = 8;  // MESH_SCAN_ITEMS

}  // namespace

GridShape gridShape(const TriangleMesh& m, const std::vector<std::uint8_t>& degenerate) {
    GridShape g;
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = std::numeric_limits<double>::max(), hi[k] = -std::numeric_limits<double>::max();
    for (std::size_t v = 0; v < m.vertexCount(); ++v)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(m.points[3 * v + std::size_t(k)])), hi[k] = std::max(hi[k], double(m.points[3 * v + std::size_t(k)]));
    // The cell: the mean over the triangles of the largest side of each one's box.
    double sum = 0;
    std::size_t counted = 0;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        if (degenerate[t]) continue;
        double side = 0;
        for (int k = 0; k < 3; ++k) {
            float a = m.points[3 * std::size_t(m.triangles[3 * t]) + std::size_t(k)], b = a;
            for (int i = 1; i < 3; ++i) {
                const float c = m.points[3 * std::size_t(m.triangles[3 * t + std::size_t(i)]) + std::size_t(k)];
                a = std::min(a, c), b = std::max(b, c);
            }
            side = std::max(side, double(b) - double(a));
        }
        sum += side, ++counted;
    }
    double scene = 0;
    for (int k = 0; k < 3; ++k) scene = std::max(scene, hi[k] - lo[k]);
    double cell = counted && sum > 0 ? sum / double(counted) : std::max(scene, 1.0);
    // At most kCellsPerTriangle cells per triangle (and a few thousand for small meshes): a scene
    // much larger than its triangles (copies far apart) gets larger cells.
    const double cap = std::max(4096.0, double(kCellsPerTriangle) * double(m.triangleCount()));
    for (int attempt = 0;; ++attempt) {
        double cells = 1;
        for (int k = 0; k < 3; ++k) cells *= std::floor((hi[k] - lo[k]) / cell) + 1;
        if (cells <= cap) {
            for (int k = 0; k < 3; ++k) g.dims[k] = std::uint32_t(std::floor((hi[k] - lo[k]) / cell)) + 1;
            break;
        }
        if (attempt > 60) throw Error("the mesh's grid would not fit in " + std::to_string(std::size_t(cap)) + " cells; this is a bug, please report it");
        cell *= std::cbrt(cells / cap) * 1.01;
    }
    g.cells = std::size_t(g.dims[0]) * g.dims[1] * g.dims[2];
    for (int k = 0; k < 3; ++k) g.lo[k] = float(lo[k]);
    g.inverseCell = float(1.0 / cell);
    // At most this many (triangle, cell) entries: each box's cells per axis, one more for rounding.
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        if (degenerate[t]) continue;
        double cellsOfBox = 1;
        for (int k = 0; k < 3; ++k) {
            float a = m.points[3 * std::size_t(m.triangles[3 * t]) + std::size_t(k)], b = a;
            for (int i = 1; i < 3; ++i) {
                const float c = m.points[3 * std::size_t(m.triangles[3 * t + std::size_t(i)]) + std::size_t(k)];
                a = std::min(a, c), b = std::max(b, c);
            }
            cellsOfBox *= std::min(std::floor((double(b) - double(a)) / cell) + 2, double(g.dims[k]));
        }
        g.entryBound += cellsOfBox;
    }
    return g;
}

Grid buildGrid(Context& ctx, const TriangleMesh& m, const std::vector<std::uint8_t>& degenerate, const DeviceMesh& d,
               std::vector<cl::Event>& events) {
    const std::size_t n = m.triangleCount();
    Grid g;
    g.shape = gridShape(m, degenerate);
    // Entries are counted and indexed in 32 bits (a mesh of large triangles over small ones could
    // need more: each large one is binned into every cell it covers).
    if (g.shape.entryBound >= 4294967295.0)
        throw Error("the uniform grid would bin the mesh's " + std::to_string(n) + " triangles into up to " +
                    std::to_string(std::uint64_t(g.shape.entryBound)) + " cells, more than its 32-bit counts hold; use --method hierarchy");
    const std::size_t cells = g.shape.cells;
    const cl_float4 sceneLo{{g.shape.lo[0], g.shape.lo[1], g.shape.lo[2], 0}};
    const cl_float4 inverse{{g.shape.inverseCell, g.shape.inverseCell, g.shape.inverseCell, 0}};
    g.dims = cl_uint4{{g.shape.dims[0], g.shape.dims[1], g.shape.dims[2], 1}};
    const std::size_t ls = std::min<std::size_t>(64, ctx.device().maxWorkGroupSize);
    std::size_t scanLs = std::min<std::size_t>(256, ctx.device().maxWorkGroupSize);
    while (scanLs & (scanLs - 1)) scanLs &= scanLs - 1;
    const std::size_t tiles = (cells + scanLs * kScanItems - 1) / (scanLs * kScanItems);

    cl::Buffer counts = ctx.buffer(cells * sizeof(cl_uint), "mesh grid counts per cell (then cursors)");
    cl::Buffer tileSums = ctx.buffer(tiles * sizeof(cl_uint), "mesh grid scan tile sums");
    g.starts = ctx.buffer((cells + 1) * sizeof(cl_uint), "mesh grid cell starts");
    g.cellLo = ctx.buffer(n * sizeof(cl_uint4), "mesh grid triangle cells (low)");
    cl::Buffer cellHi = ctx.buffer(n * sizeof(cl_uint4), "mesh grid triangle cells (high)");

    events.push_back(ctx.fill(counts, 0, cells * sizeof(cl_uint), "clear mesh grid counts"));
    cl::Kernel& count = meshKernel(ctx, kGridSource, "mesh_grid_count", Precision::Float);
    setArgs(count, 0, cl_uint(n), d.points, d.tris, d.degen, sceneLo, inverse, g.dims, d.boxLo, d.boxHi, g.cellLo, cellHi, counts);
    events.push_back(ctx.launch(count, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));

    cl::Kernel& scanTiles = meshKernel(ctx, kGridSource, "mesh_grid_scan_tiles", Precision::Float);
    setArgs(scanTiles, 0, counts, cl_uint(cells), tileSums, cl::Local(scanLs * sizeof(cl_uint)));
    events.push_back(ctx.launch(scanTiles, cl::NDRange(tiles * scanLs), cl::NDRange(scanLs)));
    cl::Kernel& scanSums = meshKernel(ctx, kGridSource, "mesh_grid_scan_sums", Precision::Float);
    setArgs(scanSums, 0, tileSums, cl_uint(tiles), g.starts, cl_uint(cells), cl::Local(scanLs * sizeof(cl_uint)));
    events.push_back(ctx.launch(scanSums, cl::NDRange(scanLs), cl::NDRange(scanLs)));
    cl::Kernel& apply = meshKernel(ctx, kGridSource, "mesh_grid_scan_apply", Precision::Float);
    setArgs(apply, 0, counts, cl_uint(cells), tileSums, g.starts, cl::Local(scanLs * sizeof(cl_uint)));
    events.push_back(ctx.launch(apply, cl::NDRange(tiles * scanLs), cl::NDRange(scanLs)));

    cl_uint total = 0;
    events.push_back(ctx.read(g.starts, &total, sizeof(total), "mesh grid entry count", cells * sizeof(cl_uint)));
    g.entryCount = total;
    if (total == 0) return g;  // every triangle degenerate
    g.entries = ctx.buffer(std::size_t(total) * sizeof(cl_uint2), "mesh grid entries (" + std::to_string(total) + " triangle-cell pairs)");
    cl::Kernel& fill = meshKernel(ctx, kGridSource, "mesh_grid_fill", Precision::Float);
    setArgs(fill, 0, cl_uint(n), g.cellLo, cellHi, g.dims, counts, g.entries);
    events.push_back(ctx.launch(fill, cl::NDRange(roundUp(n, ls)), cl::NDRange(ls)));
    return g;
}

}  // namespace portacl::mesh::detail

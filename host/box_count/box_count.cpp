// Box counting on the device (cl/box_count.cl): the pyramid of box codes for sides 2^k, each level
// made of the one below in one launch, its shifted placements in seven more; other sides scanned one
// work-item per box when they have many boxes, else reduced along x, then y, then z, in runs of the side. Every count lands in its own word of one counter buffer, read once at the end.
#include <algorithm>
#include <limits>

#include "box_count_detail.hpp"
#include "portacl/box_count.hpp"
#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::boxcount {
namespace {

int up(int n, int d) { return (n + d - 1) / d; }

}  // namespace

Result boxCount(Context& ctx, const io::BinaryVolume& v, const Options& opt) {
    validate(v, opt);
    ctx.checkFits(v.size(), "box counting of a " + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nx) + " volume");
    cl::Buffer mask = ctx.upload(v.mask, "box count mask", CL_MEM_READ_ONLY);
    return boxCount(ctx, mask, v.nz, v.ny, v.nx, opt);
}

Result boxCount(Context& ctx, const cl::Buffer& mask, int nz, int ny, int nx, const Options& opt) {
    return detail::boxCountOnDevice(ctx, mask, nz, ny, nx, opt, detail::directScanMinBoxes(ctx.device()));
}

namespace detail {

// A CPU runs a work-group's work-items in a loop and stops each box early: scanning per box was
// faster there for every side (PoCL, 512^3, porespy's sides: 3.1 s against 9.5 s by runs).
std::size_t directScanMinBoxes(const DeviceInfo& device) {
    return device.isGpu ? std::size_t(std::max(1u, device.computeUnits)) * 256 : 0;
}

Result boxCountOnDevice(Context& ctx, const cl::Buffer& mask, int nz, int ny, int nx, const Options& opt, std::size_t directMinBoxes) {
    io::BinaryVolume v;  // the shape alone
    v.nz = nz, v.ny = ny, v.nx = nx;
    detail::checkShapeAndOptions(nz, ny, nx, opt);
    requireBytes(mask, v.size(), "one byte per voxel of a " + std::to_string(nz) + "x" + std::to_string(ny) + "x" + std::to_string(nx) + " volume",
                 "the mask of boxCount");
    Result r;
    r.sizes = opt.sizes.empty() ? defaultSizes(v) : opt.sizes;
    const int placements = opt.offsetAverage ? 8 : 1;
    const int mixed = opt.count == Count::Mixed ? 1 : 0;
    int levels = 0;  // pyramid levels needed: the largest power-of-two side requested
    for (int s : r.sizes)
        if (detail::isPowerOfTwo(s)) levels = std::max(levels, __builtin_ctz(unsigned(s)));

    std::size_t ls = std::min<std::size_t>(256, ctx.device().maxWorkGroupSize);
    while (ls & (ls - 1)) ls &= ls - 1;  // the reduction needs a power of two
    const std::string defines = "-D BOX_LOCAL=" + std::to_string(ls);
    const std::size_t level1 = std::size_t(up(v.nz, 2)) * up(v.ny, 2) * up(v.nx, 2);
    const std::size_t level2 = std::size_t(up(v.nz, 4)) * up(v.ny, 4) * up(v.nx, 4);
    const std::size_t slots = r.sizes.size() * 8;  // word 8i + p: side i, placement p
    // Other sides: runs along x (nz x ny x bx codes), then along y (nz x by x bx), for the smallest side.
    std::size_t runsX = 0, runsY = 0;
    auto direct = [&](int side) {  // the fewest boxes of the side's placements
        return std::size_t(up(v.nz, side)) * up(v.ny, side) * up(v.nx, side) >= directMinBoxes;
    };
    for (int side : r.sizes)
        if (!detail::isPowerOfTwo(side) && !direct(side)) {
            const int h = opt.offsetAverage ? side / 2 : 0;
            runsX = std::max(runsX, std::size_t(v.nz) * v.ny * up(v.nx + h, side));
            runsY = std::max(runsY, std::size_t(v.nz) * up(v.ny + h, side) * up(v.nx + h, side));
        }
    ctx.checkFits(v.size() + (levels ? level1 + level2 : 0) + runsX + runsY + slots * 4,
                  "box counting of a " + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nx) + " volume");

    cl::Buffer counters = ctx.buffer(slots * sizeof(cl_uint), "box counts");
    ctx.fill(counters, 0, slots * sizeof(cl_uint), "clear box counts");
    cl::Buffer pyramid[2];
    if (levels) {
        pyramid[0] = ctx.buffer(level1, "box pyramid (odd levels)");
        pyramid[1] = ctx.buffer(std::max<std::size_t>(level2, 1), "box pyramid (even levels)");
    }
    auto indexOf = [&](int side) -> int {
        const auto it = std::find(r.sizes.begin(), r.sizes.end(), side);
        return it == r.sizes.end() ? -1 : int(it - r.sizes.begin());
    };
    cl::Kernel& voxels = ctx.kernel("box_count.cl", "box_count_voxels", Precision::Float, defines);
    cl::Kernel& reduce = ctx.kernel("box_count.cl", "box_reduce", Precision::Float, defines);
    cl::Kernel& scan = ctx.kernel("box_count.cl", "box_count_side", Precision::Float, defines);
    cl::Kernel& runs = ctx.kernel("box_count.cl", "box_runs", Precision::Float, defines);
    cl::Buffer alongX, alongY;
    if (runsX) {
        alongX = ctx.buffer(runsX, "box runs along x");
        alongY = ctx.buffer(runsY, "box runs along x and y");
    }

    // Side 1: the object's voxels (no single voxel holds both phases). Its placements are all the same grid.
    if (indexOf(1) >= 0 && !mixed) {
        setArgs(voxels, 0, mask, cl_ulong(v.size()), counters, cl_int(8 * indexOf(1)));
        ctx.launch(voxels, cl::NDRange(roundUp(v.size(), ls)), cl::NDRange(ls));
    }
    // Powers of two: level k from level k - 1; the shifted placements read the same level k - 1.
    int pz = v.nz, py = v.ny, px = v.nx;
    for (int k = 1; k <= levels; ++k) {
        const cl::Buffer& prev = k == 1 ? mask : pyramid[(k - 2) % 2];
        const cl::Buffer& next = pyramid[(k - 1) % 2];
        const int i = indexOf(1 << k);
        for (int p = 0; p < (i >= 0 ? placements : 1); ++p) {
            const int sz = p & 4 ? 1 : 0, sy = p & 2 ? 1 : 0, sx = p & 1 ? 1 : 0;
            const int bz = up(pz + sz, 2), by = up(py + sy, 2), bx = up(px + sx, 2);
            setArgs(reduce, 0, prev, next, cl_int(pz), cl_int(py), cl_int(px), cl_int(bz), cl_int(by), cl_int(bx),
                    cl_int(sz), cl_int(sy), cl_int(sx), cl_int(k == 1 ? 1 : 0), cl_int(p == 0 ? 1 : 0), cl_int(mixed),
                    counters, cl_int(i >= 0 ? 8 * i + p : -1));
            ctx.launch(reduce, cl::NDRange(roundUp(std::size_t(bz) * by * bx, ls)), cl::NDRange(ls));
        }
        pz = up(pz, 2), py = up(py, 2), px = up(px, 2);
    }
    // Other sides: one work-item per box, or runs along x, then y, then z (counted). Box (z, y, x) of placement p covers voxels
    // [z*s - oz, (z+1)*s - oz) and so on.
    auto reduceRuns = [&](const cl::Buffer& in, const cl::Buffer& out, int d0, int d1, int d2, int axis, int s, int off, int nb,
                          int fromMask, int slot) {
        const std::size_t cells = std::size_t(axis == 0 ? nb : d0) * (axis == 1 ? nb : d1) * (axis == 2 ? nb : d2);
        setArgs(runs, 0, in, out, cl_int(d0), cl_int(d1), cl_int(d2), cl_int(axis), cl_int(s), cl_int(off), cl_int(nb),
                cl_int(fromMask), cl_int(mixed), counters, cl_int(slot));
        ctx.launch(runs, cl::NDRange(roundUp(cells, ls)), cl::NDRange(ls));
    };
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        const int s = r.sizes[i];
        if (detail::isPowerOfTwo(s)) continue;
        for (int p = 0; p < placements; ++p) {
            const int h = s / 2, oz = p & 4 ? h : 0, oy = p & 2 ? h : 0, ox = p & 1 ? h : 0;
            const int bz = up(v.nz + oz, s), by = up(v.ny + oy, s), bx = up(v.nx + ox, s);
            if (direct(s)) {
                setArgs(scan, 0, mask, cl_int(v.nz), cl_int(v.ny), cl_int(v.nx), cl_int(bz), cl_int(by), cl_int(bx), cl_int(s),
                        cl_int(oz), cl_int(oy), cl_int(ox), cl_int(mixed), counters, cl_int(8 * i + p));
                ctx.launch(scan, cl::NDRange(roundUp(std::size_t(bz) * by * bx, ls)), cl::NDRange(ls));
                continue;
            }
            reduceRuns(mask, alongX, v.nz, v.ny, v.nx, 2, s, ox, bx, 1, -1);
            reduceRuns(alongX, alongY, v.nz, v.ny, bx, 1, s, oy, by, 0, -1);
            reduceRuns(alongY, alongY, v.nz, by, bx, 0, s, oz, bz, 0, int(8 * i + p));
        }
    }
    const auto words = ctx.download<cl_uint>(counters, slots, "box counts");
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        const bool single = r.sizes[i] == 1;  // one placement only
        r.counts.push_back(words[8 * i]);
        if (!opt.offsetAverage) continue;
        double sum = 0;
        std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
        for (int p = 0; p < 8; ++p) {
            const std::uint64_t n = words[8 * i + (single ? 0 : p)];
            sum += double(n);
            least = std::min(least, n);
        }
        r.offsetMean.push_back(sum / 8);
        r.offsetMin.push_back(least);
    }
    detail::finish(r, opt);
    return r;
}

}  // namespace detail

}  // namespace portacl::boxcount

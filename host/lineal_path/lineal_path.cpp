// The lineal path function on the device. Displacements are grouped by their major axis; for each
// group the image is transposed so that axis is the packed one, its rows are bit-packed and extended
// by ML on both sides (wrapped or zero), the run tables E_1..E_{ML+1} are built on the device, and one
// work-group counts the placements of one displacement (cl/lineal_path.cl).
#include <algorithm>
#include <climits>
#include <cstdlib>

#include "portacl/lineal_path.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"
#include "result_layout.hpp"

namespace portacl::lineal {
namespace {

struct Frame {
    int perm[3];  // frame axis k is original axis perm[k]; frame axis 2 is the packed (major) axis
    int n[3];
};

Frame frameFor(int major, const PhaseImage& img) {
    static const int perms[3][3] = {{1, 2, 0}, {0, 2, 1}, {0, 1, 2}};
    Frame f;
    const int ext[3] = {img.nz, img.ny, img.nx};
    for (int k = 0; k < 3; ++k) {
        f.perm[k] = perms[major][k];
        f.n[k] = ext[f.perm[k]];
    }
    return f;
}

}  // namespace

Result linealPath(Context& ctx, const PhaseImage& img, const Options& opt) {
    validate(img, opt);
    Result r = detail::emptyResult(img, opt);
    const int ml = opt.maxLength, mlz = r.mlz();

    // Displacements by major axis (x on ties, so that every 2-D displacement with |dx| >= |dy| goes
    // to the untransposed image; equal major components give the same pixels whichever leads).
    std::vector<std::vector<cl_int4>> groups(3);
    std::vector<std::vector<std::size_t>> where(3);
    for (int dz = -mlz; dz <= mlz; ++dz)
        for (int dy = -ml; dy <= ml; ++dy)
            for (int dx = -ml; dx <= ml; ++dx) {
                const int az = std::abs(dz), ay = std::abs(dy), ax = std::abs(dx);
                const int major = (ax >= ay && ax >= az) ? 2 : (ay >= az ? 1 : 0);
                const int d[3] = {dz, dy, dx};
                const Frame f = frameFor(major, img);
                cl_int4 v;
                v.s[0] = d[f.perm[0]];
                v.s[1] = d[f.perm[1]];
                v.s[2] = d[f.perm[2]];
                v.s[3] = 0;
                groups[major].push_back(v);
                where[major].push_back(r.index(dz, dy, dx));
            }

    std::size_t ls = std::size_t(ctx.tuning().getInt("lineal_path", "work_group", 256, 1, 1L << 16));
    ls = std::min(ls, ctx.device().maxWorkGroupSize);
    while (ls & (ls - 1)) ls &= ls - 1;  // the reduction needs a power of two
    const std::size_t chunk = std::size_t(std::max(1L, ctx.tuning().getInt("lineal_path", "chunk", 65536, 1, 1L << 30)));
    const std::size_t maxRuns = std::size_t(2 * ml + 2);
    if (maxRuns * sizeof(cl_int4) + ls * sizeof(cl_ulong) + 64 > ctx.device().localMemBytes)
        throw Error("the maximum length " + std::to_string(ml) + " needs more local memory than the device has");

    cl::Kernel pack = ctx.kernel("lineal_path.cl", "lineal_pack_rows", Precision::Float);
    cl::Kernel tables = ctx.kernel("lineal_path.cl", "lineal_run_tables", Precision::Float);
    cl::Kernel count = ctx.kernel("lineal_path.cl", "lineal_count", Precision::Float);

    const std::size_t stride[3] = {std::size_t(img.ny) * img.nx, std::size_t(img.nx), 1};
    cl::Buffer mask = ctx.upload(img.mask, "phase mask", CL_MEM_READ_ONLY);
    std::size_t total = 0, done = 0;
    for (const auto& g : groups) total += g.size();
    Progress progress("lineal path", total, "displacements");
    for (int major = 2; major >= 0; --major) {
        const auto& list = groups[major];
        if (list.empty()) continue;
        const Frame f = frameFor(major, img);
        const int rows = f.n[0] * f.n[1];
        const int words = (f.n[2] + 31) / 32;
        const int ew = words + (2 * ml) / 32 + 2;
        const std::size_t tableWords = checkedMul(checkedMul(std::size_t(ml + 1), std::size_t(rows), "the lineal path run tables"),
                                                  std::size_t(ew), "the lineal path run tables");
        if (std::size_t(rows) * std::size_t(ew) > std::size_t(INT_MAX))
            throw Error("the lineal path run tables of " + std::to_string(rows) + " rows are larger than the kernels index");
        ctx.checkFits(tableWords * 4 + list.size() * (sizeof(cl_int4) + 8), "the lineal path run tables");

        cl::Buffer E = ctx.buffer(tableWords * 4, "lineal path run tables");
        setArg(pack, 0, mask);
        setArg(pack, 1, E);
        setArg(pack, 2, cl_int(f.n[0]));
        setArg(pack, 3, cl_int(f.n[1]));
        setArg(pack, 4, cl_int(f.n[2]));
        setArg(pack, 5, cl_int(stride[f.perm[0]]));
        setArg(pack, 6, cl_int(stride[f.perm[1]]));
        setArg(pack, 7, cl_int(stride[f.perm[2]]));
        setArg(pack, 8, cl_int(ew));
        setArg(pack, 9, cl_int(ml));
        setArg(pack, 10, cl_int(opt.periodic ? 1 : 0));
        ctx.launch(pack, cl::NDRange(roundUp(std::size_t(rows) * ew, 64)), cl::NDRange(64));
        if (ml > 0) {
            setArg(tables, 0, E);
            setArg(tables, 1, cl_int(rows));
            setArg(tables, 2, cl_int(ew));
            setArg(tables, 3, cl_int(ml));
            ctx.launch(tables, cl::NDRange(roundUp(std::size_t(rows) * ew, 64)), cl::NDRange(64));
        }
        cl::Buffer disp = ctx.upload(list, "lineal path displacements", CL_MEM_READ_ONLY);
        const std::size_t perLaunch = std::min(chunk, list.size());
        cl::Buffer out = ctx.buffer(perLaunch * sizeof(cl_ulong), "lineal path counts", CL_MEM_WRITE_ONLY);
        setArg(count, 0, E);
        setArg(count, 1, cl_int(f.n[0]));
        setArg(count, 2, cl_int(f.n[1]));
        setArg(count, 3, cl_int(f.n[2]));
        setArg(count, 4, cl_int(ew));
        setArg(count, 5, cl_int(ml));
        setArg(count, 6, cl_int(opt.periodic ? 1 : 0));
        setArg(count, 7, disp);
        setArg(count, 9, out);
        setArg(count, 10, cl::Local(maxRuns * sizeof(cl_int4)));
        setArg(count, 11, cl::Local(ls * sizeof(cl_ulong)));
        std::vector<cl_ulong> counts(list.size());
        // With a progress line on, launches of at most a fiftieth of the displacements, so that a
        // long 3-D run shows how far it is (the counts are exact either way).
        const std::size_t step = progress.active() ? std::max<std::size_t>(256, std::min(perLaunch, list.size() / 50 + 1)) : perLaunch;
        for (std::size_t base = 0; base < list.size(); base += step) {
            const std::size_t n = std::min(step, list.size() - base);
            setArg(count, 8, cl_int(base));
            ctx.launch(count, cl::NDRange(n * ls), cl::NDRange(ls));
            ctx.read(out, counts.data() + base, n * sizeof(cl_ulong), "download lineal path counts");
            progress.update(done += n);
        }
        for (std::size_t i = 0; i < list.size(); ++i) r.count[where[major][i]] = counts[i];
    }
    return r;
}

}  // namespace portacl::lineal

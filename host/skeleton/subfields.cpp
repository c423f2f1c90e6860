// The directional 8-subfield parallel thinning on the device (cl/skeleton.cl): per border direction
// one launch marks the border, then one launch per subfield removes; one read of the pass's counts.
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/skeleton.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton {

io::BinaryVolume thinSubfields(Context& ctx, const io::BinaryVolume& v, Stats* stats) {
    validate(v);
    const int pz = v.nz + 2, py = v.ny + 2, px = v.nx + 2;
    const std::size_t padded = std::size_t(pz) * py * px;
    if (padded >= (std::size_t(1) << 32))
        throw Error("thinning takes volumes of fewer than 2^32 voxels (with one voxel of padding); this one has " +
                    std::to_string(padded));
    ctx.checkFits(v.size() + 2 * padded + 256,
                  "thinning a " + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nx) + " volume");
    cl::Buffer mask = ctx.upload(v.mask, "thinning mask", CL_MEM_READ_ONLY);
    cl::Buffer img = ctx.buffer(padded, "thinning image");
    cl::Buffer border = ctx.buffer(padded, "thinning border marks");
    cl::Buffer counters = ctx.buffer(48 * sizeof(cl_uint), "thinning counters");
    ctx.fill(img, 0, padded, "clear thinning image");
    cl::Kernel& pad = ctx.kernel("skeleton.cl", "skel_pad", Precision::Float);
    cl::Kernel& mark = ctx.kernel("skeleton.cl", "skel_mark_border", Precision::Float);
    cl::Kernel& subfield = ctx.kernel("skeleton.cl", "skel_subfield", Precision::Float);
    setArgs(pad, 0, mask, img, cl_int(v.nz), cl_int(v.ny), cl_int(v.nx));
    ctx.launch(pad, cl::NDRange(roundUp(v.size(), 256)), cl::NDRange(256));
    const std::size_t items = std::size_t((v.nz + 1) / 2) * ((v.ny + 1) / 2) * ((v.nx + 1) / 2);

    Stats st;
    Progress progress("thinning", 0, "passes");
    for (bool changed = true; changed;) {
        ++st.iterations;
        ctx.fill(counters, 0, 48 * sizeof(cl_uint), "clear removal counts");
        for (std::size_t b = 0; b < detail::kBorders.size(); ++b) {
            const auto& d = detail::kBorders[b];
            setArgs(mark, 0, img, border, cl_int(pz), cl_int(py), cl_int(px), cl_int(d[0]), cl_int(d[1]), cl_int(d[2]));
            ctx.launch(mark, cl::NDRange(roundUp(padded, 256)), cl::NDRange(256));
            for (int s = 0; s < 8; ++s) {
                setArgs(subfield, 0, img, border, counters, cl_int(v.nz), cl_int(v.ny), cl_int(v.nx), cl_int(s), cl_int(8 * int(b) + s));
                ctx.launch(subfield, cl::NDRange(roundUp(items, 256)), cl::NDRange(256));
            }
        }
        cl_uint removed[48];
        ctx.read(counters, removed, sizeof removed, "read removal counts");
        changed = false;
        for (cl_uint r : removed) {
            st.candidates += r;
            changed = changed || r;
        }
        progress.update(std::uint64_t(st.iterations));
    }
    progress.finish();
    std::vector<std::uint8_t> host(padded);
    ctx.read(img, host.data(), padded, "download skeleton");
    io::BinaryVolume out = v;
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y)
            for (int x = 0; x < v.nx; ++x)
                out.mask[out.index(z, y, x)] = host[((std::size_t(z) + 1) * py + std::size_t(y) + 1) * px + std::size_t(x) + 1];
    if (stats) *stats = st;
    return out;
}

}  // namespace portacl::skeleton

// Lee-Kashyap-Chu thinning on the device (cl/skeleton.cl): per border, the candidates in one launch,
// the ordered recheck in rounds (launched in batches; one read of the last round's pending count per
// batch), the removals in one launch; one read of the six borders' removal counts per pass.
#include <algorithm>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/skeleton.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton {
namespace {

constexpr int kBatch = 4;          // resolve rounds launched between reads
constexpr int kRemovedSlot = 8;    // counters[8 + border]: voxels the border removed in this pass
constexpr int kPendingSlot = 16;   // counters[16 + r]: candidates still pending after round r of a batch
constexpr int kCandidateSlot = 24; // counters[24 + border]: the border's candidates in this pass

}  // namespace

io::BinaryVolume thin(Context& ctx, const io::BinaryVolume& v, Stats* stats) {
    return detail::thinOnDevice(ctx, v, stats, 6);
}

namespace detail {

io::BinaryVolume thinOnDevice(Context& ctx, const io::BinaryVolume& v, Stats* stats, int maxUnknown) {
    validate(v);
    const int pz = v.nz + 2, py = v.ny + 2, px = v.nx + 2;
    const std::size_t padded = std::size_t(pz) * py * px;
    if (padded >= (std::size_t(1) << 32))
        throw Error("thinning takes volumes of fewer than 2^32 voxels (with one voxel of padding); this one has " +
                    std::to_string(padded));
    const std::uint64_t objects = v.count();
    const std::string what = "thinning a " + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nx) + " volume";
    ctx.checkFits(v.size() + 3 * padded + objects * 4 + 256, what);

    cl::Buffer mask = ctx.upload(v.mask, "thinning mask", CL_MEM_READ_ONLY);
    cl::Buffer img = ctx.buffer(padded, "thinning image");
    cl::Buffer states[2] = {ctx.buffer(padded, "thinning candidate state"), ctx.buffer(padded, "thinning candidate state (next)")};
    cl::Buffer list = ctx.buffer(std::max<std::size_t>(objects, 1) * sizeof(cl_uint), "thinning candidates");
    cl::Buffer counters = ctx.buffer(32 * sizeof(cl_uint), "thinning counters");
    ctx.fill(img, 0, padded, "clear thinning image");
    ctx.fill(states[0], 0, padded, "clear thinning state");
    ctx.fill(states[1], 0, padded, "clear thinning state (next)");
    const std::string defines = "-D SKEL_MAX_UNKNOWN=" + std::to_string(maxUnknown);
    cl::Kernel& pad = ctx.kernel("skeleton.cl", "skel_pad", Precision::Float, defines);
    cl::Kernel& candidates = ctx.kernel("skeleton.cl", "skel_candidates", Precision::Float, defines);
    cl::Kernel& resolve = ctx.kernel("skeleton.cl", "skel_resolve", Precision::Float, defines);
    cl::Kernel& apply = ctx.kernel("skeleton.cl", "skel_apply", Precision::Float, defines);
    setArgs(pad, 0, mask, img, cl_int(v.nz), cl_int(v.ny), cl_int(v.nx));
    ctx.launch(pad, cl::NDRange(roundUp(v.size(), 256)), cl::NDRange(256));

    // The recheck's work-items stride over the list: enough to fill the device, few enough that an
    // almost empty list costs little.
    const std::size_t listItems = std::min<std::size_t>(roundUp(std::max<std::uint64_t>(objects, 1), 256),
                                                        std::size_t(ctx.device().computeUnits) * 2048);
    Stats st;
    Progress progress("thinning", 0, "passes");
    for (bool changed = true; changed;) {
        ++st.iterations;
        ctx.writeAsync(counters, std::vector<cl_uint>(32, 0), "clear thinning counters");
        for (std::size_t b = 0; b < detail::kBorders.size(); ++b) {
            const auto& d = detail::kBorders[b];
            if (b) ctx.writeAsync(counters, std::vector<cl_uint>(1, 0), "clear candidate count");
            setArgs(candidates, 0, img, states[0], states[1], list, counters, cl_int(pz), cl_int(py), cl_int(px), cl_int(d[0]),
                    cl_int(d[1]), cl_int(d[2]));
            ctx.launch(candidates, cl::NDRange(roundUp(padded, 256)), cl::NDRange(256));
            int current = 0;  // the state array the last round wrote
            for (;;) {
                ctx.writeAsync(counters, std::vector<cl_uint>(kBatch, 0), "clear pending counts", kPendingSlot * sizeof(cl_uint));
                for (int r = 0; r < kBatch; ++r, current ^= 1) {
                    setArgs(resolve, 0, img, states[current], states[current ^ 1], list, counters, cl_int(py), cl_int(px),
                            cl_int(kPendingSlot + r));
                    ctx.launch(resolve, cl::NDRange(listItems), cl::NDRange(256));
                }
                st.rounds += kBatch;
                cl_uint pending = 0;
                ctx.read(counters, &pending, sizeof pending, "read pending count", (kPendingSlot + kBatch - 1) * sizeof(cl_uint));
                if (!pending) break;
            }
            setArgs(apply, 0, img, states[current], states[current ^ 1], list, counters, cl_int(kRemovedSlot + int(b)),
                    cl_int(kCandidateSlot + int(b)));
            ctx.launch(apply, cl::NDRange(listItems), cl::NDRange(256));
        }
        cl_uint counts[32];
        ctx.read(counters, counts, sizeof counts, "read removal counts");
        changed = false;
        for (int b = 0; b < 6; ++b) {
            changed = changed || counts[kRemovedSlot + b];
            st.candidates += counts[kCandidateSlot + b];
        }
        progress.update(std::uint64_t(st.iterations));
    }
    progress.finish();
    std::vector<std::uint8_t> host(padded);
    ctx.read(img, host.data(), padded, "download skeleton");
    io::BinaryVolume out = v;
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y)
            std::copy_n(host.begin() + std::ptrdiff_t(((std::size_t(z) + 1) * py + std::size_t(y) + 1) * px + 1), v.nx,
                        out.mask.begin() + std::ptrdiff_t(out.index(z, y, 0)));
    if (stats) *stats = st;
    return out;
}

}  // namespace detail
}  // namespace portacl::skeleton

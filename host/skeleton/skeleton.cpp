// Lee-Kashyap-Chu thinning on the device (cl/skeleton.cl): per border, the candidates in one launch,
// the ordered recheck's first round over them in a second and its remaining rounds in a third (one
// work-group); the counts stay on the device, and the host reads them once per pass while later
// passes run (runPasses). The skeleton comes back as a list of its voxels.
#include <algorithm>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/skeleton.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton {
namespace {

// cl/skeleton.cl's SKEL_LEE_* counter slots.
constexpr int kChangedSlot = 2;
constexpr int kCandidatesSlot = 3;
constexpr int kRoundsSlot = 4;
constexpr int kCounters = 8;

}  // namespace

io::BinaryVolume thin(Context& ctx, const io::BinaryVolume& v, Stats* stats) {
    return detail::thinOnDevice(ctx, v, stats, 6, 63);
}

namespace detail {

io::BinaryVolume thinOnDevice(Context& ctx, const io::BinaryVolume& v, Stats* stats, int maxUnknown, int stamps) {
    validate(v);
    if (stamps < 1 || stamps > 63) throw Error("thinning's decision bytes hold 1 to 63 step stamps, not " + std::to_string(stamps));
    const int pz = v.nz + 2, py = v.ny + 2, px = v.nx + 2;
    const std::size_t padded = std::size_t(pz) * py * px;
    if (padded >= (std::size_t(1) << 32))
        throw Error("thinning takes volumes of fewer than 2^32 voxels (with one voxel of padding); this one has " +
                    std::to_string(padded));
    const std::uint64_t objects = v.count();
    const std::size_t listBytes = std::max<std::size_t>(objects, 1) * sizeof(cl_uint);
    const std::string what = "thinning a " + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nx) + " volume";
    ctx.checkFits(v.size() + 3 * padded + 2 * listBytes + 256, what);  // mask; image, marks, decisions; lists

    const std::string defines = "-D SKEL_MAX_UNKNOWN=" + std::to_string(maxUnknown);
    // Every kernel before the first command, so that no program build falls between the commands.
    cl::Kernel& pad = ctx.kernel("skeleton.cl", "skel_pad", Precision::Float, defines);
    cl::Kernel& candidates = ctx.kernel("skeleton.cl", "skel_candidates", Precision::Float, defines);
    cl::Kernel& firstRound = ctx.kernel("skeleton.cl", "skel_first_round", Precision::Float, defines);
    cl::Kernel& tail = ctx.kernel("skeleton.cl", "skel_tail", Precision::Float, defines);
    cl::Kernel& collect = ctx.kernel("skeleton.cl", "skel_collect", Precision::Float, defines);
    cl::Buffer mask = ctx.upload(v.mask, "thinning mask", CL_MEM_READ_ONLY);
    cl::Buffer img = ctx.buffer(padded, "thinning image");
    cl::Buffer mark = ctx.buffer(padded, "thinning candidate marks");
    cl::Buffer decision = ctx.buffer(padded, "thinning decisions");
    cl::Buffer list = ctx.buffer(listBytes, "thinning candidates");
    cl::Buffer pending = ctx.buffer(listBytes, "thinning pending candidates");
    cl::Buffer counters = ctx.buffer(kCounters * sizeof(cl_uint), "thinning counters");
    ctx.fill(img, 0, padded, "clear thinning image");
    ctx.fill(mark, 0, padded, "clear thinning marks");
    ctx.fill(decision, 0, padded, "clear thinning decisions");
    ctx.writeAsync(counters, std::vector<cl_uint>(kCounters, 0), "clear thinning counters");
    setArgs(pad, 0, mask, img, cl_int(v.nz), cl_int(v.ny), cl_int(v.nx));
    ctx.launch(pad, cl::NDRange(roundUp(v.size(), 256)), cl::NDRange(256));

    // The first round's work-groups stride over the list: enough to fill the device, few enough that
    // a short list costs little. The tail is one work-group, as large as the device allows (to 1024).
    const std::size_t listItems = std::min<std::size_t>(roundUp(std::max<std::uint64_t>(objects, 1), 256),
                                                        std::size_t(ctx.device().computeUnits) * 2048);
    const std::size_t tailItems = std::min<std::size_t>(1024, workGroupLimit(tail, ctx.device().device));
    setArgs(candidates, 0, img, mark, list, counters, cl_uint(padded), cl_int(py), cl_int(px));
    setArgs(firstRound, 0, img, mark, decision, list, pending, counters, cl_int(py), cl_int(px));
    setArgs(tail, 0, img, mark, decision, pending, counters, cl_int(py), cl_int(px));
    int step = 0;
    auto enqueuePass = [&](cl_uint pass) {
        for (std::size_t b = 0; b < detail::kBorders.size(); ++b, ++step) {
            if (step && step % stamps == 0) {
                ctx.fill(mark, 0, padded, "clear thinning marks");
                ctx.fill(decision, 0, padded, "clear thinning decisions");
            }
            const cl_int stamp = 1 + step % stamps;
            const auto& d = detail::kBorders[b];
            setArgs(candidates, 7, cl_int(d[0]), cl_int(d[1]), cl_int(d[2]), stamp, pass);
            ctx.launch(candidates, cl::NDRange(roundUp(padded, 256)), cl::NDRange(256));
            setArgs(firstRound, 8, stamp, pass);
            ctx.launch(firstRound, cl::NDRange(listItems), cl::NDRange(256));
            setArgs(tail, 7, stamp, pass);
            ctx.launch(tail, cl::NDRange(tailItems), cl::NDRange(tailItems));
        }
    };
    Stats st;
    Progress progress("thinning", 0, "passes");
    std::vector<cl_uint> before(kCounters, 0);
    runPasses(ctx, counters, kCounters, enqueuePass, [&](const std::vector<cl_uint>& now, cl_uint pass) {
        ++st.iterations;
        // The totals may wrap around 2^32 over many passes; a pass's increase does not.
        st.candidates += cl_uint(now[kCandidatesSlot] - before[kCandidatesSlot]);
        st.rounds += cl_uint(now[kRoundsSlot] - before[kRoundsSlot]);
        before = now;
        progress.update(std::uint64_t(st.iterations));
        return now[kChangedSlot] != pass;
    });
    progress.finish();
    const io::BinaryVolume out = volumeOfVoxels(v, collectSkeleton(ctx, collect, img, list, padded, py, px));
    if (stats) *stats = st;
    return out;
}

}  // namespace detail
}  // namespace portacl::skeleton

// The directional parallel thinnings on the device (cl/skeleton.cl): the 8-subfield one and the
// P-simple one. The volume is swept once, for its surface; from then on every launch works on lists:
// per border direction one launch takes the border from the active list (the surface), then one
// launch per subfield removes (or, P-simple, one launch for the whole border). The lists' lengths stay
// on the device; the host reads the counts once per pass, while later passes run (runPasses). The skeleton comes
// back as a list of its voxels.
#include <algorithm>
#include <array>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"
#include "portacl/runtime/progress.hpp"
#include "portacl/skeleton.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton {
namespace {

// cl/skeleton.cl's counter slots: SKEL_ACTIVE, SKEL_REMOVED, SKEL_PAR_CHANGED, and the border buckets' starts from
// SKEL_BUCKET_START; the host reads the slots before SKEL_BORDER once per pass.
constexpr int kActiveSlot = 0;
constexpr int kRemovedSlot = 3;
constexpr int kChangedSlot = 4;
constexpr int kReadCounters = 8;
constexpr int kBucketStartSlot = 32;
constexpr int kCounters = kBucketStartSlot + 8;

// The object's voxels in each subfield (bits 2, 1, 0: the parities of z, y, x).
std::array<std::size_t, 8> subfieldCounts(const io::BinaryVolume& v) {
    std::array<std::size_t, 8> n{};
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y) {
            const std::uint8_t* row = v.mask.data() + v.index(z, y, 0);
            std::size_t even = 0, odd = 0;
            for (int x = 0; x + 1 < v.nx; x += 2) even += row[x] != 0, odd += row[x + 1] != 0;
            if (v.nx % 2) even += row[v.nx - 1] != 0;
            const int s = (z & 1) << 2 | (y & 1) << 1;
            n[std::size_t(s)] += even;
            n[std::size_t(s | 1)] += odd;
        }
    return n;
}

}  // namespace

io::BinaryVolume thinSubfields(Context& ctx, const io::BinaryVolume& v, Stats* stats) {
    // One launch per subfield on every device: on an H100 the rounds and the one-work-group tail were
    // slower than it (docs/engineering/volumes.md); the profile's keys still choose them.
    detail::SubfieldSchedule schedule;
    schedule.groupBelow = std::size_t(ctx.tuning().getInt("skeleton", "group_below", 0, 0, 1L << 31));
    schedule.rounds = ctx.tuning().getInt("skeleton", "subfield_rounds", 0, 0, 1) != 0;
    schedule.maxUnknown = int(ctx.tuning().getInt("skeleton", "subfield_unknown", schedule.maxUnknown, 0, 26));
    return detail::thinSubfieldsOnDevice(ctx, v, stats, schedule);
}

io::BinaryVolume thinPSimple(Context& ctx, const io::BinaryVolume& v, Stats* stats) {
    detail::SubfieldSchedule schedule;
    schedule.psimple = true;
    return detail::thinSubfieldsOnDevice(ctx, v, stats, schedule);
}

namespace detail {

io::BinaryVolume thinSubfieldsOnDevice(Context& ctx, const io::BinaryVolume& v, Stats* stats, const SubfieldSchedule& schedule) {
    validate(v);
    if (schedule.stamps < 1 || schedule.stamps > 63)
        throw Error("thinning's decision bytes hold 1 to 63 step stamps, not " + std::to_string(schedule.stamps));
    const bool psimple = schedule.psimple;
    const std::size_t groupBelow = psimple ? 0 : schedule.groupBelow;
    const int pz = v.nz + 2, py = v.ny + 2, px = v.nx + 2;
    const std::size_t padded = std::size_t(pz) * py * px;
    if (padded >= (std::size_t(1) << 32))
        throw Error("thinning takes volumes of fewer than 2^32 voxels (with one voxel of padding); this one has " +
                    std::to_string(padded));
    // Every list holds distinct object voxels: at most `objects` entries each, and a border bucket at
    // most the object's voxels of its subfield.
    const std::array<std::size_t, 8> perSubfield = subfieldCounts(v);
    std::vector<cl_uint> init(kCounters, 0);
    std::size_t objects = 0;
    for (int s = 0; s < 8; ++s) {
        init[std::size_t(kBucketStartSlot + s)] = cl_uint(objects);
        objects += perSubfield[std::size_t(s)];
    }
    // The rounds need marks and decisions (a byte per voxel each) and the pending list.
    const bool rounds = !psimple && schedule.rounds && objects >= groupBelow;
    // The P-simple removal needs the marks of P (a byte per voxel, stamped as the rounds' are).
    const bool stamped = rounds || psimple;
    ctx.checkFits(v.size() + (rounds ? 4 : psimple ? 3 : 2) * padded + objects * (rounds ? 4 : 3) * sizeof(cl_uint) + 256,
                  "thinning a " + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nx) + " volume");
    // Every kernel before the first command, so that no program build falls between the commands.
    cl::Kernel& pad = ctx.kernel("skeleton.cl", "skel_pad", Precision::Float);
    cl::Kernel& surface = ctx.kernel("skeleton.cl", "skel_surface", Precision::Float);
    cl::Kernel& activeBorder = ctx.kernel("skeleton.cl", "skel_active_border", Precision::Float);
    cl::Kernel& subfield = ctx.kernel("skeleton.cl", "skel_subfield", Precision::Float);
    cl::Kernel& first = ctx.kernel("skeleton.cl", "skel_subfields_first", Precision::Float);
    cl::Kernel& tail = ctx.kernel("skeleton.cl", "skel_subfields_tail", Precision::Float);
    cl::Kernel& removePSimple = ctx.kernel("skeleton.cl", "skel_psimple", Precision::Float);
    cl::Kernel& group = ctx.kernel("skeleton.cl", "skel_thin_group", Precision::Float);
    cl::Kernel& collect = ctx.kernel("skeleton.cl", "skel_collect", Precision::Float);
    cl::Buffer mask = ctx.upload(v.mask, "thinning mask", CL_MEM_READ_ONLY);
    cl::Buffer img = ctx.buffer(padded, "thinning image");
    cl::Buffer inSet = ctx.buffer(padded, "thinning active marks");
    cl::Buffer active[2] = {ctx.buffer(objects * sizeof(cl_uint), "thinning active list"),
                            ctx.buffer(objects * sizeof(cl_uint), "thinning active list (next)")};
    cl::Buffer border = ctx.buffer(objects * sizeof(cl_uint), "thinning border buckets");
    cl::Buffer counters = ctx.buffer(kCounters * sizeof(cl_uint), "thinning counters");
    // Without stamps, skel_active_border writes no marks (stamp 0): inSet stands in for the marks.
    cl::Buffer mark = stamped ? ctx.buffer(padded, "thinning border marks") : inSet;
    cl::Buffer decision, pending;
    ctx.fill(img, 0, padded, "clear thinning image");
    ctx.fill(inSet, 0, padded, "clear thinning active marks");
    if (stamped) ctx.fill(mark, 0, padded, "clear thinning border marks");
    if (rounds) {
        decision = ctx.buffer(padded, "thinning decisions");
        pending = ctx.buffer(objects * sizeof(cl_uint), "thinning pending border voxels");
        ctx.fill(decision, 0, padded, "clear thinning decisions");
    }
    ctx.writeAsync(counters, std::move(init), "set thinning counters");
    setArgs(pad, 0, mask, img, cl_int(v.nz), cl_int(v.ny), cl_int(v.nx));
    ctx.launch(pad, cl::NDRange(roundUp(v.size(), 256)), cl::NDRange(256));
    setArgs(surface, 0, img, inSet, active[0], counters, cl_int(pz), cl_int(py), cl_int(px));
    ctx.launch(surface, cl::NDRange(roundUp(padded, 256)), cl::NDRange(256));

    // The list launches stride over their lists: enough work-items to fill the device, few enough
    // that a short list costs little. The tail is one work-group, as large as the device allows (to 1024).
    const std::size_t maxListItems = std::min<std::size_t>(roundUp(objects, 256), std::size_t(ctx.device().computeUnits) * 2048);
    // Narrowed, once the counts of a pass are read, to the active list at that pass's end: a
    // shorter list than that takes the same launches, a longer one (voxels exposed since) more
    // strides of each work-item.
    std::size_t listItems = maxListItems;
    const std::size_t tailItems = std::min<std::size_t>(1024, workGroupLimit(tail, ctx.device().device));
    if (rounds) {
        setArgs(first, 0, img, mark, decision, border, pending, counters, cl_int(py), cl_int(px));
        setArgs(tail, 0, img, mark, decision, pending, counters, cl_int(py), cl_int(px));
    }
    int step = 0;  // direction steps so far, over every pass
    auto enqueuePass = [&](cl_uint pass) {
        for (std::size_t b = 0; b < detail::kBorders.size(); ++b, ++step) {
            const auto& d = detail::kBorders[b];
            if (stamped && step && step % schedule.stamps == 0) {
                ctx.fill(mark, 0, padded, "clear thinning border marks");
                if (rounds) ctx.fill(decision, 0, padded, "clear thinning decisions");
            }
            const cl_int stamp = stamped ? 1 + step % schedule.stamps : 0;
            setArgs(activeBorder, 0, img, inSet, active[step % 2], active[(step + 1) % 2], border, counters, mark, cl_int(py),
                    cl_int(px), cl_int(d[0]), cl_int(d[1]), cl_int(d[2]), cl_int(step), stamp, pass, cl_int(psimple));
            ctx.launch(activeBorder, cl::NDRange(listItems), cl::NDRange(256));
            if (psimple) {
                setArgs(removePSimple, 0, img, mark, border, counters, cl_int(py), cl_int(px), cl_int(step), stamp, pass);
                ctx.launch(removePSimple, cl::NDRange(listItems), cl::NDRange(256));
                continue;
            }
            if (rounds) {
                setArgs(first, 8, cl_int(step), stamp, cl_int(schedule.maxUnknown), pass);
                ctx.launch(first, cl::NDRange(listItems), cl::NDRange(256));
                setArgs(tail, 7, stamp, cl_int(schedule.maxUnknown), pass);
                ctx.launch(tail, cl::NDRange(tailItems), cl::NDRange(tailItems));
                continue;
            }
            for (int s = 0; s < 8; ++s) {
                setArgs(subfield, 0, img, border, counters, cl_int(py), cl_int(px), cl_int(s), cl_int(step), pass);
                ctx.launch(subfield, cl::NDRange(listItems), cl::NDRange(256));
            }
        }
    };
    // One work-group, as large as the device allows (to 1024).
    const std::size_t groupItems = std::min<std::size_t>(1024, workGroupLimit(group, ctx.device().device));
    Progress progress("thinning", 0, "passes");
    // Passes are enqueued ahead of the counts the host waits for; after a pass that removed nothing,
    // the next ones take no border. Once the active list is shorter than groupBelow (from the start
    // when the object is), one work-group does every pass still to come in one launch.
    cl_uint groupPass = 1;
    if (objects >= groupBelow) {
        bool converged = false;
        const cl_uint lastEnqueued =
            runPasses(ctx, counters, kReadCounters, enqueuePass, [&](const std::vector<cl_uint>& now, cl_uint pass) {
                progress.update(std::uint64_t(pass));
                listItems = std::clamp<std::size_t>(roundUp(now[kActiveSlot], 256), 256, maxListItems);
                // Slot SKEL_ACTIVE + 0: the active list as the next pass starts (its first step, 6 * pass).
                converged = now[kChangedSlot] != pass;
                return converged || now[kActiveSlot] < groupBelow;
            });
        groupPass = converged ? 0 : lastEnqueued + 1;
    }
    if (groupPass) {
        setArgs(group, 0, img, inSet, active[0], active[1], border, counters, cl_int(py), cl_int(px), groupPass);
        ctx.launch(group, cl::NDRange(groupItems), cl::NDRange(groupItems));
    }
    std::array<cl_uint, kReadCounters> last{};
    ctx.read(counters, last.data(), sizeof last, "read thinning counts");
    progress.finish();
    // The passes end with the first that removed nothing.
    Stats st;
    st.iterations = int(last[kChangedSlot]) + 1;
    st.candidates = last[kRemovedSlot];
    const io::BinaryVolume out = volumeOfVoxels(v, detail::collectSkeleton(ctx, collect, img, border, padded, py, px));
    if (stats) *stats = st;
    return out;
}

}  // namespace detail

}  // namespace portacl::skeleton

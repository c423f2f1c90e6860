#include "portacl/runtime/two_phase.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/growable_buffer.hpp"

namespace portacl {

namespace {

constexpr int kCompactItems = 8;  // items per work-item in a compaction tile (COMPACT_ITEMS)

// Scratch buffers of the dispatch, kept per context and grown on demand, so that repeated calls
// (benchmarks, iterative workloads) allocate nothing. The kernels come from the context's cache
// (one object per program and name); their arguments are set on every call.
struct TwoPhaseState {
    GrowableBuffer flags, items, tileCounts;
    cl::Buffer total;
};

std::size_t compactionGroupSize(Context& ctx) {
    const long wanted = ctx.tuning().getInt("two_phase", "compact_work_group", 256, 1, 1L << 16);
    return std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1L, wanted)), 1, ctx.device().maxWorkGroupSize);
}

std::size_t itemGroupSize(Context& ctx) {
    const long wanted = ctx.tuning().getInt("two_phase", "item_work_group", 128, 1, 1L << 16);
    return std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1L, wanted)), 1, ctx.device().maxWorkGroupSize);
}

// A double-float phase 2's build options: the kernel's own, and the define that selects its code.
std::string doubleFloatOptions(const std::string& options) {
    return options.empty() ? "-D PORTACL_DOUBLE_FLOAT=1" : options + " -D PORTACL_DOUBLE_FLOAT=1";
}

// The tuned work-group size, no larger than this kernel allows on this device (a kernel with a
// large private frame may allow fewer work-items than the device maximum).
std::size_t fitGroup(Context& ctx, const cl::Kernel& k, std::size_t wanted) {
    const std::size_t allowed = workGroupLimit(k, ctx.device().device);
    return std::max<std::size_t>(1, std::min(wanted, allowed));
}

// The compaction of `flags` (n items): count per tile, scan, and (when indices is given) scatter.
// Appends its events to `events`; returns the number of flags. With countSlot, nothing waits: the
// count is copied on the device into the slot, 0 is returned, and the indices past the count are
// TWO_PHASE_NO_ITEM.
std::size_t compact(Context& ctx, const cl::Buffer& flags, std::size_t n, const cl::Buffer* indices,
                    std::vector<cl::Event>& events, const TwoPhaseCountSlot* countSlot = nullptr) {
    if (n == 0) return 0;
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw Error("stream compaction handles at most 2^32 - 1 items, but " + std::to_string(n) + " were given");
    auto& s = ctx.state<TwoPhaseState>();
    const std::string options = "-D COMPACT_ITEMS=" + std::to_string(kCompactItems);
    cl::Kernel& count = ctx.kernel("stream_compaction.cl", "compact_count", Precision::Float, options);
    cl::Kernel& scan = ctx.kernel("stream_compaction.cl", "compact_scan_tiles", Precision::Float, options);
    cl::Kernel& scatter = ctx.kernel("stream_compaction.cl", "compact_scatter", Precision::Float, options);
    // One work-group size for all three kernels: the tiles of count and scatter must be the same.
    const std::size_t group =
        fitGroup(ctx, count, fitGroup(ctx, scan, fitGroup(ctx, scatter, compactionGroupSize(ctx))));
    const std::size_t tile = group * kCompactItems;
    const std::size_t tiles = (n + tile - 1) / tile;
    const cl::Buffer& tileCounts = s.tileCounts.reserve(ctx, tiles * sizeof(cl_uint), "compaction tile counts");
    if (!s.total()) s.total = ctx.buffer(sizeof(cl_uint), "compaction total");
    const cl_uint n32 = static_cast<cl_uint>(n), tiles32 = static_cast<cl_uint>(tiles);
    const auto scratch = cl::Local(group * sizeof(cl_uint));

    setArgs(count, 0, flags, n32, tileCounts, scratch);
    events.push_back(ctx.launch(count, cl::NDRange(tiles * group), cl::NDRange(group)));

    setArgs(scan, 0, tileCounts, tiles32, s.total, scratch);
    events.push_back(ctx.launch(scan, cl::NDRange(group), cl::NDRange(group)));

    if (indices) {
        if (countSlot) ctx.fill(*indices, 0xff, n * sizeof(cl_uint), "two-phase item list padding");
        setArgs(scatter, 0, flags, n32, tileCounts, *indices, scratch);
        events.push_back(ctx.launch(scatter, cl::NDRange(tiles * group), cl::NDRange(group)));
    }

    cl_uint total = 0;
    if (countSlot) {
        events.push_back(ctx.copy(s.total, countSlot->buffer, sizeof total, "copy compaction count", 0, countSlot->offset));
        return 0;
    }
    events.push_back(ctx.read(s.total, &total, sizeof total, "read compaction count"));
    return total;
}

}  // namespace

std::size_t compactFlags(Context& ctx, const cl::Buffer& flags, std::size_t n, const cl::Buffer& indices) {
    std::vector<cl::Event> events;
    return compact(ctx, flags, n, &indices, events);
}

std::size_t countFlags(Context& ctx, const cl::Buffer& flags, std::size_t n) {
    std::vector<cl::Event> events;
    return compact(ctx, flags, n, nullptr, events);
}

const char* phase2ArithmeticName(Phase2Arithmetic a) {
    switch (a) {
        case Phase2Arithmetic::None: return "none";
        case Phase2Arithmetic::Double: return "double";
        case Phase2Arithmetic::DoubleFloat: return "double-float";
        case Phase2Arithmetic::Host: return "host";
    }
    return "?";
}

bool mixedWithoutDouble(Context& ctx) {
    // The key is checked on every device, those without fp64 too.
    const std::string key = ctx.tuning().get("two_phase", "phase2", "double");
    if (key != "double" && key != "double-float" && key != "host")
        throw Error("the profile's [two_phase] phase2 = " + key + " is not one of double, double-float, host");
    if (!ctx.device().fp64) return true;
    if (const char* v = std::getenv("PORTACL_FORCE_DOUBLE_FLOAT"); v && *v && std::strcmp(v, "0") != 0) return true;
    return key != "double";
}

Phase2Arithmetic phase2Arithmetic(Context& ctx, Precision mode, bool hasDoubleFloatKernels) {
    if (mode == Precision::Float) return Phase2Arithmetic::None;
    if (mode == Precision::Double) {
        ctx.requirePrecision(Precision::Double, /*mixedOffered=*/true);
        return Phase2Arithmetic::Double;
    }
    if (!mixedWithoutDouble(ctx)) return Phase2Arithmetic::Double;
    const bool hostAsked = ctx.tuning().get("two_phase", "phase2", "double") == "host";
    return hasDoubleFloatKernels && !hostAsked ? Phase2Arithmetic::DoubleFloat : Phase2Arithmetic::Host;
}

std::vector<std::uint32_t> compactFlagsReference(const std::vector<std::uint8_t>& flags) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < flags.size(); ++i)
        if (flags[i]) out.push_back(static_cast<std::uint32_t>(i));
    return out;
}

namespace {

// Both phases; with counts, nothing waits (enqueueTwoPhase), else the queue is finished (runTwoPhase).
TwoPhaseReport dispatch(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels,
                        const TwoPhaseCountSlot* counts) {
    const Phase2Arithmetic arithmetic = phase2Arithmetic(ctx, mode, kernels.doubleFloat);
    // Phase 2 on the host needs the workload's serial phase 2, and the flagged items on the host.
    if (arithmetic == Phase2Arithmetic::Host && (!kernels.hostPhase2 || counts))
        throw Error("mixed precision on " + ctx.device().label() + " runs phase 2 without double, and " +
                    kernels.source + " has neither a double-float nor a host phase 2 for this call; use float precision");
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw Error("the two-phase dispatch handles at most 2^32 - 1 items, but " + std::to_string(n) + " were given");
    TwoPhaseReport report;
    report.mode = mode;
    report.items = n;
    report.phase2 = arithmetic;
    if (n == 0) return report;

    auto& s = ctx.state<TwoPhaseState>();
    const std::size_t group = itemGroupSize(ctx);
    const std::size_t perItem1 = std::max<std::size_t>(1, kernels.workItemsPerItem);
    const std::size_t perGroup1 = perItem1 > 1 ? std::max<std::size_t>(1, kernels.itemsPerGroup) : 1;
    const std::size_t perItem2 = kernels.phase2WorkItemsPerItem ? kernels.phase2WorkItemsPerItem : perItem1;
    const std::size_t perGroup2 =
        perItem2 > 1 ? std::max<std::size_t>(1, kernels.phase2WorkItemsPerItem ? kernels.phase2ItemsPerGroup : perGroup1) : 1;
    // One work-item per item (work-groups of the tuned size), or work-groups of perItem x perGroup
    // work-items holding perGroup items each.
    auto launchItems = [&](cl::Kernel& k, std::size_t items, std::size_t perItem, std::size_t perGroup) {
        if (perItem == 1) return ctx.launch(k, cl::NDRange(items), cl::NDRange(fitGroup(ctx, k, group)));
        const std::size_t local = perItem * perGroup;
        if (fitGroup(ctx, k, local) < local)
            throw Error("kernel " + kernelName(k) + " allows fewer than " +
                        std::to_string(local) + " work-items per work-group on " + ctx.device().label());
        return ctx.launch(k, cl::NDRange((items + perGroup - 1) / perGroup * local), cl::NDRange(local));
    };
    std::size_t phase2Count = n;
    cl_uint direct = 1;
    std::vector<cl::Event> phase1Events, compactEvents, phase2Events;

    if (mode != Precision::Double) {
        const cl::Buffer& flags = s.flags.reserve(ctx, n, "two-phase undecided flags");
        cl::Kernel& k1 = ctx.kernel(kernels.source, kernels.phase1, Precision::Float, kernels.options);
        setArgs(k1, 0, static_cast<cl_uint>(n), flags);
        if (kernels.setArgs) kernels.setArgs(k1, kTwoPhase1FirstArg);
        phase1Events.push_back(launchItems(k1, n, perItem1, perGroup1));
        if (mode == Precision::Float) {
            report.undecided = compact(ctx, flags, n, nullptr, compactEvents, counts);
            phase2Count = 0;
        } else {
            const cl::Buffer& items = s.items.reserve(ctx, n * sizeof(cl_uint), "two-phase item list");
            report.undecided = compact(ctx, flags, n, &items, compactEvents, counts);
            // Without the count on the host, phase 2 covers every item; the padding ends the rest.
            phase2Count = counts ? n : report.undecided;
            direct = 0;
            if (arithmetic == Phase2Arithmetic::Host) {
                // The flagged items to the host (the read waits for phase 1), then the serial phase 2.
                const auto start = std::chrono::steady_clock::now();
                std::vector<std::uint32_t> flagged;
                if (report.undecided > 0)
                    flagged = ctx.download<std::uint32_t>(items, report.undecided, "two-phase item list");
                kernels.hostPhase2(flagged);
                report.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                report.hostItems = flagged.size();
                report.phase2Items = flagged.size();
                phase2Count = 0;
            }
        }
    }

    if (phase2Count > 0) {
        const cl::Buffer& items = s.items.reserve(ctx, sizeof(cl_uint), "two-phase item list");
        const bool doubleFloat = arithmetic == Phase2Arithmetic::DoubleFloat;
        cl::Kernel& k2 = ctx.kernel(kernels.source, kernels.phase2, doubleFloat ? Precision::Float : Precision::Double,
                                    doubleFloat ? doubleFloatOptions(kernels.options) : kernels.options);
        setArgs(k2, 0, static_cast<cl_uint>(phase2Count), items, direct);
        if (kernels.setArgs) kernels.setArgs(k2, kTwoPhase2FirstArg);
        phase2Events.push_back(launchItems(k2, phase2Count, perItem2, perGroup2));
    }
    if (arithmetic != Phase2Arithmetic::Host) report.phase2Items = phase2Count;
    if (counts) return report;
    ctx.finish();

    for (const auto& e : phase1Events) report.phase1Seconds += eventSeconds(e);
    for (const auto& e : compactEvents) report.compactSeconds += eventSeconds(e);
    for (const auto& e : phase2Events) report.phase2Seconds += eventSeconds(e);
    return report;
}

}  // namespace

TwoPhaseReport runTwoPhase(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels) {
    return dispatch(ctx, mode, n, kernels, nullptr);
}

TwoPhaseReport TwoPhaseList::report(std::size_t n, std::size_t flagged) const {
    TwoPhaseReport r;
    r.mode = mode;
    r.items = n;
    r.undecided = runsPhase1() ? flagged : 0;
    r.phase2Items = mode == Precision::Double ? n : mode == Precision::Mixed ? flagged : 0;
    r.phase2 = phase2;
    if (phase2 == Phase2Arithmetic::Host) r.hostItems = r.phase2Items;
    return r;
}

std::size_t listPhase2Groups(Context& ctx) {
    const long perUnit = std::max(1L, ctx.tuning().getInt("two_phase", "list_phase2_groups_per_cu", 32, 1, 1L << 16));
    return static_cast<std::size_t>(perUnit) * std::max(1u, ctx.device().computeUnits);
}

TwoPhaseList twoPhaseList(Context& ctx, Precision mode, bool hasDoubleFloatKernels) {
    TwoPhaseList list;
    list.mode = mode;
    list.phase2 = phase2Arithmetic(ctx, mode, hasDoubleFloatKernels);
    list.boundedGroups = mode == Precision::Mixed ? listPhase2Groups(ctx) : 0;
    return list;
}

TwoPhaseReport enqueueTwoPhase(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels,
                               const TwoPhaseCountSlot& count) {
    return dispatch(ctx, mode, n, kernels, &count);
}

}  // namespace portacl

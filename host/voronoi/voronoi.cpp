// The device version: every frame's tracer hands its pending edges over, and all of them go to the
// device together through the engine's append-list two-phase dispatch (TwoPhaseList: float, then
// double for the flagged searches). Per wave: one write, the narrow and the wide searches' kernels
// (phase 1 in float and mixed mode, phase 2 in double mode), in mixed mode one phase-2 launch over
// the wave's flagged list, and one read, the wave's only host sync. Mixed mode on a device without
// fp64 (or with PORTACL_FORCE_DOUBLE_FLOAT=1) redoes the flagged searches on the host in double
// (Tracer::solve, the device kernel's twin) instead of the phase-2 launch. Frames are concatenated on the device:
// balls, grid cells and per-frame grid parameters. Host work per task (preparation, the geometry of
// the answers) runs on a pool of threads; the answers are recorded in wave order. When every frame
// is traced, the completeness pass (completeness_pass.cpp) may hand new starts back.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <future>
#include <memory>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/host_cores.hpp"
#include "portacl/runtime/host_pool.hpp"
#include "portacl/runtime/log.hpp"
#include "portacl/runtime/two_phase.hpp"
#include "voronoi/canonical_order.hpp"
#include "voronoi/device_state.hpp"
#include "voronoi/tracer.hpp"

namespace portacl::voronoi {

using namespace device;

namespace {

constexpr float kAllBalls = 1e30f;  // a search radius the kernel reads as "every ball" (>= 1e29)

// Byte offsets of a wave's arrays in its one device buffer, each part aligned to 128 bytes: the input
// (tasks (int4), frames (int), starts and radii in float and/or double), the flagged count, then the
// answers (int2) and the flagged list (uint). The host writes [0, written): the input
// and the count, zeroed; it reads [counts, read): the count and the answers.
struct WaveLayout {
    static constexpr std::size_t kCountsBytes = 128;
    std::size_t tasks = 0, frames = 0, startF = 0, radF = 0, startD = 0, radD = 0, counts = 0, answers = 0, list = 0,
                bytes = 0;
    WaveLayout(std::size_t n, bool useFloat, bool useDouble) {
        const auto part = [&](std::size_t size) {
            const std::size_t at = bytes;
            bytes += (size + 127) / 128 * 128;
            return at;
        };
        tasks = part(n * sizeof(cl_int4));
        frames = part(n * sizeof(cl_int));
        if (useFloat) startF = part(n * sizeof(cl_float4)), radF = part(n * sizeof(float));
        if (useDouble) startD = part(n * sizeof(cl_double4)), radD = part(n * sizeof(double));
        counts = part(kCountsBytes);
        answers = part(n * sizeof(cl_int2));
        list = part(n * sizeof(cl_uint));
    }
    std::size_t written() const { return counts + kCountsBytes; }
    std::size_t read() const { return answers - counts; }  // + the answers
};

// The host threads, kept with the context (a call on a small structure must not pay for starting
// them); as many as the context's share of the host (ContextOptions::hostThreads).
struct ContextPool {
    std::unique_ptr<HostPool> pool;
};
// PORTACL_VORONOI_THREADS if set, else `share` (ContextOptions::hostThreads) when given, else the
// usable cores; at most 16 but for the first.
unsigned tracerThreads(unsigned share) {
    if (const char* env = std::getenv("PORTACL_VORONOI_THREADS")) {
        const long v = std::strtol(env, nullptr, 10);
        if (v >= 1) return static_cast<unsigned>(std::min(v, 256L));
    }
    return std::clamp(share ? share : portacl::usableCores(), 1u, 16u);
}
HostPool& contextPool(Context& ctx) {
    ContextPool& p = ctx.state<ContextPool>();
    if (!p.pool) p.pool = std::make_unique<HostPool>(tracerThreads(ctx.options().hostThreads));
    return *p.pool;
}

// A [voronoi] tunable: the caller's value (> 0), else PORTACL_VORONOI_<KEY> (for trying values on a
// device), else the device's profile; the last two must lie in [lo, hi] and, for the search splits
// (`powerOfTwo`), be powers of two, as the kernels' reductions need.
long tunable(Context& ctx, int given, const char* key, const char* env, long fallback, long hi, bool powerOfTwo, long lo = 1) {
    if (given > 0) return given;
    if (const char* v = std::getenv(env)) {
        char* end = nullptr;
        const long x = std::strtol(v, &end, 10);
        if (end == v || *end != '\0' || x < lo || x > hi || (powerOfTwo && (x & (x - 1)) != 0))
            throw Error(std::string(env) + " must be " + (powerOfTwo ? "a power of two" : "a whole number") + " from " +
                        std::to_string(lo) + " to " + std::to_string(hi));
        return x;
    }
    return ctx.tuning().getInt("voronoi", key, fallback, lo, hi, powerOfTwo);
}

// Largest power of two not above x (at least 1).
std::size_t powerOfTwoBelow(long x) {
    std::size_t p = 1;
    while (static_cast<long>(p) * 2 <= x) p *= 2;
    return p;
}

// How the searches are split over work-items ([voronoi] in the device's profile, PORTACL_VORONOI_*
// overrides): powers of two, within the device's work-group limit.
struct SearchShape {
    std::size_t lanes = 1;           // work-items per narrow search (1: one work-item per search)
    std::size_t group = 1;           // work-group of the narrow kernels (lanes x searches per group)
    std::size_t flaggedLanes = 1;    // work-items per flagged narrow search in phase 2 of mixed mode
    std::size_t wideGroup = 64;      // work-items per wide search
    std::size_t wideCandidates = 512;  // searches with more candidates are wide
    bool prune = false;                // double searches skip the balls that cannot end the edge first
    std::size_t groupsPerUnit = 0;     // work-groups per compute unit a one-work-item launch has at least
    std::size_t itemGroup = 0;         // work-group of a one-work-item launch, at most (0: the engine's item size)
    std::string buildOptions;          // [voronoi] build_options (a vendor compiler that miscompiles the kernels)
    std::string describe() const {
        return "lanes " + std::to_string(lanes) + ", group " + std::to_string(group) + ", flagged lanes " +
               std::to_string(flaggedLanes) + ", wide group " + std::to_string(wideGroup) + ", wide candidates " +
               std::to_string(wideCandidates) + ", prune " + std::to_string(prune ? 1 : 0) +
               (groupsPerUnit ? ", groups per unit " + std::to_string(groupsPerUnit) : "") +
               (itemGroup ? ", item group " + std::to_string(itemGroup) : "");
    }
    std::string kernelOptions() const {
        return "-D VOR_LANES=" + std::to_string(lanes) + " -D VOR_GROUP=" + std::to_string(group) +
               " -D VOR_FLAGGED=" + std::to_string(flaggedLanes) + " -D VOR_WIDE=" + std::to_string(wideGroup) +
               " -D VOR_PRUNE=" + std::to_string(prune ? 1 : 0) + (buildOptions.empty() ? "" : " " + buildOptions);
    }
};

SearchShape searchShape(Context& ctx, const SearchTuning& t) {
    const long maxGroup = static_cast<long>(ctx.device().maxWorkGroupSize);
    const auto fit = [&](long x) { return powerOfTwoBelow(std::min(x, maxGroup)); };
    SearchShape s;
    const long split = 1L << 16;  // a work-group's work-items, at most (the device's limit then applies)
    s.wideCandidates = static_cast<std::size_t>(
        tunable(ctx, t.wideCandidates, "wide_candidates", "PORTACL_VORONOI_WIDE_CANDIDATES", 512, 1L << 30, false));
    s.wideGroup = std::max<std::size_t>(2, fit(tunable(ctx, t.wideGroup, "wide_group", "PORTACL_VORONOI_WIDE_GROUP", 64, split, true)));
    s.lanes = fit(tunable(ctx, t.lanes, "lanes", "PORTACL_VORONOI_LANES", 1, split, true));
    s.group = s.lanes == 1 ? 1 : std::max(s.lanes, fit(tunable(ctx, t.group, "group", "PORTACL_VORONOI_GROUP", 64, split, true)));
    // 1 (or the narrow lanes): the flagged searches run as the narrow ones.
    s.flaggedLanes = fit(tunable(ctx, t.flaggedLanes, "flagged_lanes", "PORTACL_VORONOI_FLAGGED_LANES", 1, split, true));
    if (s.flaggedLanes < 2) s.flaggedLanes = s.lanes;
    s.prune = t.prune != 0 ? t.prune > 0 : tunable(ctx, 0, "prune", "PORTACL_VORONOI_PRUNE", 0, 1, false, 0) == 1;
    s.groupsPerUnit = static_cast<std::size_t>(
        tunable(ctx, t.groupsPerUnit, "groups_per_unit", "PORTACL_VORONOI_GROUPS_PER_UNIT", 0, 1024, false, 0));
    const long itemGroup = tunable(ctx, t.itemGroup, "item_group", "PORTACL_VORONOI_ITEM_GROUP", 0, split, false, 0);
    s.itemGroup = itemGroup > 0 ? fit(itemGroup) : 0;
    s.buildOptions = ctx.tuning().get("voronoi", "build_options", "");
    return s;
}

// The precision the searches run in: mixed runs as double where the device's profile says so
// ([voronoi] mixed_phases = 1; a device without fp64 keeps its two phases, phase 2 on the host).
Precision searchPrecision(Context& ctx, const Options& o) {
    if (o.precision != Precision::Mixed || !ctx.device().fp64) return o.precision;
    const long phases = tunable(ctx, o.tuning.mixedPhases, "mixed_phases", "PORTACL_VORONOI_MIXED_PHASES", 2, 2, false);
    return phases == 1 ? Precision::Double : Precision::Mixed;
}

// The wave kernels of this mode and split (the context creates each once). Mixed mode's phase 2 is one
// launch of narrow2 over the wave's flagged list, narrow and wide searches alike; `mixedFlagged`: it
// gives each flagged search a work-group (SearchShape::flaggedLanes).
WaveKernels buildWaveKernels(Context& ctx, const TwoPhaseList& twoPhase, const SearchShape& shape) {
    const Precision mode = twoPhase.mode;
    const std::string options = shape.kernelOptions();
    WaveKernels k;
    const bool mixedFlagged = mode == Precision::Mixed && shape.flaggedLanes != shape.lanes;
    if (twoPhase.runsPhase1()) {
        k.narrow1 = ctx.kernel("voronoi.cl", "voronoi_edges_phase1", Precision::Float, options);
        k.wide1 = ctx.kernel("voronoi.cl", "voronoi_edges_wide_phase1", Precision::Float, options);
    }
    if (twoPhase.runsPhase2()) {
        k.narrow2 = ctx.kernel("voronoi.cl", mixedFlagged ? "voronoi_edges_flagged_phase2" : "voronoi_edges_phase2",
                               Precision::Double, options);
        if (mode == Precision::Double) k.wide2 = ctx.kernel("voronoi.cl", "voronoi_edges_wide_phase2", Precision::Double, options);
    }
    // One work-item per search (lanes 1): work-groups of [voronoi] item_group, else of the engine's item
    // size, as the kernels allow.
    k.itemGroup = shape.itemGroup ? shape.itemGroup
                                  : static_cast<std::size_t>(std::max(1L, ctx.tuning().getInt("two_phase", "item_work_group", 128, 1, 1L << 16)));
    for (const cl::Kernel* kernel : {&k.narrow1, &k.narrow2})
        if ((*kernel)())
            k.itemGroup = std::min(k.itemGroup, workGroupLimit(*kernel, ctx.device().device));
    k.minGroups = shape.groupsPerUnit * std::max(1u, ctx.device().computeUnits);
    return k;
}

// The wave kernels for `shape`, shrinking the shape where a kernel of fixed work-group size
// (reqd_work_group_size) allows fewer work-items on this device than the profile asks (llvmpipe
// allows 32 for the wide searches): the largest power of two the kernel allows.
WaveKernels waveKernels(Context& ctx, const TwoPhaseList& twoPhase, SearchShape& shape) {
    for (;;) {
        WaveKernels k = buildWaveKernels(ctx, twoPhase, shape);
        const auto allowed = [&](const cl::Kernel& kernel) {
            return kernel() ? workGroupLimit(kernel, ctx.device().device) : ~std::size_t(0);
        };
        const bool mixedFlagged = twoPhase.mode == Precision::Mixed && shape.flaggedLanes != shape.lanes;
        const std::size_t wide = std::min(allowed(k.wide1), allowed(k.wide2));
        const std::size_t narrow = std::min(allowed(k.narrow1), mixedFlagged ? ~std::size_t(0) : allowed(k.narrow2));
        const std::size_t flagged = mixedFlagged ? allowed(k.narrow2) : ~std::size_t(0);
        SearchShape fitted = shape;
        if (fitted.wideGroup > wide) fitted.wideGroup = powerOfTwoBelow(static_cast<long>(wide));
        if (fitted.group > 1 && fitted.group > narrow) {
            fitted.group = powerOfTwoBelow(static_cast<long>(narrow));
            fitted.lanes = std::min(fitted.lanes, fitted.group);
            if (fitted.group < 2) fitted.group = fitted.lanes = 1;
        }
        if (mixedFlagged && fitted.flaggedLanes > flagged) fitted.flaggedLanes = powerOfTwoBelow(static_cast<long>(flagged));
        if (fitted.wideGroup < 2)
            throw Error("the Voronoi wide searches need work-groups of at least 2 work-items, but kernel voronoi_edges_wide_phase" +
                        std::string(allowed(k.wide1) < 2 ? "1" : "2") + " allows " + std::to_string(wide) + " on " +
                        ctx.device().label());
        if (fitted.describe() == shape.describe()) return k;
        shape = fitted;
    }
}

// A search's answer word as the host reads it: the end ball, and the retry radius in float whose sign
// bit says float could not be trusted (phase 1; only float mode keeps it as `uncertain`).
EdgeAnswer decodeAnswer(const cl_int2 a, const Precision mode) {
    const std::uint32_t bits = static_cast<std::uint32_t>(a.s[1]);
    const std::uint32_t radiusBits = bits & 0x7fffffffu;
    float retry;
    std::memcpy(&retry, &radiusBits, sizeof retry);
    EdgeAnswer ans;
    ans.endBall = a.s[0];
    ans.uncertain = mode == Precision::Float && (bits >> 31) != 0;
    if (retry > 0) ans.retryRadius = retry >= 1e29f ? kUnboundedRadius : retry;
    return ans;
}

// Launches `searches` searches of `perSearch` work-items each, `perGroup` searches per work-group
// (perSearch 1: one work-item per search, work-groups of wk.itemGroupFor); phase 2 (`phase2` given) on
// its grid, bounded in mixed mode (the kernel then loops over the flagged list).
void launchSearches(Context& ctx, const cl::Kernel& k, std::size_t searches, std::size_t perSearch, std::size_t perGroup,
                    const WaveKernels& wk, const TwoPhaseList* phase2 = nullptr) {
    if (perSearch == 1) perGroup = std::max<std::size_t>(1, wk.itemGroupFor(searches));
    std::size_t groups = (searches + perGroup - 1) / perGroup;
    if (phase2) groups = phase2->phase2Groups(groups);
    const std::size_t local = perSearch * perGroup;
    ctx.launch(k, cl::NDRange(groups * local), cl::NDRange(local));
}

}  // namespace

std::vector<Diagram> computeFrames(Context& ctx, const std::vector<std::vector<io::Ball>>& frames, const Options& options) {
    const Precision mode = searchPrecision(ctx, options);
    // The engine's append-list two-phase dispatch: which phases run, phase 2's `direct` and grid.
    const TwoPhaseList twoPhase = twoPhaseList(ctx, mode);
    const auto wallStart = std::chrono::steady_clock::now();
    const char* const timesEnv = std::getenv("PORTACL_VORONOI_TIMES");
    const bool timesWanted = timesEnv != nullptr;
    PhaseTick tick(timesWanted, timesWanted && std::strcmp(timesEnv, "cpu") == 0);
    const long faultsBefore = timesWanted ? threadPageFaults() : 0;
    HostPhases times;
    HostPool& pool = contextPool(ctx);
    std::vector<std::unique_ptr<Tracer>> tracers(frames.size());
    pool.forRange(frames.size(), 1, [&](std::size_t b, std::size_t e) {
        for (std::size_t f = b; f < e; ++f) tracers[f] = std::make_unique<Tracer>(frames[f]);
    });
    std::size_t totalBalls = 0, totalCells = 0;
    for (const auto& tr : tracers) {
        totalBalls += tr->balls().size();
        totalCells += tr->grid().cellStart.size();
    }
    ctx.checkFits(totalBalls * (2 * sizeof(cl_double4) + 2 * sizeof(cl_float4) + sizeof(cl_int)) + totalCells * sizeof(cl_int),
                  "the Voronoi balls and grids");

    const bool useFloat = twoPhase.runsPhase1(), useDouble = twoPhase.runsPhase2();
    DeviceState& ds = ctx.state<DeviceState>();
    const std::shared_ptr<const void> keep = ctx.stateHandle<DeviceState>();  // holds the host copies of the writes
    if (useFloat) ds.fd.upload(ctx, tracers, keep);
    if (useDouble) ds.dd.upload(ctx, tracers, keep);
    ds.cellStart.clear(), ds.cellIndex.clear(), ds.dims.clear(), ds.offsets.clear();
    std::size_t ballBase = 0;
    for (const auto& tr : tracers) {
        const BallGrid& g = tr->grid();
        ds.dims.push_back(cl_int4{{g.dims[0], g.dims[1], g.dims[2], static_cast<cl_int>(ds.cellStart.size())}});
        ds.offsets.push_back(cl_int2{{static_cast<cl_int>(ballBase), static_cast<cl_int>(ds.cellIndex.size())}});
        ballBase += tr->balls().size();
        ds.cellStart.insert(ds.cellStart.end(), g.cellStart.begin(), g.cellStart.end());
        ds.cellIndex.insert(ds.cellIndex.end(), g.cellBalls.begin(), g.cellBalls.end());
    }
    writeKept(ctx, ds.cellStartBuf, ds.cellStart, "voronoi grid cells", keep);
    writeKept(ctx, ds.cellIndexBuf, ds.cellIndex, "voronoi grid ball indices", keep);
    writeKept(ctx, ds.dimsBuf, ds.dims, "voronoi frame grid shapes", keep);
    writeKept(ctx, ds.offsetsBuf, ds.offsets, "voronoi frame offsets", keep);
    const FrameData<cl_float4, float>& fd = ds.fd;
    const FrameData<cl_double4, double>& dd = ds.dd;

    SearchShape shape = searchShape(ctx, options.tuning);
    const std::size_t wideCandidates = shape.wideCandidates;
    // The kernels and their arguments that stay for the whole computation (the frames' data; the
    // part, and phase 2's `direct`); a wave sets its count, offset and buffer.
    WaveKernels wk = waveKernels(ctx, twoPhase, shape);
    times.shape = shape.describe();
    for (int part = 0; part < 2; ++part) {
        if (useFloat) {
            cl::Kernel& k = part == 0 ? wk.narrow1 : wk.wide1;
            setArg(k, 4, fd.balls.buffer()), setArg(k, 5, ds.cellStartBuf.buffer()), setArg(k, 6, fd.cellBalls.buffer());
            setArg(k, 7, ds.cellIndexBuf.buffer()), setArg(k, 8, fd.grid.buffer()), setArg(k, 9, ds.dimsBuf.buffer());
            setArg(k, 10, ds.offsetsBuf.buffer()), setArg(k, 11, fd.rmax.buffer());
            // Float: travel below 1e-5 is a tie with the start; anything within 1e-3 (relative) of a
            // decision is flagged (phase 2 in mixed mode).
            setArg(k, 12, 1e-5f), setArg(k, 13, 1e-3f);
        }
        if (useDouble && (part == 0 || mode == Precision::Double)) {
            cl::Kernel& k = part == 0 ? wk.narrow2 : wk.wide2;
            setArg(k, 0, twoPhase.direct());
            setArg(k, 5, dd.balls.buffer()), setArg(k, 6, ds.cellStartBuf.buffer()), setArg(k, 7, dd.cellBalls.buffer());
            setArg(k, 8, ds.cellIndexBuf.buffer()), setArg(k, 9, dd.grid.buffer()), setArg(k, 10, ds.dimsBuf.buffer());
            setArg(k, 11, ds.offsetsBuf.buffer()), setArg(k, 12, dd.rmax.buffer());
            setArg(k, 13, 1e-9), setArg(k, 14, 0.0);
        }
    }
    times.setup += lap(tick);

    std::vector<char> finished(tracers.size(), 0);  // traced, and the completeness pass added no start
    // Each frame's output order as worked out during its last completeness pass, and the vertex and
    // edge counts it was worked out from (the order holds while they are unchanged).
    std::vector<CanonicalOrder> orders(tracers.size());
    std::vector<std::array<std::size_t, 2>> orderedSizes(tracers.size(), {{SIZE_MAX, SIZE_MAX}});
    // The completeness pass in double where the device has fp64 (its frames' data uploaded when the
    // mode has none in double), in float otherwise.
    // (A mixed run whose phase 2 is on the host takes the float pass, as it does without fp64.)
    const bool passDouble = ctx.device().fp64 && !twoPhase.phase2OnHost();
    bool passDataReady = passDouble ? useDouble : useFloat;
    // Per frame, as a run of that frame alone counts them (a batch groups frames differently on
    // different device counts): the searches phase 1 flagged, and the waves with its searches.
    std::vector<std::size_t> undecided(tracers.size(), 0);
    std::vector<int> frameWaves(tracers.size(), 0);
    std::vector<cl_uint> flaggedList;
    int waves = 0;
    std::vector<EdgeTask> wave;
    std::vector<int> owner, order, position, seeding;
    std::vector<char> seeded;
    std::vector<std::size_t> frameFirst;  // where each frame's tasks start in the wave (they are consecutive)
    std::vector<char> isWide;
    std::vector<cl_int2>& answers = ds.answers;
    std::vector<EdgeAnswer> answered;
    std::vector<ResolvedAnswer> resolved;
    while (true) {
        // The wave: every frame's pending edges; a frame with none starts its next component(s).
        wave.clear();
        owner.clear();
        frameFirst.clear();
        // The frames' starts in parallel (each frame's on one thread; a lone frame's on every thread).
        seeding.clear();
        for (std::size_t f = 0; f < tracers.size(); ++f)
            if (!finished[f] && !tracers[f]->hasPending()) seeding.push_back(static_cast<int>(f));
        seeded.assign(seeding.size(), 0);
        if (seeding.size() == 1) {
            seeded[0] = tracers[seeding[0]]->seedNextComponent(&pool);
        } else {
            pool.forRange(seeding.size(), 1, [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) seeded[i] = tracers[seeding[i]]->seedNextComponent();
            });
        }
        for (std::size_t i = 0; i < seeding.size(); ++i)
            if (!seeded[i] && !options.completenessPass) finished[seeding[i]] = 1;
        for (std::size_t f = 0; f < tracers.size(); ++f) {
            if (finished[f] || !tracers[f]->hasPending()) continue;
            frameFirst.push_back(wave.size());
            tracers[f]->movePendingTo(wave);
            owner.resize(wave.size(), static_cast<int>(f));
        }
        frameFirst.push_back(wave.size());
        times.seed += lap(tick);
        if (wave.empty()) {
            // Every frame is traced: the completeness pass; its new starts are traced in more waves.
            if (!options.completenessPass) break;
            if (!passDataReady) {
                if (passDouble) ds.dd.upload(ctx, tracers, keep);
                else ds.fd.upload(ctx, tracers, keep);
                passDataReady = true;
            }
            // The output order of each frame's diagram as it stands, worked out on a thread of its own while
            // the pass builds its faces and the device filters them: the pass adds nothing on nearly
            // every input (a frame it changes is ordered again at the end).
            std::vector<int> passFrames;
            for (std::size_t f = 0; f < tracers.size(); ++f)
                if (!finished[f]) passFrames.push_back(static_cast<int>(f));
            // With a pool of one thread (a batch's member per core) it runs on the calling thread when the
            // pass needs it: a thread started per call would only take a core from another member.
            std::future<void> ordering = std::async(pool.threads() > 1 ? std::launch::async : std::launch::deferred, [&] {
                for (int f : passFrames) {
                    orders[f] = canonicalOrder(tracers[f]->vertices(), tracers[f]->edges());
                    orderedSizes[f] = {tracers[f]->vertices().size(), tracers[f]->edges().size()};
                }
            });
            const auto beforeChanges = [&] { ordering.get(); };
            const bool more = passDouble ? completenessPass(ctx, ds, ds.dd, shape.kernelOptions(), tracers, finished, pool, times, tick, beforeChanges)
                                         : completenessPass(ctx, ds, ds.fd, shape.kernelOptions(), tracers, finished, pool, times, tick, beforeChanges);
            if (!more) break;
            continue;
        }
        const std::size_t n = wave.size();
        // Device order: the searches with few candidates first, then the wide ones; position[i] is
        // task i's place on the device (answers are accepted in wave order).
        // A search has at most its frame's balls as candidates: a frame of no more balls than
        // wideCandidates has no wide search, and its candidates are not counted.
        isWide.resize(n);
        pool.forRange(n, 1024, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                const Tracer& tr = *tracers[owner[i]];
                isWide[i] = tr.grid().cellBalls.size() > wideCandidates && tr.candidateCount(wave[i]) > wideCandidates;
            }
        });
        order.clear();
        position.assign(n, 0);
        std::size_t narrow = 0;
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t i = 0; i < n; ++i) {
                if (isWide[i] != (pass == 1)) continue;
                position[i] = static_cast<int>(order.size());
                order.push_back(static_cast<int>(i));
                if (pass == 0) ++narrow;
            }
        // The wave's input, packed for one transfer (WaveLayout), the flagged count zeroed.
        const WaveLayout at(n, useFloat, useDouble);
        ds.input.resize(at.written() / sizeof(cl_double4) + 1);
        unsigned char* const in = reinterpret_cast<unsigned char*>(ds.input.data());
        cl_int4* const tasks = reinterpret_cast<cl_int4*>(in + at.tasks);
        cl_int* const taskFrames = reinterpret_cast<cl_int*>(in + at.frames);
        cl_float4* const startsF = reinterpret_cast<cl_float4*>(in + at.startF);
        float* const radiiF = reinterpret_cast<float*>(in + at.radF);
        cl_double4* const startsD = reinterpret_cast<cl_double4*>(in + at.startD);
        double* const radiiD = reinterpret_cast<double*>(in + at.radD);
        std::memset(in + at.counts, 0, WaveLayout::kCountsBytes);
        pool.forRange(n, 1024, [&](std::size_t b, std::size_t e) {
            for (std::size_t p = b; p < e; ++p) {
                const EdgeTask& t = wave[order[p]];
                const Tracer& tr = *tracers[owner[order[p]]];
                tasks[p] = cl_int4{{t.tri[0], t.tri[1], t.tri[2], t.bs}};
                taskFrames[p] = owner[order[p]];
                const Vertex& v = tr.vertices()[t.from];
                const io::Ball& a = tr.balls()[t.tri[0]];
                // The start sphere relative to the first ball's centre, computed in double.
                const double rel[4] = {v.x - a.x, v.y - a.y, v.z - a.z, v.r};
                const double R = t.searchRadius == kUnboundedRadius ? kAllBalls : t.searchRadius;
                if (useFloat) {
                    startsF[p] = cl_float4{{float(rel[0]), float(rel[1]), float(rel[2]), float(rel[3])}};
                    radiiF[p] = static_cast<float>(R);
                }
                if (useDouble) {
                    startsD[p] = cl_double4{{rel[0], rel[1], rel[2], rel[3]}};
                    radiiD[p] = R;
                }
            }
        });
        // One write that does not wait: the input stays unchanged until the answers are read below.
        ds.waveBuf.reserve(ctx, at.bytes, "voronoi wave");
        ctx.writeAsync(ds.waveBuf.buffer(), in, at.written(), "upload voronoi wave input", keep);
        times.prepare += lap(tick);

        // The wave's kernel arguments: where its parts lie in the wave buffer, and its searches.
        const cl_uint8 waveAt{{static_cast<cl_uint>(at.tasks), static_cast<cl_uint>(at.frames), 0, 0,
                               static_cast<cl_uint>(at.counts), static_cast<cl_uint>(at.answers),
                               static_cast<cl_uint>(at.list), 0}};
        cl_uint8 waveAtF = waveAt, waveAtD = waveAt;
        waveAtF.s[2] = static_cast<cl_uint>(at.startF), waveAtF.s[3] = static_cast<cl_uint>(at.radF);
        waveAtD.s[2] = static_cast<cl_uint>(at.startD), waveAtD.s[3] = static_cast<cl_uint>(at.radD);
        const auto setWave = [&](cl::Kernel& k, cl_uint a, std::size_t count, cl_uint first, const cl_uint8& offsets) {
            setArg(k, a + 0, static_cast<cl_uint>(count));
            setArg(k, a + 1, first);
            setArg(k, a + 2, ds.waveBuf.buffer());
            setArg(k, a + 3, offsets);
        };
        const std::size_t answersAt = at.read() / sizeof(cl_int2);
        answers.resize(answersAt + n);
        answered.resize(n);
        // The narrow searches, then the wide ones; each part's `first` is its offset into the wave's
        // arrays. Phase 1 (float) in float and mixed mode; phase 2 (double) in double mode on every
        // search of each part, in mixed mode once on the wave's flagged list (both parts append to it).
        for (int part = 0; part < 2; ++part) {
            const std::size_t count = part == 0 ? narrow : n - narrow;
            if (count == 0) continue;
            const cl_uint first = part == 0 ? 0 : static_cast<cl_uint>(narrow);
            if (useFloat) {
                cl::Kernel& k1 = part == 0 ? wk.narrow1 : wk.wide1;
                setWave(k1, 0, count, first, waveAtF);
                if (part == 0) launchSearches(ctx, k1, count, shape.lanes, shape.group / shape.lanes, wk);
                else launchSearches(ctx, k1, count, shape.wideGroup, 1, wk);
            }
            if (mode == Precision::Double) {
                cl::Kernel& k2 = part == 0 ? wk.narrow2 : wk.wide2;
                setWave(k2, 1, count, first, waveAtD);
                if (part == 1) launchSearches(ctx, k2, count, shape.wideGroup, 1, wk, &twoPhase);
                else launchSearches(ctx, k2, count, shape.lanes, shape.group / shape.lanes, wk, &twoPhase);
            }
        }
        if (mode == Precision::Mixed && twoPhase.runsPhase2()) {
            // The flagged count is on the device only: a bounded grid loops over the list.
            setWave(wk.narrow2, 1, n, 0, waveAtD);
            if (shape.flaggedLanes != shape.lanes) launchSearches(ctx, wk.narrow2, n, shape.flaggedLanes, 1, wk, &twoPhase);
            else launchSearches(ctx, wk.narrow2, n, shape.lanes, shape.group / shape.lanes, wk, &twoPhase);
        }
        times.enqueue += lap(tick);
        // The wave's one host sync: the flagged count and the answers.
        ctx.read(ds.waveBuf.buffer(), answers.data(), at.read() + n * sizeof(cl_int2), "download voronoi answers", at.counts);
        const std::size_t flagged = twoPhase.report(n, static_cast<cl_uint>(answers[0].s[0])).undecided;
        if (tracers.size() == 1) {
            undecided[0] += flagged;
        } else if (flagged > 0) {
            // Whose searches they were: the flagged list holds their places on the device.
            flaggedList.resize(flagged);
            ctx.read(ds.waveBuf.buffer(), flaggedList.data(), flagged * sizeof(cl_uint), "download voronoi flagged list", at.list);
            for (const cl_uint p : flaggedList) ++undecided[owner[order[p]]];
        }
        for (std::size_t i = 0; i < n; ++i)
            if (i == 0 || owner[i] != owner[i - 1]) ++frameWaves[owner[i]];  // a frame's tasks are consecutive
        times.device += lap(tick, true);

        // The answers' geometry in parallel, then recorded in wave order. With a frame per host thread
        // or more, each answer's geometry is worked out just before it is recorded (on the frame's
        // thread: the same answers, and none for an edge already traced from its other end).
        const bool resolveInCommit = frameFirst.size() - 1 >= pool.threads();
        if (!resolveInCommit) resolved.resize(n);
        pool.forRange(n, 256, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                const cl_int2 a = answers[answersAt + position[i]];
                const bool flaggedByFloat = (static_cast<std::uint32_t>(a.s[1]) >> 31) != 0;
                EdgeAnswer& ans = answered[i];
                ans = decodeAnswer(a, mode);
                // Phase 2 on the host (a device without fp64): the flagged search again, in double,
                // as the device's double kernel does it.
                if (twoPhase.phase2OnHost() && flaggedByFloat) {
                    ans = tracers[owner[i]]->solve(wave[i]);
                    // The answer word carries a retry radius in float (as the device's phase 2 writes it).
                    if (ans.retryRadius > 0 && ans.retryRadius != kUnboundedRadius)
                        ans.retryRadius = static_cast<float>(ans.retryRadius);
                }
                if (!resolveInCommit) resolved[i] = tracers[owner[i]]->resolve(wave[i], ans);
            }
        });
        times.resolve += lap(tick);
        // Recorded in wave order within each frame; the frames (independent) in parallel.
        pool.forRange(frameFirst.size() - 1, 1, [&](std::size_t b, std::size_t e) {
            for (std::size_t w = b; w < e; ++w) {
                Tracer& tr = *tracers[owner[frameFirst[w]]];
                // The next frame's tables on their way to the cache while this one's answers are
                // recorded (a call's frames take turns: each comes back to a cache the others filled).
                if (w + 1 < e) tracers[owner[frameFirst[w + 1]]]->prefetchTables(frameFirst[w + 2] - frameFirst[w + 1]);
                const std::size_t known = tr.vertices().size();  // the vertices from before the wave
                for (std::size_t i = frameFirst[w]; i < frameFirst[w + 1]; ++i)
                    if (resolveInCommit) tr.resolveAndCommit(wave[i], answered[i], known);
                    else tr.commit(wave[i], answered[i], resolved[i]);
            }
        });
        times.commit += lap(tick);
        times.wideSearches += n - narrow;
        if (std::getenv("PORTACL_VORONOI_WAVES")) {
            std::size_t retries = 0, unbounded = 0, wider = 0, first = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const auto& a = answered[i];
                retries += a.retryRadius > 0, unbounded += a.retryRadius == kUnboundedRadius;
                wider += std::fabs(a.retryRadius - 4 * wave[i].searchRadius) < 1e-3;
                first += a.retryRadius > 0 && a.retryRadius != kUnboundedRadius && wave[i].searchRadius == tracers[owner[i]]->initialRadius(tracers[owner[i]]->vertices()[wave[i].from].r);
            }
            char line[256];
            std::snprintf(line, sizeof line, "wave %d: %zu searches (%zu wide), %zu retries (%zu of every ball, %zu 4R, %zu from a first search)", waves, n, n - narrow, retries, unbounded, wider, first);
            log(LogLevel::Debug, line);
        }
        ++waves;
    }
    std::vector<Diagram> out(tracers.size());
    pool.forRange(tracers.size(), 1, [&](std::size_t b, std::size_t e) {
        for (std::size_t f = b; f < e; ++f) {
            const bool ordered = orderedSizes[f][0] == tracers[f]->vertices().size() && orderedSizes[f][1] == tracers[f]->edges().size();
            out[f] = tracers[f]->finish();
            out[f].waves = frameWaves[f];
            if (ordered) applyOrder(out[f], orders[f]);
            else canonicalize(out[f]);
        }
    });
    times.finish += lap(tick);
    if (timesWanted) {
        times.hostCpu = tick.hostCpu, times.deviceCpu = tick.deviceCpu, times.hostProcessCpu = tick.hostProcessCpu;
        times.pageFaults = threadPageFaults() - faultsBefore;
        times.cpuPhases = tick.cpuPhases;
        times.print(waves, pool.threads(), tracers.size());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    for (auto& d : out) d.seconds = seconds / tracers.size();
    for (std::size_t f = 0; f < out.size(); ++f) {
        out[f].phase2Edges = undecided[f];
        out[f].phase2 = twoPhase.phase2;
    }
    return out;
}

Diagram compute(Context& ctx, const std::vector<io::Ball>& balls, const Options& options) {
    return std::move(computeFrames(ctx, {balls}, options).front());
}

}  // namespace portacl::voronoi

#include "portacl/predicates.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/growable_buffer.hpp"
#include "portacl/runtime/kernel_args.hpp"
#include "portacl/runtime/profiler.hpp"

namespace portacl::predicates {

namespace {

// The batch's scratch, kept per context and grown on demand (repeated calls allocate nothing): the
// append list's counter, the list (room for every query: mixed lists what float cannot decide), and
// the padded copy of a packed cloud.
struct BatchState {
    cl::Buffer listCount;
    GrowableBuffer list, paddedPoints;
};

std::size_t workGroup(Context& ctx, const cl::Kernel& k) {
    const long wanted = ctx.tuning().getInt("predicates", "work_group", 256, 1, 1L << 16);
    return std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(wanted),
                                                          workGroupLimit(k, ctx.device().device)));
}

// Whether a packed cloud of `points` is copied into a padded one first (the profile's [predicates]
// pad_points): then every gathered point is one aligned 16-byte load instead of three 4-byte ones,
// for one pass over the cloud. Only where the batch gathers at least as many points as the cloud holds.
bool padsPackedCloud(Context& ctx, std::size_t points, std::size_t queryCount, std::size_t arity) {
    return ctx.tuning().getInt("predicates", "pad_points", 0, 0, 1) == 1 && points <= queryCount * arity;
}

std::string pointOptions(bool padded) { return padded ? "-D PRED_POINT_STRIDE=4" : "-D PRED_POINT_STRIDE=3"; }

// Enqueues the padded copy of `count` packed points into `padded` (room for 16 bytes a point).
cl::Event enqueuePad(Context& ctx, const cl::Buffer& packed, std::size_t count, const cl::Buffer& padded) {
    cl::Kernel& pad = ctx.kernel("predicates.cl", "pred_pad_points", Precision::Float);
    setArgs(pad, 0, static_cast<cl_uint>(count), packed, padded);
    const std::size_t g = workGroup(ctx, pad);
    return ctx.launch(pad, cl::NDRange(roundUp(count, g)), cl::NDRange(g));
}

double seconds(const std::vector<cl::Event>& events) {
    double s = 0;
    for (const auto& e : events) s += eventSeconds(e);
    return s;
}

}  // namespace

void finishOnHost(Predicate p, const std::vector<float>& points, const std::vector<std::uint32_t>& queries,
                  std::vector<std::int8_t>& signs, TwoPhaseReport& report) {
    const auto start = std::chrono::steady_clock::now();
    const float* pts = points.data();
    const std::size_t k = arity(p);
    std::size_t count = 0;
    for (std::size_t i = 0; i < signs.size(); ++i) {
        if (signs[i] != kDoubleFloatUndecided) continue;
        const std::uint32_t* q = &queries[k * i];
        signs[i] = static_cast<std::int8_t>(
            p == Predicate::Orient3d ? orient3dExact(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3])
                                     : insphereExact(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3],
                                                     pts + 3 * q[4]));
        ++count;
    }
    report.hostItems = count;
    report.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

cl::Buffer padPoints(Context& ctx, const cl::Buffer& packed, std::size_t pointCount) {
    requireBytes(packed, pointCount * 3 * sizeof(float), "3 floats per point, " + std::to_string(pointCount) + " points",
                 "the point buffer of padPoints");
    if (pointCount > std::numeric_limits<std::uint32_t>::max())
        throw Error("padPoints copies at most 2^32 - 1 points (the queries' indices are 32-bit), but " +
                    std::to_string(pointCount) + " were given");
    cl::Buffer padded = ctx.buffer(std::max<std::size_t>(pointCount, 1) * 4 * sizeof(float), "padded points");
    if (pointCount > 0) enqueuePad(ctx, packed, pointCount, padded);
    return padded;
}

cl::Kernel& gatherFloorKernel(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries, std::size_t n,
                              const cl::Buffer& out) {
    const std::size_t cloud = points.getInfo<CL_MEM_SIZE>() / (3 * sizeof(float));
    const bool padded = cloud > 0 && padsPackedCloud(ctx, cloud, n, arity(p));
    cl::Buffer gathered = points;
    if (padded) {
        gathered = ctx.state<BatchState>().paddedPoints.reserve(ctx, cloud * 4 * sizeof(float), "padded predicate points");
        enqueuePad(ctx, points, cloud, gathered);
    }
    cl::Kernel& kernel = ctx.kernel("predicates.cl", std::string(predicateName(p)) + "_gather_floor", Precision::Float, pointOptions(padded));
    setArgs(kernel, 0, static_cast<cl_uint>(n), gathered, queries, out);
    return kernel;
}

std::size_t arity(Predicate p) { return p == Predicate::Orient3d ? 4 : 5; }
const char* predicateName(Predicate p) { return p == Predicate::Orient3d ? "orient3d" : "insphere"; }

TwoPhaseReport evaluateOnDevice(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries,
                                std::size_t queryCount, const cl::Buffer& signs, Precision mode,
                                std::vector<std::uint32_t>* hostItems) {
    return evaluateOnDevice(ctx, p, points, PointLayout::Packed, queries, queryCount, signs, mode, hostItems);
}

TwoPhaseReport evaluateOnDevice(Context& ctx, Predicate p, const cl::Buffer& points, PointLayout layout,
                                const cl::Buffer& queries, std::size_t queryCount, const cl::Buffer& signs,
                                Precision mode, std::vector<std::uint32_t>* hostItems) {
    const std::string name = predicateName(p);
    const std::size_t k = arity(p), n = queryCount;
    // The kernels read queryCount queries and write as many signs: buffers shorter than that would be
    // read and written past their end. (The points are reached through the queries' indices.)
    requireBytes(queries, n * k * sizeof(std::uint32_t),
                 std::to_string(k) + " uint32 point indices per query, " + std::to_string(n) + " queries",
                 "the query buffer of " + name + " evaluateOnDevice");
    requireBytes(signs, n, "one int8 sign per query, " + std::to_string(n) + " queries",
                 "the sign buffer of " + name + " evaluateOnDevice");
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw Error(name + " evaluates at most 2^32 - 1 queries in one batch, but " + std::to_string(n) + " were given");
    const TwoPhaseList plan = twoPhaseList(ctx, mode, /*hasDoubleFloatKernels=*/true);
    // Phase 2 on the host (the profile's [two_phase] phase2 = host) hands the listed queries to the caller.
    if (plan.phase2OnHost() && !hostItems)
        throw Error("mixed precision on " + ctx.device().label() + " runs phase 2 on the host there, which this " + name +
                    " call cannot do (it gives no list for the listed queries); use float precision");
    if (n == 0) return plan.report(0, 0);

    auto& s = ctx.state<BatchState>();
    if (!s.listCount()) s.listCount = ctx.buffer(sizeof(cl_uint), "predicate list count");
    const cl_uint n32 = static_cast<cl_uint>(n);
    std::vector<cl::Event> phase1, phase2, bookkeeping;

    // The cloud the kernels gather from: the caller's, or its padded copy.
    cl::Buffer cloud = points;
    bool padded = layout == PointLayout::Padded;
    const std::size_t packedPoints = points.getInfo<CL_MEM_SIZE>() / (3 * sizeof(float));
    if (!padded && packedPoints > 0 && packedPoints <= std::numeric_limits<std::uint32_t>::max() &&
        padsPackedCloud(ctx, packedPoints, n, k)) {
        cloud = s.paddedPoints.reserve(ctx, packedPoints * 4 * sizeof(float), "padded predicate points");
        phase1.push_back(enqueuePad(ctx, points, packedPoints, cloud));
        padded = true;
    }
    const std::string options = pointOptions(padded);

    if (plan.runsPhase1()) {
        // Mixed keeps the list for phase 2 (on the device or the host); Float only counts.
        const bool keepList = mode == Precision::Mixed;
        const cl::Buffer& list = s.list.reserve(ctx, keepList ? n * sizeof(cl_uint) : sizeof(cl_uint), "predicate list");
        bookkeeping.push_back(ctx.fill(s.listCount, 0, sizeof(cl_uint), "zero predicate list count"));
        cl::Kernel& k1 = ctx.kernel("predicates.cl", name + "_float_pass", Precision::Float, options);
        const std::size_t g = workGroup(ctx, k1);
        setArgs(k1, 0, n32, s.listCount, list, cl_uint(keepList ? 1 : 0), cloud, queries, signs,
                cl::Local((g + 2) * sizeof(cl_uint)));
        phase1.push_back(ctx.launch(k1, cl::NDRange(roundUp(n, g)), cl::NDRange(g)));
    }
    if (plan.runsPhase2()) {
        const bool doubleFloat = plan.phase2 == Phase2Arithmetic::DoubleFloat;
        // The profile's [predicates] build_options go to the exact pass (a compiler that gets its
        // expansions wrong when it optimises).
        cl::Kernel& k2 = ctx.kernel("predicates.cl", name + "_exact_pass", doubleFloat ? Precision::Float : Precision::Double,
                                    ctx.tuning().withBuildOptions("predicates", doubleFloat ? options + " -D PORTACL_DOUBLE_FLOAT=1" : options));
        const std::size_t g = workGroup(ctx, k2);
        const cl::Buffer& list = s.list.reserve(ctx, sizeof(cl_uint), "predicate list");
        setArgs(k2, 0, plan.direct(), n32, s.listCount, list, cloud, queries, signs);
        phase2.push_back(ctx.launch(k2, cl::NDRange(plan.phase2Groups((n + g - 1) / g) * g), cl::NDRange(g)));
    }
    cl_uint flagged = 0;
    if (plan.runsPhase1()) bookkeeping.push_back(ctx.read(s.listCount, &flagged, sizeof flagged, "read predicate list count"));
    ctx.finish();

    TwoPhaseReport report = plan.report(n, flagged);
    report.phase1Seconds = seconds(phase1);
    report.compactSeconds = seconds(bookkeeping);
    report.phase2Seconds = seconds(phase2);
    if (plan.phase2OnHost() && mode == Precision::Mixed) {
        // The listed queries to the caller, in increasing order, for its exact host step.
        const auto start = std::chrono::steady_clock::now();
        *hostItems = flagged > 0 ? ctx.download<std::uint32_t>(s.list.buffer(), flagged, "predicate list")
                                 : std::vector<std::uint32_t>{};
        std::sort(hostItems->begin(), hostItems->end());
        report.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return report;
}

Result evaluate(Context& ctx, Predicate p, const std::vector<float>& points, const std::vector<std::uint32_t>& queries,
                Precision mode) {
    const std::string name = predicateName(p);
    const std::size_t k = arity(p);
    if (points.size() % 3 != 0)
        throw Error(name + ": the point array holds " + std::to_string(points.size()) +
                    " floats, which is not a whole number of x, y, z triples");
    if (queries.size() % k != 0)
        throw Error(name + ": the query array holds " + std::to_string(queries.size()) +
                    " indices, which is not a multiple of " + std::to_string(k) + " points per query");
    const std::size_t pointCount = points.size() / 3, n = queries.size() / k;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (!std::isfinite(points[i]))
            throw Error(name + ": point " + std::to_string(i / 3) + " has a non-finite coordinate");
    for (std::size_t i = 0; i < queries.size(); ++i)
        if (queries[i] >= pointCount)
            throw Error(name + ": query " + std::to_string(i / k) + " names point " + std::to_string(queries[i]) +
                        ", but there are only " + std::to_string(pointCount) + " points");
    if (mode == Precision::Double) ctx.requirePrecision(Precision::Double, /*mixedOffered=*/true);

    Result result;
    if (n == 0) {
        result.report.mode = mode;
        return result;
    }
    // The inputs, one sign and one list entry per query, and a padded copy of the cloud where the
    // profile asks for one.
    ctx.checkFits(points.size() * sizeof(float) + queries.size() * sizeof(std::uint32_t) + n * 5 +
                      (padsPackedCloud(ctx, pointCount, n, k) ? pointCount * 16 : 0),
                  name + " batch of " + std::to_string(n) + " queries");
    const cl::Buffer pointsBuf = ctx.upload(points, "predicate points", CL_MEM_READ_ONLY);
    const cl::Buffer queriesBuf = ctx.upload(queries, "predicate queries", CL_MEM_READ_ONLY);
    const cl::Buffer signsBuf = ctx.buffer(n, "predicate signs");
    std::vector<std::uint32_t> hostItems;
    result.report = evaluateOnDevice(ctx, p, pointsBuf, queriesBuf, n, signsBuf, mode, &hostItems);
    result.signs = ctx.download<std::int8_t>(signsBuf, n, "predicate signs");
    if (result.report.phase2 == Phase2Arithmetic::Host && mode == Precision::Mixed) {
        // Phase 2 on the host (the profile's [two_phase] phase2 = host): exact signs of the listed queries.
        const auto start = std::chrono::steady_clock::now();
        for (std::uint32_t i : hostItems) result.signs[i] = kDoubleFloatUndecided;
        TwoPhaseReport finished;
        finishOnHost(p, points, queries, result.signs, finished);
        result.report.hostSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (result.report.phase2 == Phase2Arithmetic::DoubleFloat) finishOnHost(p, points, queries, result.signs, result.report);

    return result;
}

}  // namespace portacl::predicates

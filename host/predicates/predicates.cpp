#include "portacl/predicates.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::predicates {

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

std::size_t arity(Predicate p) { return p == Predicate::Orient3d ? 4 : 5; }
const char* predicateName(Predicate p) { return p == Predicate::Orient3d ? "orient3d" : "insphere"; }

TwoPhaseReport evaluateOnDevice(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries,
                                std::size_t queryCount, const cl::Buffer& signs, Precision mode,
                                std::vector<std::uint32_t>* hostItems) {
    const std::string name = predicateName(p);
    // The kernels read queryCount queries and write as many signs: buffers shorter than that would be
    // read and written past their end. (The points are reached through the queries' indices.)
    requireBytes(queries, queryCount * arity(p) * sizeof(std::uint32_t),
                 std::to_string(arity(p)) + " uint32 point indices per query, " + std::to_string(queryCount) + " queries",
                 "the query buffer of " + name + " evaluateOnDevice");
    requireBytes(signs, queryCount, "one int8 sign per query, " + std::to_string(queryCount) + " queries",
                 "the sign buffer of " + name + " evaluateOnDevice");
    TwoPhaseKernels kernels;
    kernels.source = "predicates.cl";
    kernels.phase1 = name + "_phase1";
    kernels.phase2 = name + "_phase2";
    kernels.doubleFloat = true;
    if (hostItems) kernels.hostPhase2 = [&](const std::vector<std::uint32_t>& items) { *hostItems = items; };
    kernels.setArgs = [&](cl::Kernel& k, cl_uint first) {
        setArg(k, first + 0, points);
        setArg(k, first + 1, queries);
        setArg(k, first + 2, signs);
    };
    return runTwoPhase(ctx, mode, queryCount, kernels);
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
    ctx.checkFits(points.size() * sizeof(float) + queries.size() * sizeof(std::uint32_t) + n * 6,
                  name + " batch of " + std::to_string(n) + " queries");
    const cl::Buffer pointsBuf = ctx.upload(points, "predicate points", CL_MEM_READ_ONLY);
    const cl::Buffer queriesBuf = ctx.upload(queries, "predicate queries", CL_MEM_READ_ONLY);
    const cl::Buffer signsBuf = ctx.buffer(n, "predicate signs");
    std::vector<std::uint32_t> hostItems;
    result.report = evaluateOnDevice(ctx, p, pointsBuf, queriesBuf, n, signsBuf, mode, &hostItems);
    result.signs = ctx.download<std::int8_t>(signsBuf, n, "predicate signs");
    if (result.report.phase2 == Phase2Arithmetic::Host) {
        // Phase 2 on the host (the profile's [two_phase] phase2 = host): exact signs of the flagged queries.
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

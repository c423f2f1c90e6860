#include "portacl/predicates.hpp"

#include <cmath>
#include <string>

#include "portacl/error.hpp"

namespace portacl::predicates {

std::size_t arity(Predicate p) { return p == Predicate::Orient3d ? 4 : 5; }
const char* predicateName(Predicate p) { return p == Predicate::Orient3d ? "orient3d" : "insphere"; }

TwoPhaseReport evaluateOnDevice(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries,
                                std::size_t queryCount, const cl::Buffer& signs, Precision mode) {
    const std::string name = predicateName(p);
    TwoPhaseKernels kernels;
    kernels.source = "predicates.cl";
    kernels.phase1 = name + "_phase1";
    kernels.phase2 = name + "_phase2";
    kernels.setArgs = [&](cl::Kernel& k, cl_uint first) {
        k.setArg(first + 0, points);
        k.setArg(first + 1, queries);
        k.setArg(first + 2, signs);
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
    if (mode != Precision::Float) ctx.requirePrecision(Precision::Double);

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
    result.report = evaluateOnDevice(ctx, p, pointsBuf, queriesBuf, n, signsBuf, mode);
    result.signs = ctx.download<std::int8_t>(signsBuf, n, "predicate signs");

    return result;
}

}  // namespace portacl::predicates

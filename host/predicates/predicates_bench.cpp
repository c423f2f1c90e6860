// Bench case "predicates": orient3d and insphere batches through the two-phase dispatch, in float,
// double and mixed, at 2^24 queries on GPUs (2^20 on CPUs, 2^16 with --quick). The batch indexes a
// cloud of 2^20 random points; a fraction (1 %) of the queries is degenerate (coplanar or
// cospherical integer points), so that mixed mode has real phase-2 work. The note gives the number
// of queries phase 2 ran on. Mixed runs whenever double or mixed is asked for.
#include <random>
#include <sstream>

#include "portacl/bench.hpp"
#include "portacl/predicates.hpp"

namespace portacl {
namespace {

using predicates::Predicate;

constexpr double kDegenerateFraction = 0.01;

struct BenchBatch {
    std::vector<float> points;
    std::vector<std::uint32_t> queries;
};

BenchBatch makeBatch(Predicate p, std::size_t n, std::size_t cloud) {
    BenchBatch b;
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> coord(-100.0f, 100.0f);
    for (std::size_t i = 0; i < cloud; ++i) b.points.insert(b.points.end(), {coord(rng), coord(rng), coord(rng)});
    // Degenerate points: a 16 x 16 integer grid on the plane z = 3x - 2y + 7, and the 6 axis points
    // plus 12 more integer points on the sphere of radius 5 about (17, -3, 40).
    const std::uint32_t plane0 = static_cast<std::uint32_t>(b.points.size() / 3);
    for (int x = -8; x < 8; ++x)
        for (int y = -8; y < 8; ++y) b.points.insert(b.points.end(), {float(x), float(y), float(3 * x - 2 * y + 7)});
    const std::uint32_t sphere0 = static_cast<std::uint32_t>(b.points.size() / 3);
    const int s[18][3] = {{5, 0, 0}, {-5, 0, 0}, {0, 5, 0}, {0, -5, 0}, {0, 0, 5},  {0, 0, -5},
                          {3, 4, 0}, {-3, 4, 0}, {3, -4, 0}, {4, 0, 3}, {4, 0, -3}, {-4, 0, 3},
                          {0, 3, 4}, {0, -3, 4}, {0, 3, -4}, {4, 3, 0}, {0, 4, -3}, {-3, 0, -4}};
    for (const auto& q : s) b.points.insert(b.points.end(), {17.0f + q[0], -3.0f + q[1], 40.0f + q[2]});

    const std::size_t k = predicates::arity(p);
    std::uniform_int_distribution<std::uint32_t> any(0, static_cast<std::uint32_t>(cloud - 1));
    std::uniform_int_distribution<std::uint32_t> onPlane(0, 255), onSphere(0, 17);
    std::bernoulli_distribution degenerate(kDegenerateFraction);
    b.queries.resize(n * k);
    for (std::size_t i = 0; i < n; ++i) {
        const bool d = degenerate(rng);
        for (std::size_t j = 0; j < k; ++j)
            b.queries[i * k + j] = !d ? any(rng) : (p == Predicate::Orient3d ? plane0 + onPlane(rng) : sphere0 + onSphere(rng));
    }
    return b;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const unsigned log2n = opts.quick ? 16 : (ctx.device().isGpu ? 24 : 20);
    const std::size_t n = std::size_t(1) << log2n, cloud = std::size_t(1) << (opts.quick ? 14 : 20);
    std::vector<Precision> modes;
    if (opts.wants(Precision::Float)) modes.push_back(Precision::Float);
    if (ctx.device().fp64 && opts.wants(Precision::Double)) modes.push_back(Precision::Double);
    if (ctx.device().fp64 && (opts.wants(Precision::Double) || opts.wants(Precision::Mixed)))
        modes.push_back(Precision::Mixed);

    std::vector<BenchRecord> out;
    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        if (modes.empty()) break;
        const BenchBatch b = makeBatch(p, n, cloud);
        const std::size_t k = predicates::arity(p);
        const cl::Buffer points = ctx.upload(b.points, "bench points", CL_MEM_READ_ONLY);
        const cl::Buffer queries = ctx.upload(b.queries, "bench queries", CL_MEM_READ_ONLY);
        const cl::Buffer signs = ctx.buffer(n, "bench signs");

        double serial = std::numeric_limits<double>::quiet_NaN();
        const std::size_t serialN = std::min<std::size_t>(n, opts.quick ? 1024 : 4096);
        if (opts.serial) {
            const std::vector<std::uint32_t> head(b.queries.begin(), b.queries.begin() + serialN * k);
            serial = medianHostSeconds([&] { predicates::evaluateReference(p, b.points, head); }, 3) *
                     (double(n) / double(serialN));
        }
        for (Precision mode : modes) {
            TwoPhaseReport report;
            BenchRecord r;
            r.workload = std::string("predicates/") + predicates::predicateName(p);
            r.size = "2^" + std::to_string(log2n);
            r.precision = precisionName(mode);
            r.seconds = medianDeviceSeconds(
                ctx, [&] { report = predicates::evaluateOnDevice(ctx, p, points, queries, n, signs, mode); }, opts);
            // Indices, the gathered points (3 floats each), the sign; phase 1 also writes a flag.
            r.bytes = double(n) * (k * 4 + k * 12 + 1 + (mode == Precision::Double ? 0 : 1));
            r.serialSeconds = serial;
            std::ostringstream note;
            note << "phase 2 on " << report.phase2Items << " of " << n;
            if (mode != Precision::Double) note << " (flagged " << report.undecided << ")";
            note << "; serial: exact big-integer reference on 2^" << (serialN == 1024 ? 10 : 12)
                 << " queries, scaled";
            r.note = note.str();
            out.push_back(r);
        }
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("predicates", "orient3d and insphere batches, two-phase float/double dispatch", run);

}  // namespace portacl

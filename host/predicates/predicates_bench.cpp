// Bench case "predicates": orient3d and insphere batches through the two-phase dispatch, in float,
// double and mixed, at 2^24 queries on GPUs (2^20 on CPUs and with --quick). The batch indexes a
// cloud of 2^20 random points; 1 % of the queries are degenerate (coplanar or
// cospherical integer points), so that mixed mode has real phase-2 work. The note gives the number
// of queries phase 2 ran on and each pass's device time. Each precision runs when asked for (mixed
// without fp64: phase 2 in double-float, the note giving the queries its host step finished and that
// step's time, which the device time leaves out). The serial column is the same mixed algorithm in
// plain C++ (predicates::evaluateSerial). Bytes per query, the floor of one pass: k indices, the k
// points they name, one sign (k = 4 for orient3d, 5 for insphere; docs/engineering/predicates.md).
#include <algorithm>
#include <functional>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>

#include "portacl/bench.hpp"
#include "portacl/predicates.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl {
namespace {

using predicates::Predicate;

constexpr double kDegenerateFraction = 0.01;

// The memory floor of the float pass on GPUs (predicates::gatherFloorKernel): how near the float
// rows are to what the gathers alone allow.
BenchRecord gatherFloor(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries, const cl::Buffer& out,
                        std::size_t n, unsigned log2n, const BenchOptions& opts) {
    cl::Kernel& kernel = predicates::gatherFloorKernel(ctx, p, points, queries, n, out);
    const std::size_t g = std::min<std::size_t>(256, workGroupLimit(kernel, ctx.device().device));
    BenchRecord r;
    r.workload = std::string("predicates/") + predicates::predicateName(p) + " gather floor";
    r.size = "2^" + std::to_string(log2n);
    r.precision = "float";
    r.seconds = medianDeviceSeconds(ctx, [&] { ctx.launch(kernel, cl::NDRange(roundUp(n, g)), cl::NDRange(g)); }, opts);
    const std::size_t k = predicates::arity(p);
    r.bytes = double(n) * (k * 4 + k * 12 + 1);
    r.note = "indices read and points gathered as the float pass does, one byte written; no predicate, no list";
    return r;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    // --quick keeps the CPU's sizes (a smaller batch and cloud sit in the caches and then appear to
    // beat the copy peak they are compared with).
    const unsigned log2n = opts.quick || !ctx.device().isGpu ? 20 : 24;
    const std::size_t n = std::size_t(1) << log2n, cloud = std::size_t(1) << 20;
    std::vector<BenchRecord> out;
    std::vector<Precision> modes;
    for (Precision p : {Precision::Float, Precision::Double, Precision::Mixed})
        if (runsOn(ctx, opts, p, "predicates", out)) modes.push_back(p);

    for (Predicate p : {Predicate::Orient3d, Predicate::Insphere}) {
        if (modes.empty()) break;
        const predicates::Batch b = predicates::syntheticBatch(p, n, cloud, kDegenerateFraction, 2024);
        const std::size_t k = predicates::arity(p);
        const cl::Buffer points = ctx.upload(b.points, "bench points", CL_MEM_READ_ONLY);
        const cl::Buffer queries = ctx.upload(b.queries, "bench queries", CL_MEM_READ_ONLY);
        const cl::Buffer signs = ctx.buffer(n, "bench signs");

        double serial = std::numeric_limits<double>::quiet_NaN();
        // The serial mixed algorithm (float filter, exact big integers where it cannot decide), timed
        // on at most 2^20 queries and scaled.
        const std::size_t serialN = std::min<std::size_t>(n, std::size_t(1) << 20);
        const std::vector<std::uint32_t> head(b.queries.begin(), b.queries.begin() + serialN * k);
        std::vector<std::int8_t> exact;  // the serial algorithm's signs, exact
        if (opts.serial)
            serial = medianHostSeconds([&] { exact = predicates::evaluateSerial(p, b.points, head); }, 3) * (double(n) / double(serialN));
        // On a CPU device, CGAL's filtered predicates beside every row (the peer a CPU user has), on
        // the same queries, their signs checked against the exact ones.
        std::string peer;
        double peerSeconds = std::numeric_limits<double>::quiet_NaN();
        if (ctx.device().isCpu) {
            std::vector<std::int8_t> cgal;
            peerSeconds = medianHostSeconds([&] { cgal = predicates::evaluateCgal(p, b.points, head); }, 3) * (double(n) / double(serialN));
            if (exact.empty()) exact = predicates::evaluateSerial(p, b.points, head);
            const auto wrong = std::inner_product(cgal.begin(), cgal.end(), exact.begin(), std::size_t(0), std::plus<>(),
                                                  [](std::int8_t x, std::int8_t y) { return std::size_t(x != y); });
            peer = wrong == 0 ? "CGAL Epick, one core" : "CGAL Epick: " + std::to_string(wrong) + " signs differ from the exact ones";
            if (wrong) peerSeconds = std::numeric_limits<double>::quiet_NaN();
        }
        for (Precision mode : modes) {
            TwoPhaseReport report;
            std::vector<std::uint32_t> hostItems;  // phase 2 on the host ([two_phase] phase2 = host)
            BenchRecord r;
            r.workload = std::string("predicates/") + predicates::predicateName(p);
            r.size = "2^" + std::to_string(log2n);
            r.precision = precisionName(mode);
            r.seconds = medianDeviceSeconds(
                ctx, [&] { report = predicates::evaluateOnDevice(ctx, p, points, queries, n, signs, mode, &hostItems); }, opts);
            // What one pass must move per query: its k indices, the k points they name (3 floats each,
            // gathered from a cloud that caches hold), its sign. The list's few entries, the counter
            // and a padded copy of the cloud ([predicates] pad_points) are not counted.
            r.bytes = double(n) * (k * 4 + k * 12 + 1);
            r.serialSeconds = serial;
            r.peer = peer;
            r.peerSeconds = peerSeconds;
            std::ostringstream note;
            note << "phase 2 on " << report.phase2Items << " of " << n;
            if (mode != Precision::Double) note << " (flagged " << report.undecided << ")";
            // The last timed run's device time per pass (phase 1 includes the padded copy, if any).
            note << std::fixed << std::setprecision(4) << "; last run: phase 1 " << report.phase1Seconds * 1e3
                 << " ms, phase 2 " << report.phase2Seconds * 1e3 << " ms, list count " << report.compactSeconds * 1e3
                 << " ms" << std::defaultfloat;
            if (report.phase2 == Phase2Arithmetic::DoubleFloat || report.phase2 == Phase2Arithmetic::Host) {
                std::vector<std::int8_t> got = ctx.download<std::int8_t>(signs, n, "bench signs");
                for (std::uint32_t i : hostItems) got[i] = predicates::kDoubleFloatUndecided;
                predicates::finishOnHost(p, b.points, b.queries, got, report);
                note << " in " << phase2ArithmeticName(report.phase2) << ", " << report.hostItems << " finished on the host in "
                     << report.hostSeconds * 1e3 << " ms (not in the time)";
            }
            note << "; serial: float filter + exact big integers";
            if (serialN < n) note << ", timed on 2^20 queries and scaled" << (peer.empty() ? "" : ", as CGAL");
            r.note = note.str();
            out.push_back(r);
        }
        if (ctx.device().isGpu) out.push_back(gatherFloor(ctx, p, points, queries, signs, n, log2n, opts));
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("predicates", "orient3d and insphere batches, two-phase float/double dispatch", run);

}  // namespace portacl

// Bench case "vector_sum": c = a + b at 2^28 elements on GPUs, 2^24 on CPUs and with --quick (three
// arrays of 64 MiB or more in float: beyond the caches, as the copy peak it is compared with).
// On CPU devices the peer is the same loop in C++ on as many host threads as the device has cores.
#include <cmath>

#include "portacl/bench.hpp"
#include "portacl/runtime/host_pool.hpp"
#include "portacl/vector_ops.hpp"

namespace portacl {
namespace {

template <typename T>
BenchRecord runOne(Context& ctx, const BenchOptions& opts, unsigned log2n) {
    const std::size_t n = std::size_t(1) << log2n;
    const Precision p = precisionOf<T>();
    ctx.checkFits(3 * n * sizeof(T), "the vector sum bench");
    std::vector<T> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = static_cast<T>(i % 1000) * T(0.5);
        b[i] = static_cast<T>(i % 777) * T(0.25);
    }
    cl::Buffer da = ctx.upload(a, "a", CL_MEM_READ_ONLY), db = ctx.upload(b, "b", CL_MEM_READ_ONLY);
    cl::Buffer dc = ctx.buffer(n * sizeof(T), "c", CL_MEM_WRITE_ONLY);
    BenchRecord r;
    r.workload = "vector_sum";
    r.size = "2^" + std::to_string(log2n);
    r.precision = precisionName(p);
    r.seconds = medianDeviceSeconds(ctx, [&] { vectorSum(ctx, p, da, db, dc, n); }, opts);
    r.bytes = 3.0 * n * sizeof(T);
    if (opts.serial) {
        std::vector<T> c;
        r.serialSeconds = medianHostSeconds([&] { c = vectorSumReference(a, b); }, 3);
    }
    if (ctx.device().isCpu) {
        const unsigned threads = peerThreads(ctx);
        HostPool pool(threads);
        std::vector<T> c(n);
        const auto sum = [&] {
            pool.forRange(n, std::size_t(1) << 16, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
            });
        };
        sum();  // pages touched, workers started
        r.peerSeconds = medianHostSeconds(sum, std::max(1, opts.repeats));
        r.peer = "C++ loop, " + threadsText(threads);
    }
    return r;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const unsigned log2n = opts.quick || !ctx.device().isGpu ? 24 : 28;
    std::vector<BenchRecord> out;
    if (opts.wants(Precision::Float)) out.push_back(runOne<float>(ctx, opts, log2n));
    if (runsOn(ctx, opts, Precision::Double, "vector_sum", out)) out.push_back(runOne<double>(ctx, opts, log2n));
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("vector_sum", "c = a + b (three arrays of traffic)", run);

}  // namespace portacl

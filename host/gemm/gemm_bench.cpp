// Bench case "gemm": the three matrix-product kernels at 4096^3 on GPUs (1024^3 on CPUs, 256^3
// with --quick). The serial reference is timed at 512^3 at most and scaled by the flop count
// (noted), since a serial 4096^3 product takes minutes.
#include <algorithm>
#include <cmath>

#include "portacl/bench.hpp"
#include "portacl/gemm.hpp"

namespace portacl {
namespace {

template <typename T>
std::vector<BenchRecord> runPrecision(Context& ctx, const BenchOptions& opts, std::size_t n) {
    const Precision p = precisionOf<T>();
    ctx.checkFits(3 * n * n * sizeof(T), "the matrix product bench");
    std::vector<T> A(n * n), B(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
        A[i] = static_cast<T>((i * 7 % 13) - 6) / T(8);
        B[i] = static_cast<T>((i * 5 % 11) - 5) / T(8);
    }
    cl::Buffer dA = ctx.upload(A, "A", CL_MEM_READ_ONLY), dB = ctx.upload(B, "B", CL_MEM_READ_ONLY);
    cl::Buffer dC = ctx.buffer(n * n * sizeof(T), "C");

    double serial = std::numeric_limits<double>::quiet_NaN();
    std::string serialNote;
    if (opts.serial) {
        const std::size_t s = std::min<std::size_t>(n, 512);
        std::vector<T> sa(A.begin(), A.begin() + s * s), sb(B.begin(), B.begin() + s * s), sc;
        serial = medianHostSeconds([&] { sc = gemmReference(s, s, s, sa, sb); }, 1) * std::pow(double(n) / s, 3);
        if (s != n) serialNote = "serial reference timed at " + std::to_string(s) + "^3 and scaled by flops";
    }
    std::vector<BenchRecord> out;
    for (GemmKernel k : {GemmKernel::Direct, GemmKernel::Tiled, GemmKernel::RegisterBlocked}) {
        BenchOptions o = opts;
        // The direct kernel at 4096^3 is slow by design; fewer repeats keep the bench short.
        if (k == GemmKernel::Direct) o.repeats = std::min(o.repeats, 3);
        BenchRecord r;
        r.workload = std::string("gemm/") + gemmKernelName(k);
        r.size = std::to_string(n) + "^3";
        r.precision = precisionName(p);
        r.seconds = medianDeviceSeconds(ctx, [&] { gemm(ctx, p, k, n, n, n, dA, dB, dC); }, o);
        r.flops = 2.0 * n * n * n;
        r.serialSeconds = serial;
        r.note = serialNote;
        out.push_back(r);
    }
    return out;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const std::size_t n = opts.quick ? 256 : (ctx.device().isGpu ? 4096 : 1024);
    std::vector<BenchRecord> out;
    if (opts.wants(Precision::Float)) {
        auto r = runPrecision<float>(ctx, opts, n);
        out.insert(out.end(), r.begin(), r.end());
    }
    if (opts.wants(Precision::Double) && ctx.device().fp64) {
        auto r = runPrecision<double>(ctx, opts, n);
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("gemm", "matrix product C = A*B: direct, tiled and register-blocked kernels", run);

}  // namespace portacl

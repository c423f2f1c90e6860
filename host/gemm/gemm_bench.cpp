// Bench case "gemm": the matrix-product kernels at 4096^3 on GPUs (1024^3 on CPUs, 256^3 with
// --quick); the tensor kernels where the device has them, in the precision each multiplies. The
// serial reference is timed at 512^3 at most and scaled by the flop count (noted), since a serial
// 4096^3 product takes minutes. PORTACL_GEMM_KERNELS (comma-separated kernel names) limits the
// kernels timed, for tile sweeps of the register-blocked kernel alone. The 3xTF32 row also gives its
// error and the FMA kernel's against the exact product, on random and ill-conditioned inputs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "gemm/accuracy.hpp"
#include "portacl/bench.hpp"
#include "portacl/gemm.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl {
namespace {

// The bench matrices hold multiples of 1/8 below 1 in magnitude: every product is a multiple of 1/64
// and every partial sum of a 4096-term row stays below 2^24/64, so float and double results are
// exact in any summation order and must equal the reference bit for bit.
template <typename T>
T benchA(std::size_t i) { return static_cast<T>(static_cast<int>(i * 7 % 13) - 6) / T(8); }
template <typename T>
T benchB(std::size_t i) { return static_cast<T>(static_cast<int>(i * 5 % 11) - 5) / T(8); }

// Compares a sample of C's elements (corners included) with dot products computed on the host;
// "" when all are equal, else a sentence for the record's note.
template <typename T>
std::string checkSample(const std::vector<T>& A, const std::vector<T>& B, const std::vector<T>& C, std::size_t n) {
    for (std::size_t s = 0; s < 64; ++s) {
        const std::size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (s * 2654435761u) % n;
        const std::size_t j = s == 0 ? 0 : s == 1 ? n - 1 : (s * 40503u + 17) % n;
        double want = 0;
        for (std::size_t k = 0; k < n; ++k) want += double(A[i * n + k]) * double(B[k * n + j]);
        if (double(C[i * n + j]) != want)
            return "WRONG RESULT: C(" + std::to_string(i) + "," + std::to_string(j) + ") = " +
                   std::to_string(double(C[i * n + j])) + ", expected " + std::to_string(want);
    }
    return "";
}

// "1.2e-07"
std::string sci(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", v);
    return text;
}

// The 3xTF32 kernel's median device time on random n x n operands; its error and the FMA kernel's
// (register-blocked) against the exact product over 64 rows of C, on random and on wide, alternating
// inputs, go into `note`.
double time3xTf32AndMeasureErrors(Context& ctx, const BenchOptions& opts, std::size_t n, std::string& note) {
    ctx.checkFits(3 * n * n * sizeof(float), "the 3xTF32 error measurement");
    double seconds = std::numeric_limits<double>::quiet_NaN();
    std::string errors;
    for (GemmInputs kind : {GemmInputs::Random, GemmInputs::WideAlternating, GemmInputs::Cancelling}) {
        Progress measuring(std::string("3xTF32 and FMA errors, ") + gemmInputsName(kind) + " inputs", 0, "");
        const GemmOperands in = gemmOperands(kind, n, n, n, 2024);
        cl::Buffer dA = ctx.upload(in.A, "A", CL_MEM_READ_ONLY), dB = ctx.upload(in.B, "B", CL_MEM_READ_ONLY);
        cl::Buffer dC = ctx.buffer(n * n * sizeof(float), "C");
        const auto product = [&](GemmKernel k) {
            gemm(ctx, Precision::Float, k, n, n, n, dA, dB, dC);
            return ctx.download<float>(dC, n * n, "C");
        };
        const ExactRows exact = exactRows(n, n, n, in.A, in.B, 64);
        const GemmError tf32 = gemmError(exact, product(GemmKernel::Tensor3xTf32));
        const GemmError fma = gemmError(exact, product(GemmKernel::RegisterBlocked));
        errors += std::string(errors.empty() ? "" : "; ") + gemmInputsName(kind) + " (median condition " +
                  sci(exact.medianCondition()) + "): 3xTF32 " + sci(tf32.normwise) + " / " + sci(tf32.componentwise) +
                  ", FMA " + sci(fma.normwise) + " / " + sci(fma.componentwise);
        if (kind == GemmInputs::Random)
            seconds = medianDeviceSeconds(ctx, [&] { gemm(ctx, Precision::Float, GemmKernel::Tensor3xTf32, n, n, n, dA, dB, dC); }, opts);
    }
    note += std::string(note.empty() ? "" : "; ") + "timed on random inputs; error against the exact product " +
            "(normwise / largest over sum |a||b|, 64 rows): " + errors;
    return seconds;
}

std::vector<GemmKernel> benchedKernels() {
    const char* env = std::getenv("PORTACL_GEMM_KERNELS");
    if (!env || !*env)
        return {GemmKernel::Direct, GemmKernel::Tiled, GemmKernel::RegisterBlocked, GemmKernel::TensorCore,
                GemmKernel::Tensor3xTf32};
    std::vector<GemmKernel> out;
    std::stringstream ss(env);
    std::string name;
    while (std::getline(ss, name, ','))
        if (!name.empty()) out.push_back(parseGemmKernel(name));
    return out;
}

template <typename T>
std::vector<BenchRecord> runPrecision(Context& ctx, const BenchOptions& opts, std::size_t n) {
    const Precision p = precisionOf<T>();
    ctx.checkFits(3 * n * n * sizeof(T), "the matrix product bench");
    std::vector<T> A(n * n), B(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
        A[i] = benchA<T>(i);
        B[i] = benchB<T>(i);
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
    // On a CPU device, OpenBLAS on the same cores beside the kernels (the peer a CPU user has).
    double peer = 0;
    if (ctx.device().isCpu && openBlasAvailable()) {
        std::vector<T> pc(n * n);
        BenchRecord r;
        r.workload = "gemm/openblas";
        r.size = std::to_string(n) + "^3";
        r.precision = precisionName(p);
        r.seconds = peer = medianHostSeconds([&] { openBlasGemm(n, n, n, A.data(), B.data(), pc.data()); }, opts.repeats);
        r.flops = 2.0 * n * n * n;
        r.note = "CPU peer on this host: OpenBLAS, " + std::to_string(openBlasThreads()) + " threads";
        const std::string wrong = checkSample(A, B, pc, n);
        if (!wrong.empty()) r.note = wrong;
        out.push_back(r);
    }
    for (GemmKernel k : benchedKernels()) {
        // The tensor-core rows where the device has them, in the precision each multiplies.
        if (!gemmKernelRefusal(ctx.device(), k, p).empty()) continue;
        BenchOptions o = opts;
        // The direct kernel at 4096^3 is slow by design; fewer repeats keep the bench short.
        if (k == GemmKernel::Direct) o.repeats = std::min(o.repeats, 3);
        Progress current(std::string(gemmKernelName(k)) + " " + std::to_string(n) + "^3 " + precisionName(p), 0, "");
        BenchRecord r;
        r.workload = std::string("gemm/") + gemmKernelName(k);
        r.size = std::to_string(n) + "^3";
        r.precision = precisionName(p);
        r.flops = 2.0 * n * n * n;
        r.serialSeconds = serial;
        r.note = serialNote;
        if (k == GemmKernel::Tensor3xTf32) {
            // Timed on random operands: the bench matrices are TF32 values, whose small parts are
            // zero. One run on them for the check below.
            r.seconds = time3xTf32AndMeasureErrors(ctx, o, n, r.note);
            gemm(ctx, p, k, n, n, n, dA, dB, dC);
        } else {
            r.seconds = medianDeviceSeconds(ctx, [&] { gemm(ctx, p, k, n, n, n, dA, dB, dC); }, o);
        }
        // The tiles that ran, where the device's local memory or work-group size cut the profile's.
        if (k == GemmKernel::RegisterBlocked) {
            const GemmTuning wanted = gemmTuning(ctx.tuning(), p), ran = fitGemmTuning(ctx.device(), p, wanted);
            if (describeGemmTuning(ran) != describeGemmTuning(wanted))
                r.note += std::string(r.note.empty() ? "" : "; ") + "tiles " + describeGemmTuning(ran) +
                          " (the profile's " + describeGemmTuning(wanted) + " do not fit)";
        }
        if (ctx.device().isCpu) {
            r.peer = peer > 0 ? "OpenBLAS, " + std::to_string(openBlasThreads()) + " threads" : "OpenBLAS: not in this build";
            if (peer > 0) r.peerSeconds = peer;
        }
        const std::string wrong = checkSample(A, B, ctx.download<T>(dC, n * n, "C"), n);
        if (!wrong.empty()) r.note = wrong;
        out.push_back(r);
    }
    return out;
}

// One precision's records; a precision this device cannot run (tiles beyond its local memory, say)
// gives one "not run" record instead of ending the other precision's.
template <typename T>
std::vector<BenchRecord> runOrExplain(Context& ctx, const BenchOptions& opts, std::size_t n) {
    try {
        return runPrecision<T>(ctx, opts, n);
    } catch (const Error& e) {
        BenchRecord r;
        r.workload = "gemm";
        r.size = std::to_string(n) + "^3";
        r.precision = precisionName(precisionOf<T>());
        r.note = std::string("not run: ") + e.what();
        return {r};
    }
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const std::size_t n = opts.quick ? 256 : (ctx.device().isGpu ? 4096 : 1024);
    std::vector<BenchRecord> out;
    if (opts.wants(Precision::Float)) {
        auto r = runOrExplain<float>(ctx, opts, n);
        out.insert(out.end(), r.begin(), r.end());
    }
    if (runsOn(ctx, opts, Precision::Double, "gemm", out)) {
        auto r = runOrExplain<double>(ctx, opts, n);
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("gemm", "matrix product C = A*B: direct, tiled, register-blocked and (NVIDIA) tensor-core kernels, double and 3xTF32 float; OpenBLAS beside them on CPU devices", run);

}  // namespace portacl

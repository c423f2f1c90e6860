// portacl gemm: the matrix product C = A * B with one of its kernels, checked against the serial
// reference (the 3xTF32 kernel against its own, gemmReference3xTf32).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <type_traits>
#include <utility>

#include "command.hpp"
#include "portacl/gemm.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::cli {
namespace {

template <typename T>
int multiplyAndCheck(Context& ctx, GemmKernel kernel, std::size_t m, std::size_t n, std::size_t k) {
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<T> A(m * k), B(k * n);
    for (auto& x : A) x = static_cast<T>(dist(gen));
    for (auto& x : B) x = static_cast<T>(dist(gen));
    std::vector<T> C;
    {
        Progress running("C = A*B on " + ctx.device().shortName(), 0, "");
        C = gemm(ctx, kernel, m, n, k, A, B);
    }
    // The serial reference in bands of rows (A is row-major), so that a large product shows progress.
    // The 3xTF32 kernel is held to its own reference, whose products are its products.
    const bool tf32 = kernel == GemmKernel::Tensor3xTf32;
    std::vector<T> R(m * n);
    {
        const std::size_t band = 16;
        Progress checking("checking against the serial reference", m, "rows");
        for (std::size_t r0 = 0; r0 < m; r0 += band) {
            const std::size_t rows = std::min(band, m - r0);
            const std::vector<T> a(A.begin() + static_cast<std::ptrdiff_t>(r0 * k), A.begin() + static_cast<std::ptrdiff_t>((r0 + rows) * k));
            std::vector<T> part;
            if constexpr (std::is_same_v<T, float>) part = tf32 ? gemmReference3xTf32(rows, n, k, a, B) : gemmReference(rows, n, k, a, B);
            else part = gemmReference(rows, n, k, a, B);
            std::copy(part.begin(), part.end(), R.begin() + static_cast<std::ptrdiff_t>(r0 * n));
            checking.update(r0 + rows);
        }
        checking.clearLine();
    }
    double worst = 0;
    for (std::size_t i = 0; i < C.size(); ++i) worst = std::max(worst, std::abs(double(C[i]) - double(R[i])));
    // Rounding of a k-term dot product of values in [-1, 1], in any summation order; for 3xTF32, the
    // roundings of its 3 ceil(k/8) float sums, in the kernel and in the reference (docs/gemm.md).
    const double eps = std::numeric_limits<T>::epsilon();
    const double bound = tf32 ? 8.0 * std::ceil(k / 8.0) * k * eps : 2.0 * k * k * eps;
    std::cout << "C = A*B, " << m << "x" << k << " times " << k << "x" << n << ", " << gemmKernelName(kernel)
              << " kernel, " << precisionName(precisionOf<T>()) << ", on " << ctx.device().label()
              << ": largest difference from the serial " << (tf32 ? "3xTF32 " : "") << "reference " << worst
              << " (bound " << bound << ")\n";
    return worst <= bound ? 0 : 1;
}

int runGemm(const std::vector<std::string>& args) {
    po::options_description desc("portacl gemm options");
    CommonOptions common;
    common.add(desc);
    long long m = 512, n = 512, k = 512;
    std::string kernel = "fast";
    desc.add_options()("m", po::value(&m)->default_value(m), "rows of A and C")(
        "n", po::value(&n)->default_value(n), "columns of B and C")("k", po::value(&k)->default_value(k),
                                                                   "columns of A, rows of B")(
        "kernel", po::value(&kernel)->default_value(kernel),
        "direct, tiled, register-blocked, tensor (double on NVIDIA's FP64 tensor cores), tensor-3xtf32 (float "
        "on NVIDIA's TF32 tensor cores, error-compensated) or fast (the device profile's choice: tensor for "
        "double where it asks for it, else register-blocked)");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm, "usage: portacl gemm [--m M --n N --k K] [--kernel KERNEL]",
                   common.help))
        return 0;
    // A stated range per size (a 65536^2 float matrix is 16 GiB), then the library's own checks.
    for (const auto& [name, v] : {std::pair<const char*, long long>{"m", m}, {"n", n}, {"k", k}}) {
        if (v < 1) throw Error("--" + std::string(name) + " must be a positive whole number, not " + std::to_string(v));
        if (v > 65536) throw Error("--" + std::string(name) + " is " + std::to_string(v) + "; it must lie in [1, 65536]");
    }
    const Precision p = common.parsedPrecision();
    if (p == Precision::Mixed) throw Error("the matrix product has no mixed mode; use float or double");
    const bool fast = kernel == "fast";
    GemmKernel which = fast ? GemmKernel::RegisterBlocked : parseGemmKernel(kernel);
    checkGemmSizes(m, n, k, p == Precision::Double ? sizeof(double) : sizeof(float));
    Context ctx(selectDevice(common.device), common.contextOptions());
    if (fast) which = defaultGemmKernel(ctx, p);
    if (const std::string why = gemmKernelRefusal(ctx.device(), which, p); !why.empty()) throw Error(why);
    const int rc = p == Precision::Double ? multiplyAndCheck<double>(ctx, which, m, n, k)
                                          : multiplyAndCheck<float>(ctx, which, m, n, k);
    printProfile(ctx, common);
    return rc;
}

}  // namespace

PORTACL_COMMAND("gemm", "the matrix product C = A*B with one of its kernels, checked against the reference", runGemm);

}  // namespace portacl::cli

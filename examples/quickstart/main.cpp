// The library quick-start of README.md: C = A*B on the default device, checked against the serial
// reference. Build it against an installed PortaCL (README.md, "Using the library").
#include <portacl/runtime/context.hpp>
#include <portacl/runtime/device.hpp>
#include <portacl/runtime/error.hpp>
#include <portacl/gemm.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() try {
    // "" means PORTACL_DEVICE if set, else auto: the first GPU, else the first CPU.
    portacl::Context ctx(portacl::selectDevice(""));
    const std::size_t M = 64, N = 48, K = 32;
    std::vector<float> A(M * K), B(K * N);  // row-major
    for (std::size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(i % 7) - 3;
    for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(i % 5) - 2;
    const std::vector<float> C = portacl::gemm(ctx, portacl::GemmKernel::Tiled, M, N, K, A, B);
    const std::vector<float> R = portacl::gemmReference(M, N, K, A, B);
    for (std::size_t i = 0; i < C.size(); ++i)
        if (std::fabs(C[i] - R[i]) > 1e-4f) return std::printf("mismatch at %zu\n", i), 1;
    std::printf("C = A*B on %s matches the serial reference\n", ctx.device().name.c_str());
    return 0;
} catch (const portacl::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}

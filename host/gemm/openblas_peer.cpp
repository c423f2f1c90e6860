// OpenBLAS's SGEMM and DGEMM on the host's cores: the CPU peer the gemm bench compares with when it
// runs on a CPU device. Built with OpenBLAS where CMake found it (PORTACL_HAVE_OPENBLAS).
#include "portacl/gemm.hpp"

#include "portacl/runtime/error.hpp"

#if PORTACL_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace portacl {

bool openBlasAvailable() { return PORTACL_HAVE_OPENBLAS != 0; }

int openBlasThreads() {
#if PORTACL_HAVE_OPENBLAS
    return openblas_get_num_threads();
#else
    return 0;
#endif
}

template <typename T>
void openBlasGemm(std::size_t M, std::size_t N, std::size_t K, const T* A, const T* B, T* C) {
#if PORTACL_HAVE_OPENBLAS
    const auto m = blasint(M), n = blasint(N), k = blasint(K);
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C, n);
#else
    (void)M, (void)N, (void)K, (void)A, (void)B, (void)C;
    throw Error("this build has no OpenBLAS (install libopenblas-dev and configure again)");
#endif
}

template void openBlasGemm(std::size_t, std::size_t, std::size_t, const float*, const float*, float*);
template void openBlasGemm(std::size_t, std::size_t, std::size_t, const double*, const double*, double*);

}  // namespace portacl

// The matrix product C = A * B of the lecture (row-major, A: M x K, B: K x N), as three kernels.
#pragma once

#include <string>
#include <vector>

#include "portacl/context.hpp"

namespace portacl {

enum class GemmKernel {
    Direct,          // the slides' kernel: one work-item per element, operands from global memory
    Tiled,           // the slides' local-memory tiled kernel
    RegisterBlocked  // register-blocked tiles sized by the vendor profile: the fast one
};

GemmKernel parseGemmKernel(const std::string& name);  // "direct", "tiled", "register-blocked"
const char* gemmKernelName(GemmKernel k);

// Enqueues C = A * B on device buffers of `element` precision.
void gemm(Context& ctx, Precision element, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
          const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C);

// Host convenience: uploads, multiplies, downloads.
template <typename T>
std::vector<T> gemm(Context& ctx, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                    const std::vector<T>& A, const std::vector<T>& B);

// The serial C++ reference (i-k-j loop order), accumulating in T.
template <typename T>
std::vector<T> gemmReference(std::size_t M, std::size_t N, std::size_t K, const std::vector<T>& A,
                             const std::vector<T>& B);

}  // namespace portacl

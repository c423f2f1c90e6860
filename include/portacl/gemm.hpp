// The matrix product C = A·B of the lecture (row-major, A: M x K, B: K x N): the lecture's kernels,
// a register-blocked one, and NVIDIA's tensor cores for double and (3xTF32) float.
#pragma once

#include "portacl/export.hpp"

#include <string>
#include <vector>

#include "portacl/runtime/context.hpp"

namespace portacl {

enum class GemmKernel {
    Direct,          // the slides' kernel: one work-item per element, operands from global memory
    Tiled,           // the slides' local-memory tiled kernel
    RegisterBlocked,  // register-blocked tiles sized by the vendor profile: the fast one on FMA units
    TensorCore,       // double on NVIDIA's FP64 tensor cores (compute capability 8.0 and up), inline PTX
    Tensor3xTf32      // float on NVIDIA's TF32 tensor cores (8.0 and up), error-compensated: each operand
                      // split into a TF32 part and a TF32 remainder, three products (docs/gemm.md)
};

// "direct", "tiled", "register-blocked" (or "fast"), "tensor", "tensor-3xtf32"
PORTACL_API GemmKernel parseGemmKernel(const std::string& name);
PORTACL_API const char* gemmKernelName(GemmKernel k);

// The tunables of the tiled and register-blocked kernels, read from the [gemm] section of a tuning
// profile (docs/gemm.md lists the keys). A work-group of (tileN/wptN) x (tileM/wptM) work-items
// computes a tileM x tileN block of C, each work-item wptM x wptN outputs in registers.
struct PORTACL_API GemmTuning {
    int tile = 16;          // the slides' tiled kernel: square tiles
    int tileM = 64, tileN = 64, tileK = 16;
    int wptM = 4, wptN = 4;
    int unrollK = 16;       // unroll depth of the loop over one tile's K (tileK: full)
    bool warpTile = false;  // warps of 8 x 4 work-items instead of rows of work-items
    bool doubleBuffer = true;  // two local tiles, one barrier per K-step
    std::string buildOptions;  // compiler options for this kernel alone (e.g. -cl-nv-maxrregcount=128)
    // The register-blocked kernel shaped for CPUs (cl/gemm_cpu.cl) when cpuRows > 0: one work-item
    // per block of cpuRows rows x cpuVectors of the device's native vectors ([gemm] cpu_block_m,
    // cpu_block_vectors); 0: the GPU shape above (tiles in local memory).
    int cpuRows = 0, cpuVectors = 2;
    // The tensor-core kernels: a work-group of tensorWarpsM x tensorWarpsN warps computes a
    // tensorM x tensorN block of C, K advancing tensorK at a time ([gemm] tensor_m, tensor_n, ...;
    // tensor_m_double, ... for the FP64 kernel alone).
    int tensorM = 128, tensorN = 64, tensorK = 8;
    int tensorWarpsM = 4, tensorWarpsN = 2;
    // K of one FP64 mma.sync instruction: 4, 8 or 16 (compute capability 9.0 and up). The 3xTF32
    // kernel's is 8, so its tensorK must be a multiple of 8.
    int tensorInstructionK = 4;
    // The FP64 kernel's staging ([gemm] tensor_stages, usually as tensor_stages_double): 0, the next
    // K-step read into registers and stored into the second of two padded tiles; 2 to 4, that many
    // K-steps in flight through cp.async (compute capability 8.0 and up) into unpadded, swizzled
    // tiles. The 3xTF32 kernel splits its operands as it stages them, so it takes 0 only.
    int tensorStages = 0;
    // Compiler options for the tensor kernels alone ([gemm] tensor_build_options, e.g.
    // -cl-nv-maxrregcount=128, so that 512 work-items fit a work-group).
    std::string tensorBuildOptions;
};

// The [gemm] values of `profile` for one precision ("<key>_double" overrides "<key>" for double).
// Throws portacl::Error naming the profile when the sizes do not fit together.
PORTACL_API GemmTuning gemmTuning(const TuningProfile& profile, Precision element);

// The largest tiles, starting from `wanted` (the profile's), that this device runs: the register-
// blocked kernel's A and B tiles within its local memory and its work-items within a work-group
// (one local buffer instead of two, then K-steps halved, then M and N tiles halved), the tiled
// kernel's square tile likewise. Throws one sentence when nothing fits.
PORTACL_API GemmTuning fitGemmTuning(const DeviceInfo& device, Precision element, const GemmTuning& wanted);
// "64x64x16, 2 buffers, 16x16 work-items; tiled 16": the register-blocked shape for a bench note.
PORTACL_API std::string describeGemmTuning(const GemmTuning& t);

// Why `device` cannot run the tensor-core kernel in `element` precision, or "" when it can: it needs
// double and an NVIDIA GPU of compute capability 8.0 or higher.
PORTACL_API std::string tensorCoreRefusal(const DeviceInfo& device, Precision element);
// Why `device` cannot run `kernel` in `element` precision, one sentence, or "" when it can: the
// tensor kernels need an NVIDIA GPU of compute capability 8.0 or higher, and "tensor" double,
// "tensor-3xtf32" float; the others run everywhere.
PORTACL_API std::string gemmKernelRefusal(const DeviceInfo& device, GemmKernel kernel, Precision element);
// The kernel `portacl gemm` and the library use when none is named: in double the tensor-core kernel
// where the device's profile asks for it ([gemm] tensor_cores = 1) and the device can run it, else
// register-blocked (float always: the 3xTF32 kernel is taken only by name).
PORTACL_API GemmKernel defaultGemmKernel(const Context& ctx, Precision element);

// Enqueues C = A * B on device buffers of `element` precision, tuned by the context's profile.
PORTACL_API void gemm(Context& ctx, Precision element, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                      const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C);
// The same with explicit tunables (another device's profile, a sweep).
PORTACL_API void gemm(Context& ctx, Precision element, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                      const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C, const GemmTuning& tuning);

// Host convenience: uploads, multiplies, downloads.
template <typename T>
PORTACL_API std::vector<T> gemm(Context& ctx, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                                const std::vector<T>& A, const std::vector<T>& B);
template <typename T>
PORTACL_API std::vector<T> gemm(Context& ctx, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                                const std::vector<T>& A, const std::vector<T>& B, const GemmTuning& tuning);

// Refuses a product with a side outside [0, 2^31 - 1] (an empty side gives an empty or zero C), or
// whose three matrices overflow a size or do not fit the host's memory (one sentence naming the
// sizes), before anything is allocated.
PORTACL_API void checkGemmSizes(std::size_t M, std::size_t N, std::size_t K, std::size_t elementBytes);

// OpenBLAS's GEMM on the host's cores (row-major, C = A * B): the CPU peer of `portacl bench`.
// openBlasAvailable() is false in a build without OpenBLAS, where openBlasGemm throws.
PORTACL_API bool openBlasAvailable();
PORTACL_API int openBlasThreads();
template <typename T>
PORTACL_API void openBlasGemm(std::size_t M, std::size_t N, std::size_t K, const T* A, const T* B, T* C);

// The serial C++ reference (i-k-j loop order), accumulating in T.
template <typename T>
PORTACL_API std::vector<T> gemmReference(std::size_t M, std::size_t N, std::size_t K, const std::vector<T>& A,
                                         const std::vector<T>& B);

// The serial reference of the 3xTF32 kernel (host/gemm/reference_3xtf32.cpp): every operand x split
// into big = tf32(x) and small = tf32(x - big) (round to nearest, ties away from zero, 10 fraction
// bits); for each block of 8 along K, in the kernel's order, the products small*big, then big*small,
// then big*big added to C, each block's sum of 8 exact products formed in double and rounded to float
// once, as the tensor core's instruction writes its float result.
PORTACL_API std::vector<float> gemmReference3xTf32(std::size_t M, std::size_t N, std::size_t K,
                                                   const std::vector<float>& A, const std::vector<float>& B);

}  // namespace portacl

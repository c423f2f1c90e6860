#include "gemm/tensor_core.hpp"

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl {

namespace {

// " -D NAME=v"
std::string def(const char* name, long v) { return std::string(" -D ") + name + "=" + std::to_string(v); }

// K of one instruction: the 3xTF32 kernel's m16n8k8; in double the profile's from compute capability
// 9.0 (16 x 8 x 4, 8 or 16 in one instruction), else 4 (two 8 x 8 x 4 per 16 x 8 x 4 block). The
// emulation takes any.
int instructionK(const DeviceInfo& device, Precision element, const GemmTuning& t, MmaPath path) {
    if (element != Precision::Double) return 8;
    return path == MmaPath::Emulated || device.nvComputeMajor >= 9 ? t.tensorInstructionK : 4;
}

// Two A and two B tiles of 8-byte elements (a double, or a float's two TF32 parts), each row padded
// by 4, or tensorStages unpadded ones of the operands as they are (cp.async staging); the emulation adds each warp's fragments of a step (16 x k of A per 16 rows, k x 8 of B per
// 8 columns, both parts in float).
std::size_t localBytes(const GemmTuning& t, Precision element, int k, MmaPath path) {
    const std::size_t stored = element == Precision::Double ? 8 : 4;  // a cp.async stage holds the operand as it is
    std::size_t bytes = t.tensorStages ? static_cast<std::size_t>(t.tensorStages) * t.tensorK * (t.tensorM + t.tensorN) * stored
                                       : 2 * static_cast<std::size_t>(t.tensorK) * (t.tensorM + 4 + t.tensorN + 4) * 8;
    if (path == MmaPath::Emulated)
        bytes += std::size_t(t.tensorWarpsM) * t.tensorWarpsN * 8 * k *
                 (t.tensorM / t.tensorWarpsM + t.tensorN / t.tensorWarpsN);  // 8: a double, or two floats
    return bytes;
}

}  // namespace

std::size_t tensorCoreLocalBytes(const DeviceInfo& device, Precision element, const GemmTuning& t, MmaPath path) {
    return localBytes(t, element, instructionK(device, element, t, path), path);
}

void enqueueTensorCoreGemm(Context& ctx, Precision element, std::size_t M, std::size_t N, std::size_t K,
                           const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C, const GemmTuning& t,
                           MmaPath path) {
    const bool dmma = element == Precision::Double;
    const char* what = dmma ? "the tensor-core matrix product" : "the 3xTF32 tensor-core matrix product";
    if (!dmma && t.tensorK % 8)
        throw Error(std::string(what) + " multiplies K in steps of 8, and the profile's [gemm] tensor_k is " +
                    std::to_string(t.tensorK) + "; give it a multiple of 8");
    if (dmma && t.tensorStages && t.tensorK == 32)
        throw Error(std::string(what) + " staged through cp.async takes a [gemm] tensor_k of 4, 8 or 16, and the "
                    "profile's is 32; give tensor_k_double one of those");
    if (!dmma && t.tensorStages && t.tensorN % 32)
        throw Error(std::string(what) + " staged through cp.async needs a [gemm] tensor_n that is a multiple of 32, and "
                    "the profile's is " + std::to_string(t.tensorN) + "; set tensor_stages_double to stage the FP64 kernel alone");
    const int k = instructionK(ctx.device(), element, t, path);
    if (localBytes(t, element, k, path) > ctx.device().localMemBytes)
        throw Error(std::string(what) + "'s tiles need " + std::to_string(localBytes(t, element, k, path)) +
                    " bytes of local memory, more than the " + std::to_string(ctx.device().localMemBytes) + " of " +
                    ctx.device().label() + "; give its profile a smaller [gemm] tensor_k");
    const std::size_t threads = 32 * std::size_t(t.tensorWarpsM) * t.tensorWarpsN;
    // cp.async stages copy 16 bytes at a time (two doubles, four floats) where every such group in a
    // row is aligned (K and N multiples of it) and the tiles' groups split evenly over the work-items.
    const std::size_t wide = dmma ? 2 : 4;
    const bool wideCopies = t.tensorStages && K % wide == 0 && N % wide == 0 &&
                            std::size_t(t.tensorM) * t.tensorK / wide % threads == 0 && std::size_t(t.tensorK) * t.tensorN / wide % threads == 0;
    const std::string options = def("BM", t.tensorM) + def("BN", t.tensorN) + def("BK", t.tensorK) +
                                def("WARPS_M", t.tensorWarpsM) + def("WARPS_N", t.tensorWarpsN) + def("MMA_K", k) +
                                def("MMA_M16", dmma && ctx.device().nvComputeMajor >= 9) +
                                def("MMA_PTX", path == MmaPath::Instructions) + def("STAGES", t.tensorStages) +
                                def("COPY_WIDTH", wideCopies ? long(wide) : 1L) + (t.tensorBuildOptions.empty() ? "" : " " + t.tensorBuildOptions);
    cl::Kernel kernel = ctx.kernel("gemm_mma.cl", dmma ? "gemm_dmma" : "gemm_3xtf32", element, options);
    if (workGroupLimit(kernel, ctx.device().device) < threads)
        throw Error(std::string(what) + "'s kernel allows " + std::to_string(workGroupLimit(kernel, ctx.device().device)) +
                    " work-items per work-group on " + ctx.device().label() + ", fewer than its " +
                    std::to_string(threads) + " (tensor_warps_m x tensor_warps_n warps of 32)");
    setArgs(kernel, 0, static_cast<cl_int>(M), static_cast<cl_int>(N), static_cast<cl_int>(K), A, B, C);
    ctx.launch(kernel, cl::NDRange((N + t.tensorN - 1) / t.tensorN * threads, (M + t.tensorM - 1) / t.tensorM),
               cl::NDRange(threads, 1));
}

}  // namespace portacl

#include "portacl/gemm.hpp"

#include <algorithm>
#include <utility>
#include <climits>
#include <cstdlib>
#include <string>

#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "gemm/tensor_core.hpp"

namespace portacl {

GemmKernel parseGemmKernel(const std::string& name) {
    if (name == "direct") return GemmKernel::Direct;
    if (name == "tiled") return GemmKernel::Tiled;
    if (name == "register-blocked" || name == "fast") return GemmKernel::RegisterBlocked;
    if (name == "tensor") return GemmKernel::TensorCore;
    if (name == "tensor-3xtf32") return GemmKernel::Tensor3xTf32;
    throw Error("unknown matrix-product kernel '" + name +
                "'; use direct, tiled, register-blocked, tensor or tensor-3xtf32");
}

const char* gemmKernelName(GemmKernel k) {
    switch (k) {
        case GemmKernel::Direct: return "direct";
        case GemmKernel::Tiled: return "tiled";
        case GemmKernel::RegisterBlocked: return "register-blocked";
        case GemmKernel::TensorCore: return "tensor";
        case GemmKernel::Tensor3xTf32: return "tensor-3xtf32";
    }
    return "?";
}

namespace {

// A profile value for this precision: "<key>_double" overrides "<key>" for double.
long tunable(const TuningProfile& profile, Precision p, const std::string& key, long fallback) {
    const long common = profile.getInt("gemm", key, fallback);
    return p == Precision::Double ? profile.getInt("gemm", key + "_double", common) : common;
}

std::string tunableText(const TuningProfile& profile, Precision p, const std::string& key) {
    const std::string common = profile.get("gemm", key, "");
    return p == Precision::Double ? profile.get("gemm", key + "_double", common) : common;
}

// Why a set of register-blocked tunables cannot work, or "" when they fit together.
std::string inconsistency(const GemmTuning& t) {
    if (t.tile < 1) return "tile must be positive";
    if (t.cpuRows < 0 || t.cpuRows > 16 || t.cpuVectors < 1 || t.cpuVectors > 8)
        return "cpu_block_m must lie between 0 and 16 and cpu_block_vectors between 1 and 8";
    if (t.tileM < 4 || t.tileN < 4 || t.tileK < 4) return "tile_m, tile_n and tile_k must be at least 4";
    if (t.wptM < 4 || t.wptN < 4 || t.wptM % 4 || t.wptN % 4) return "wpt_m and wpt_n must be multiples of 4";
    if (t.tileM % t.wptM || t.tileN % t.wptN) return "wpt_m and wpt_n must divide tile_m and tile_n";
    if (t.tileK % 4) return "tile_k must be a multiple of 4";
    const int threads = (t.tileM / t.wptM) * (t.tileN / t.wptN);
    if ((t.tileM * t.tileK / 4) % threads || (t.tileK * t.tileN / 4) % threads)
        return "the A and B tiles must split evenly in 4-vectors over the " + std::to_string(threads) +
               " work-items";
    if (t.unrollK < 1 || t.unrollK > t.tileK) return "unroll_k must lie between 1 and tile_k";
    if (t.warpTile && ((t.tileN / t.wptN) % 8 || (t.tileM / t.wptM) % 4))
        return "warp_tile needs tile_n/wpt_n to be a multiple of 8 and tile_m/wpt_m of 4";
    const int tensorThreads = 32 * t.tensorWarpsM * t.tensorWarpsN;
    if (t.tensorWarpsM < 1 || t.tensorWarpsN < 1 || t.tensorM % (16 * t.tensorWarpsM) || t.tensorN % (8 * t.tensorWarpsN) ||
        (t.tensorInstructionK != 4 && t.tensorInstructionK != 8 && t.tensorInstructionK != 16) ||
        t.tensorK < t.tensorInstructionK || t.tensorK % t.tensorInstructionK || (t.tensorM * t.tensorK) % tensorThreads ||
        (t.tensorK * t.tensorN) % tensorThreads)
        return "tensor_m must split into 16-row fragments of tensor_warps_m warps, tensor_n into 8-column ones of "
               "tensor_warps_n warps, tensor_instruction_k must be 4, 8 or 16 and divide tensor_k, and both tiles "
               "must split evenly over the " +
               std::to_string(tensorThreads) + " work-items";
    if (t.tensorStages != 0 &&
        (t.tensorStages < 2 || t.tensorStages > 4 || (t.tensorK != 4 && t.tensorK != 8 && t.tensorK != 16 && t.tensorK != 32) ||
         t.tensorN % 16))
        return "tensor_stages must be 0 (register staging) or 2 to 4 (cp.async), the latter with a tensor_k of 4, 8, 16 "
               "or 32 and a tensor_n that is a multiple of 16 (32 for the 3xTF32 kernel; tensor_k 32 for it alone)";
    return "";
}

std::size_t registerBlockedLocalBytes(const GemmTuning& t, Precision element) {
    return static_cast<std::size_t>(t.doubleBuffer ? 2 : 1) * t.tileK * (t.tileM + 4 + t.tileN + 4) *
           (element == Precision::Double ? 8 : 4);
}

// " -D NAME=v": a compile-time tunable of a kernel.
std::string def(const char* name, long v) { return std::string(" -D ") + name + "=" + std::to_string(v); }

std::size_t tiledLocalBytes(int tile, Precision element) {
    return 2 * static_cast<std::size_t>(tile) * tile * (element == Precision::Double ? 8 : 4);
}

// The device's native vector width for the element type, as an OpenCL vector size (2 to 16).
std::size_t nativeVectorWidth(const DeviceInfo& device, Precision element) {
    const cl_uint width = element == Precision::Double ? device.device.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE>()
                                                       : device.device.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT>();
    std::size_t v = 2;
    while (v < 16 && v * 2 <= width) v *= 2;
    return v;
}

// The largest square work-group no larger than `side` x `side` that `allowed` work-items hold.
std::size_t squareWithin(std::size_t side, std::size_t allowed) {
    while (side > 1 && side * side > allowed) side /= 2;
    return std::max<std::size_t>(1, side);
}

}  // namespace

std::string describeGemmTuning(const GemmTuning& t) {
    if (t.cpuRows > 0)
        return "blocks of " + std::to_string(t.cpuRows) + " rows x " + std::to_string(t.cpuVectors) +
               " native vectors a work-item (CPU shape); tiled " + std::to_string(t.tile);
    return std::to_string(t.tileM) + "x" + std::to_string(t.tileN) + "x" + std::to_string(t.tileK) + " tiles, " +
           (t.doubleBuffer ? "2 buffers" : "1 buffer") + ", " + std::to_string(t.tileN / t.wptN) + "x" +
           std::to_string(t.tileM / t.wptM) + " work-items; tiled " + std::to_string(t.tile);
}

GemmTuning fitGemmTuning(const DeviceInfo& device, Precision element, const GemmTuning& wanted) {
    GemmTuning t = wanted;
    while (t.tile > 1 && (tiledLocalBytes(t.tile, element) > device.localMemBytes ||
                          static_cast<std::size_t>(t.tile) * t.tile > device.maxWorkGroupSize))
        t.tile /= 2;
    const auto fits = [&](const GemmTuning& c) {
        return inconsistency(c).empty() && registerBlockedLocalBytes(c, element) <= device.localMemBytes &&
               static_cast<std::size_t>((c.tileM / c.wptM) * (c.tileN / c.wptN)) <= device.maxWorkGroupSize;
    };
    if (fits(t)) return t;
    GemmTuning c = t;
    c.doubleBuffer = false;
    if (fits(c)) return c;
    for (c = t; c.tileK > 4;) {
        c.tileK /= 2;
        c.unrollK = std::min(c.unrollK, c.tileK);
        if (fits(c)) return c;
        GemmTuning single = c;
        single.doubleBuffer = false;
        if (fits(single)) return single;
    }
    // Smaller M and N tiles: fewer outputs per work-item while there are more than 4 (the
    // work-group stays), then fewer work-items.
    const auto halve = [](int& tile, int& wpt) {
        if (wpt > 4) wpt /= 2;
        tile /= 2;
    };
    for (bool halveM = true; c.tileM > 4 || c.tileN > 4; halveM = !halveM) {
        if (halveM && c.tileM > 4) halve(c.tileM, c.wptM);
        else if (c.tileN > 4) halve(c.tileN, c.wptN);
        if (fits(c)) return c;
    }
    throw Error("the register-blocked matrix product needs " + std::to_string(registerBlockedLocalBytes(wanted, element)) +
                " bytes of local memory per work-group with the profile's tiles, and no smaller tiles fit the " +
                std::to_string(device.localMemBytes) + " bytes and " + std::to_string(device.maxWorkGroupSize) +
                " work-items of " + device.label());
}

GemmTuning gemmTuning(const TuningProfile& profile, Precision p) {
    GemmTuning t;
    t.tile = static_cast<int>(tunable(profile, p, "tile", t.tile));
    t.tileM = static_cast<int>(tunable(profile, p, "tile_m", t.tileM));
    t.tileN = static_cast<int>(tunable(profile, p, "tile_n", t.tileN));
    t.tileK = static_cast<int>(tunable(profile, p, "tile_k", t.tileK));
    t.wptM = static_cast<int>(tunable(profile, p, "wpt_m", t.wptM));
    t.wptN = static_cast<int>(tunable(profile, p, "wpt_n", t.wptN));
    t.unrollK = static_cast<int>(tunable(profile, p, "unroll_k", t.tileK));
    t.warpTile = tunable(profile, p, "warp_tile", 0) != 0;
    t.doubleBuffer = tunable(profile, p, "double_buffer", 1) != 0;
    t.buildOptions = tunableText(profile, p, "build_options");
    t.cpuRows = static_cast<int>(tunable(profile, p, "cpu_block_m", t.cpuRows));
    t.cpuVectors = static_cast<int>(tunable(profile, p, "cpu_block_vectors", t.cpuVectors));
    t.tensorM = static_cast<int>(tunable(profile, p, "tensor_m", t.tensorM));
    t.tensorN = static_cast<int>(tunable(profile, p, "tensor_n", t.tensorN));
    t.tensorK = static_cast<int>(tunable(profile, p, "tensor_k", t.tensorK));
    t.tensorWarpsM = static_cast<int>(tunable(profile, p, "tensor_warps_m", t.tensorWarpsM));
    t.tensorWarpsN = static_cast<int>(tunable(profile, p, "tensor_warps_n", t.tensorWarpsN));
    t.tensorInstructionK = static_cast<int>(tunable(profile, p, "tensor_instruction_k", t.tensorInstructionK));
    t.tensorStages = static_cast<int>(tunable(profile, p, "tensor_stages", t.tensorStages));
    t.tensorBuildOptions = tunableText(profile, p, "tensor_build_options");
    const std::string why = inconsistency(t);
    if (!why.empty())
        throw Error("the [gemm] values of tuning profile '" + profile.name + "' (" + profile.path + ") for " +
                    precisionName(p) + " do not fit together: " + why);
    return t;
}

namespace {

// The tensor kernels' conditions without their sentences, for the choice a small call makes each time.
bool tensorCoresRun(const DeviceInfo& device) { return device.isNvidia() && device.nvComputeMajor >= 8; }

}  // namespace

std::string tensorCoreRefusal(const DeviceInfo& device, Precision element) {
    if (element != Precision::Double)
        return "the tensor-core matrix product multiplies doubles only; use --precision double, or "
               "--kernel tensor-3xtf32 for float";
    if (!tensorCoresRun(device))
        return "the tensor-core matrix product needs an NVIDIA GPU of compute capability 8.0 or higher (FP64 tensor "
               "cores), and " + device.label() + " is not one; use the register-blocked kernel";
    return "";
}

std::string gemmKernelRefusal(const DeviceInfo& device, GemmKernel kernel, Precision element) {
    if (kernel == GemmKernel::TensorCore) return tensorCoreRefusal(device, element);
    if (kernel != GemmKernel::Tensor3xTf32) return "";
    if (element != Precision::Float)
        return "the 3xTF32 tensor-core matrix product multiplies floats only; use --precision float, or "
               "--kernel tensor for double";
    if (!tensorCoresRun(device))
        return "the 3xTF32 tensor-core matrix product needs an NVIDIA GPU of compute capability 8.0 or higher (TF32 "
               "tensor cores), and " + device.label() + " is not one; use the register-blocked kernel";
    return "";
}

GemmKernel defaultGemmKernel(const Context& ctx, Precision element) {
    const bool wanted = ctx.tuning().getInt("gemm", "tensor_cores", 0) != 0;
    return wanted && element == Precision::Double && tensorCoresRun(ctx.device()) ? GemmKernel::TensorCore
                                                                                  : GemmKernel::RegisterBlocked;
}

void gemm(Context& ctx, Precision element, GemmKernel which, std::size_t M, std::size_t N, std::size_t K,
          const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C) {
    gemm(ctx, element, which, M, N, K, A, B, C, gemmTuning(ctx.tuning(), element));
}

void gemm(Context& ctx, Precision element, GemmKernel which, std::size_t M, std::size_t N, std::size_t K,
          const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C, const GemmTuning& tuning) {
    // The precision first: a double product on a device without fp64 gets that sentence, not one
    // about tiles.
    ctx.requirePrecision(element);
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX) throw Error("matrix dimensions must be below 2^31");
    if (M == 0 || N == 0) return;
    requireElements(A, M * K, element, "buffer A of gemm");
    requireElements(B, K * N, element, "buffer B of gemm");
    requireElements(C, M * N, element, "buffer C of gemm");
    if (const std::string why = inconsistency(tuning); !why.empty())
        throw Error("matrix product: the register-blocked tunables do not fit together: " + why);
    const GemmTuning t = fitGemmTuning(ctx.device(), element, tuning);
    const auto allowed = [&](const cl::Kernel& kernel) {
        return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(ctx.device().device);
    };
    cl::Kernel k;
    cl::NDRange global, local;
    switch (which) {
        case GemmKernel::Direct: {
            k = ctx.kernel("gemm.cl", "gemm_direct", element);
            global = cl::NDRange(N, M);
            const std::size_t side = squareWithin(16, std::min(allowed(k), ctx.device().maxWorkGroupSize));
            local = cl::NDRange(side, side);
            break;
        }
        case GemmKernel::Tiled: {
            // The tile is compiled in: a kernel allowing fewer work-items than tile x tile is rebuilt
            // with the largest tile it allows.
            int tile = t.tile;
            k = ctx.kernel("gemm.cl", "gemm_tiled", element, "-D TILE=" + std::to_string(tile));
            while (tile > 1 && static_cast<std::size_t>(tile) * tile > allowed(k)) {
                tile = static_cast<int>(squareWithin(static_cast<std::size_t>(tile), allowed(k)));
                k = ctx.kernel("gemm.cl", "gemm_tiled", element, "-D TILE=" + std::to_string(tile));
            }
            global = cl::NDRange(N, M);
            local = cl::NDRange(tile, tile);
            break;
        }
        case GemmKernel::RegisterBlocked: {
            if (t.cpuRows > 0) {
                const std::size_t width = nativeVectorWidth(ctx.device(), element);
                // Vectors narrower than 512 bits come with 16 registers (SSE, AVX2), not AVX-512's
                // 32: at most 12 accumulators there, so that the block does not spill.
                const bool wide = width * (element == Precision::Double ? 8 : 4) >= 64;
                const int rows = wide ? t.cpuRows : std::max(1, std::min(t.cpuRows, 12 / t.cpuVectors));
                std::string options = def("CPU_ROWS", rows) + def("CPU_VECTORS", t.cpuVectors) + def("VL", long(width));
                if (!t.buildOptions.empty()) options += " " + t.buildOptions;
                k = ctx.kernel("gemm_cpu.cl", "gemm_cpu_blocked", element, options);
                const std::size_t columns = std::size_t(t.cpuVectors) * width;
                global = cl::NDRange((N + columns - 1) / columns, (M + rows - 1) / rows);
                local = cl::NDRange(1, 1);
                break;
            }
            const std::size_t rx = t.tileN / t.wptN, ry = t.tileM / t.wptM;
            const bool full = M % t.tileM == 0 && N % t.tileN == 0 && K % t.tileK == 0 && K > 0;
            std::string options = def("TM", t.tileM) + def("TN", t.tileN) + def("TK", t.tileK) + def("WPTM", t.wptM) +
                                  def("WPTN", t.wptN) + def("UNROLL_K", t.unrollK) + def("WARP_TILE", t.warpTile) +
                                  def("DOUBLE_BUFFER", t.doubleBuffer) +
                                  // Matrices made of whole tiles take the unguarded path; rows that
                                  // start on 4-vector boundaries are read and written as vectors.
                                  def("FULL_TILES", full) + def("VEC_A", K % 4 == 0) + def("VEC_B", N % 4 == 0);
            if (!t.buildOptions.empty()) options += " " + t.buildOptions;
            k = ctx.kernel("gemm.cl", "gemm_register_blocked", element, options);
            if (allowed(k) < rx * ry)
                throw Error("the register-blocked matrix product's kernel allows " + std::to_string(allowed(k)) +
                            " work-items per work-group on " + ctx.device().label() + ", fewer than the " +
                            std::to_string(rx * ry) + " of its tiles (" + describeGemmTuning(t) +
                            "); give the device's profile smaller [gemm] tiles");
            local = cl::NDRange(rx, ry);
            global = cl::NDRange((N + t.tileN - 1) / t.tileN * rx, (M + t.tileM - 1) / t.tileM * ry);
            break;
        }
        case GemmKernel::TensorCore:
        case GemmKernel::Tensor3xTf32:
            if (const std::string why = gemmKernelRefusal(ctx.device(), which, element); !why.empty()) throw Error(why);
            enqueueTensorCoreGemm(ctx, element, M, N, K, A, B, C, t, MmaPath::Instructions);
            return;
    }
    setArg(k, 0, static_cast<cl_int>(M));
    setArg(k, 1, static_cast<cl_int>(N));
    setArg(k, 2, static_cast<cl_int>(K));
    setArg(k, 3, A);
    setArg(k, 4, B);
    setArg(k, 5, C);
    ctx.launch(k, global, local);
}

template <typename T>
std::vector<T> gemm(Context& ctx, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                    const std::vector<T>& A, const std::vector<T>& B) {
    return gemm(ctx, kernel, M, N, K, A, B, gemmTuning(ctx.tuning(), precisionOf<T>()));
}

void checkGemmSizes(std::size_t M, std::size_t N, std::size_t K, std::size_t elementBytes) {
    for (const auto& [v, name] : {std::pair<std::size_t, const char*>{M, "M"}, {N, "N"}, {K, "K"}})
        if (v > std::size_t(INT_MAX))
            throw Error("matrix product: " + std::string(name) + " is " + std::to_string(v) + "; it must lie in [0, 2^31 - 1]");
    const std::string what = "the matrix product of " + std::to_string(M) + "x" + std::to_string(K) + " and " +
                             std::to_string(K) + "x" + std::to_string(N);
    const std::size_t elements =
        checkedAdd(checkedAdd(checkedMul(M, K, what), checkedMul(K, N, what), what), checkedMul(M, N, what), what);
    checkHostAllocation(checkedMul(elements, elementBytes, what), what);
}

template <typename T>
std::vector<T> gemm(Context& ctx, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                    const std::vector<T>& A, const std::vector<T>& B, const GemmTuning& tuning) {
    checkGemmSizes(M, N, K, sizeof(T));
    if (A.size() != M * K || B.size() != K * N)
        throw Error("matrix product: A must have M*K and B K*N elements");
    ctx.checkFits((M * K + K * N + M * N) * sizeof(T), "the matrix product");
    cl::Buffer dA = ctx.upload(A, "A", CL_MEM_READ_ONLY), dB = ctx.upload(B, "B", CL_MEM_READ_ONLY);
    cl::Buffer dC = ctx.buffer(M * N * sizeof(T), "C", CL_MEM_WRITE_ONLY);
    gemm(ctx, precisionOf<T>(), kernel, M, N, K, dA, dB, dC, tuning);
    return ctx.download<T>(dC, M * N, "C");
}

template <typename T>
std::vector<T> gemmReference(std::size_t M, std::size_t N, std::size_t K, const std::vector<T>& A,
                             const std::vector<T>& B) {
    checkGemmSizes(M, N, K, sizeof(T));
    if (A.size() != M * K || B.size() != K * N) throw Error("matrix product: A must have M*K and B K*N elements");
    std::vector<T> C(M * N, T(0));
    for (std::size_t i = 0; i < M; ++i)
        for (std::size_t k = 0; k < K; ++k) {
            const T a = A[i * K + k];
            const T* b = B.data() + k * N;  // pointers, not references: N may be 0 and B empty
            T* c = C.data() + i * N;
            for (std::size_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    return C;
}

template std::vector<float> gemm(Context&, GemmKernel, std::size_t, std::size_t, std::size_t,
                                 const std::vector<float>&, const std::vector<float>&);
template std::vector<double> gemm(Context&, GemmKernel, std::size_t, std::size_t, std::size_t,
                                  const std::vector<double>&, const std::vector<double>&);
template std::vector<float> gemm(Context&, GemmKernel, std::size_t, std::size_t, std::size_t,
                                 const std::vector<float>&, const std::vector<float>&, const GemmTuning&);
template std::vector<double> gemm(Context&, GemmKernel, std::size_t, std::size_t, std::size_t,
                                  const std::vector<double>&, const std::vector<double>&, const GemmTuning&);
template std::vector<float> gemmReference(std::size_t, std::size_t, std::size_t, const std::vector<float>&,
                                          const std::vector<float>&);
template std::vector<double> gemmReference(std::size_t, std::size_t, std::size_t, const std::vector<double>&,
                                           const std::vector<double>&);

}  // namespace portacl

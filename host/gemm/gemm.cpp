#include "portacl/gemm.hpp"

#include <climits>

#include "portacl/error.hpp"

namespace portacl {

GemmKernel parseGemmKernel(const std::string& name) {
    if (name == "direct") return GemmKernel::Direct;
    if (name == "tiled") return GemmKernel::Tiled;
    if (name == "register-blocked" || name == "fast") return GemmKernel::RegisterBlocked;
    throw Error("unknown matrix-product kernel '" + name + "'; use direct, tiled or register-blocked");
}

const char* gemmKernelName(GemmKernel k) {
    switch (k) {
        case GemmKernel::Direct: return "direct";
        case GemmKernel::Tiled: return "tiled";
        case GemmKernel::RegisterBlocked: return "register-blocked";
    }
    return "?";
}

namespace {

// A profile value for this precision: "<key>_double" overrides "<key>" for double.
long tunable(const Context& ctx, Precision p, const std::string& key, long fallback) {
    const long common = ctx.tuning().getInt("gemm", key, fallback);
    return p == Precision::Double ? ctx.tuning().getInt("gemm", key + "_double", common) : common;
}

}  // namespace

void gemm(Context& ctx, Precision element, GemmKernel which, std::size_t M, std::size_t N, std::size_t K,
          const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C) {
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX) throw Error("matrix dimensions must be below 2^31");
    if (M == 0 || N == 0) return;
    cl::Kernel k;
    cl::NDRange global, local;
    switch (which) {
        case GemmKernel::Direct: {
            k = ctx.kernel("gemm.cl", "gemm_direct", element);
            global = cl::NDRange(N, M);
            local = cl::NDRange(16, 16);
            break;
        }
        case GemmKernel::Tiled: {
            const long tile = tunable(ctx, element, "tile", 16);
            k = ctx.kernel("gemm.cl", "gemm_tiled", element, "-D TILE=" + std::to_string(tile));
            global = cl::NDRange(N, M);
            local = cl::NDRange(tile, tile);
            break;
        }
        case GemmKernel::RegisterBlocked: {
            const long tm = tunable(ctx, element, "tile_m", 64), tn = tunable(ctx, element, "tile_n", 64);
            const long tk = tunable(ctx, element, "tile_k", 16);
            const long wm = tunable(ctx, element, "wpt_m", 4), wn = tunable(ctx, element, "wpt_n", 4);
            const long unroll = tunable(ctx, element, "unroll_k", tk);
            // Warp tiling needs a work-group of whole 8 x 4 warps.
            const bool warpTile = tunable(ctx, element, "warp_tile", 0) != 0 && (tn / wn) % 8 == 0 &&
                                  (tm / wm) % 4 == 0 && ((tn / wn) * (tm / wm)) % 32 == 0;
            if (wm % 4 || wn % 4 || tm % wm || tn % wn || tk % 4 || (tm * tk) % (4 * (tm / wm) * (tn / wn)) ||
                (tk * tn) % (4 * (tm / wm) * (tn / wn)))
                throw Error("the [gemm] tile sizes of tuning profile '" + ctx.tuning().name +
                            "' are inconsistent: wpt_m and wpt_n must be multiples of 4 dividing tile_m and "
                            "tile_n, tile_k a multiple of 4, and each tile must split evenly in 4-vectors over the work-group");
            k = ctx.kernel("gemm.cl", "gemm_register_blocked", element,
                           "-D TM=" + std::to_string(tm) + " -D TN=" + std::to_string(tn) + " -D TK=" +
                               std::to_string(tk) + " -D WPTM=" + std::to_string(wm) + " -D WPTN=" + std::to_string(wn) +
                               " -D UNROLL_K=" + std::to_string(unroll) + " -D WARP_TILE=" + (warpTile ? "1" : "0") +
                               // Matrices made of whole tiles take the unguarded, vectorized path.
                               " -D FULL_TILES=" + (M % tm == 0 && N % tn == 0 && K % tk == 0 ? "1" : "0"));
            local = cl::NDRange(tn / wn, tm / wm);
            global = cl::NDRange((N + tn - 1) / tn * (tn / wn), (M + tm - 1) / tm * (tm / wm));
            break;
        }
    }
    k.setArg(0, static_cast<cl_int>(M));
    k.setArg(1, static_cast<cl_int>(N));
    k.setArg(2, static_cast<cl_int>(K));
    k.setArg(3, A);
    k.setArg(4, B);
    k.setArg(5, C);
    ctx.launch(k, global, local);
}

template <typename T>
std::vector<T> gemm(Context& ctx, GemmKernel kernel, std::size_t M, std::size_t N, std::size_t K,
                    const std::vector<T>& A, const std::vector<T>& B) {
    if (A.size() != M * K || B.size() != K * N)
        throw Error("matrix product: A must have M*K and B K*N elements");
    ctx.checkFits((M * K + K * N + M * N) * sizeof(T), "the matrix product");
    cl::Buffer dA = ctx.upload(A, "A", CL_MEM_READ_ONLY), dB = ctx.upload(B, "B", CL_MEM_READ_ONLY);
    cl::Buffer dC = ctx.buffer(M * N * sizeof(T), "C", CL_MEM_WRITE_ONLY);
    gemm(ctx, precisionOf<T>(), kernel, M, N, K, dA, dB, dC);
    return ctx.download<T>(dC, M * N, "C");
}

template <typename T>
std::vector<T> gemmReference(std::size_t M, std::size_t N, std::size_t K, const std::vector<T>& A,
                             const std::vector<T>& B) {
    std::vector<T> C(M * N, T(0));
    for (std::size_t i = 0; i < M; ++i)
        for (std::size_t k = 0; k < K; ++k) {
            const T a = A[i * K + k];
            const T* b = &B[k * N];
            T* c = &C[i * N];
            for (std::size_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    return C;
}

template std::vector<float> gemm(Context&, GemmKernel, std::size_t, std::size_t, std::size_t,
                                 const std::vector<float>&, const std::vector<float>&);
template std::vector<double> gemm(Context&, GemmKernel, std::size_t, std::size_t, std::size_t,
                                  const std::vector<double>&, const std::vector<double>&);
template std::vector<float> gemmReference(std::size_t, std::size_t, std::size_t, const std::vector<float>&,
                                          const std::vector<float>&);
template std::vector<double> gemmReference(std::size_t, std::size_t, std::size_t, const std::vector<double>&,
                                           const std::vector<double>&);

}  // namespace portacl

// The serial reference of the 3xTF32 kernel (cl/gemm_mma.cl, gemm_3xtf32), and TF32 rounding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "gemm/tf32.hpp"
#include "portacl/gemm.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

float roundToTf32(float x) {
    if (!std::isfinite(x)) return x;
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    // Half a TF32 unit (2^12 of the float's 23 fraction bits) added to the magnitude, then the 13 low
    // bits cut: round to nearest, ties away from zero.
    bits = (bits + 0x1000u) & 0xffffe000u;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
}

std::vector<float> gemmReference3xTf32(std::size_t M, std::size_t N, std::size_t K, const std::vector<float>& A,
                                       const std::vector<float>& B) {
    checkGemmSizes(M, N, K, sizeof(float));
    if (A.size() != M * K || B.size() != K * N) throw Error("matrix product: A must have M*K and B K*N elements");
    // Each operand split once, as the kernel splits it when it stages a tile.
    std::vector<float> aBig(A.size()), aSmall(A.size()), bBig(B.size()), bSmall(B.size());
    for (std::size_t i = 0; i < A.size(); ++i) {
        const Tf32Split s = splitTf32(A[i]);
        aBig[i] = s.big, aSmall[i] = s.small;
    }
    for (std::size_t i = 0; i < B.size(); ++i) {
        const Tf32Split s = splitTf32(B[i]);
        bBig[i] = s.big, bSmall[i] = s.small;
    }
    // The kernel's three instructions per block of 8 along K, smallest terms first: (A part, B part).
    const std::pair<const float*, const float*> products[3] = {
        {aSmall.data(), bBig.data()}, {aBig.data(), bSmall.data()}, {aBig.data(), bBig.data()}};
    constexpr std::size_t blockK = 8;  // K of one m16n8k8 instruction
    std::vector<float> C(M * N, 0.0f);
    std::vector<float> block(N);
    std::vector<double> sum(N);
    for (std::size_t i = 0; i < M; ++i) {
        float* c = C.data() + i * N;
        for (std::size_t k0 = 0; k0 < K; k0 += blockK) {
            const std::size_t k1 = std::min(K, k0 + blockK);
            // The block's three products go into a sum from zero that is then added to c.
            std::fill(block.begin(), block.end(), 0.0f);
            for (const auto& [a, b] : products) {
                // A product of two TF32 values (11 significant bits each) is exact in float and in
                // double; the instruction's sum, in double, is rounded to float once.
                for (std::size_t j = 0; j < N; ++j) sum[j] = block[j];
                for (std::size_t k = k0; k < k1; ++k) {
                    const double x = a[i * K + k];
                    const float* row = b + k * N;
                    for (std::size_t j = 0; j < N; ++j) sum[j] += x * double(row[j]);
                }
                for (std::size_t j = 0; j < N; ++j) block[j] = static_cast<float>(sum[j]);
            }
            for (std::size_t j = 0; j < N; ++j) c[j] += block[j];
        }
    }
    return C;
}

}  // namespace portacl

// The vector sum and the three matrix-product kernels against their serial references, at odd sizes
// (not multiples of any tile), in float and double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "portacl/gemm.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/vector_ops.hpp"
#include "support/test_support.hpp"

using namespace portacl;

namespace {
template <typename T>
std::vector<T> randomVector(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(dist(gen));
    return v;
}
}  // namespace

template <typename T>
class Typed : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::is_same<T, double>::value && !test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    }
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Typed, Precisions);

TYPED_TEST(Typed, VectorSumEqualsReferenceExactly) {
    for (std::size_t n : {1u, 3u, 255u, 1000003u}) {
        const auto a = randomVector<TypeParam>(n, 1), b = randomVector<TypeParam>(n, 2);
        // One rounding of one addition: the device result is bit-identical to the reference.
        EXPECT_EQ(vectorSum(test::context(), a, b), vectorSumReference(a, b)) << "n = " << n;
    }
}

TYPED_TEST(Typed, MatrixProductKernelsMatchReference) {
    // Tolerance: each element is a K-term dot product of values in [-1, 1]; different summation
    // order and fused multiply-adds differ from the serial order by at most K*eps*sum|a||b|.
    // The last two shapes are whole tiles of every shipped profile: they take the unguarded path.
    const std::size_t shapes[][3] = {{1, 1, 1}, {17, 33, 9}, {67, 45, 130}, {129, 131, 67}, {128, 128, 64}, {256, 384, 32}};
    for (auto kernel : {GemmKernel::Direct, GemmKernel::Tiled, GemmKernel::RegisterBlocked}) {
        for (const auto& s : shapes) {
            const std::size_t M = s[0], N = s[1], K = s[2];
            const auto A = randomVector<TypeParam>(M * K, 3), B = randomVector<TypeParam>(K * N, 4);
            const auto C = gemm(test::context(), kernel, M, N, K, A, B);
            const auto R = gemmReference(M, N, K, A, B);
            ASSERT_EQ(C.size(), R.size());
            const double bound = 2.0 * K * std::numeric_limits<TypeParam>::epsilon() * K;
            double worst = 0;
            for (std::size_t i = 0; i < C.size(); ++i) worst = std::max(worst, std::abs(double(C[i]) - double(R[i])));
            EXPECT_LE(worst, bound) << gemmKernelName(kernel) << " " << M << "x" << N << "x" << K;
        }
    }
}

TEST(Gemm, KernelNamesParse) {
    EXPECT_EQ(parseGemmKernel("tiled"), GemmKernel::Tiled);
    EXPECT_THROW(parseGemmKernel("strassen"), Error);
}

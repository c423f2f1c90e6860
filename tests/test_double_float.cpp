// The double-float arithmetic of phase 2 on devices without fp64 (cl/common/double_float.h): the
// host's serial reference against exact rational arithmetic on random and adversarial inputs
// (cancellation, ties, all-ones significands, wide exponent gaps), both the fma and the split variants;
// then the device, bit for bit equal to the host, on the test device and on Mesa's rusticl (llvmpipe,
// no fp64) when it is installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "runtime/double_float.hpp"
#include "support/test_support.hpp"

namespace portacl {
namespace {

using Rational = boost::multiprecision::cpp_rational;
using df::df_t;

// Rusticl shows its llvmpipe device only when asked before the first OpenCL call.
const int kRusticl = (setenv("RUSTICL_ENABLE", "llvmpipe", 0), 0);

Rational exact(float x) {
    if (x == 0.0f) return Rational(0);
    int e = 0;
    const float m = std::frexp(x, &e);                          // x = m 2^e, 0.5 <= |m| < 1
    const auto mi = static_cast<long long>(std::ldexp(m, 24));  // exact: 24 bits
    const int p = e - 24;
    const boost::multiprecision::cpp_int one = 1;
    return p >= 0 ? Rational(mi * (one << p)) : Rational(boost::multiprecision::cpp_int(mi), one << -p);
}
Rational exact(const df_t& x) { return exact(x.hi) + exact(x.lo); }

const Rational kU = Rational(1) / Rational(16777216);  // 2^-24

// |got - want| <= bound |want|
bool within(const Rational& got, const Rational& want, const Rational& bound) {
    const Rational err = abs(got - want);
    return err <= bound * abs(want);
}
bool normalized(const df_t& x) { return x.hi + x.lo == x.hi; }

// A double-float with hi of exponent in [-e, e], lo anywhere up to half an ulp of hi.
df_t randomDf(std::mt19937& rng, int e) {
    std::uniform_real_distribution<float> mant(0.5f, 1.0f);
    std::uniform_int_distribution<int> ex(-e, e), coin(0, 1);
    const float hi = std::ldexp(mant(rng), ex(rng)) * (coin(rng) ? 1.0f : -1.0f);
    const float ulp = std::nextafter(std::fabs(hi), INFINITY) - std::fabs(hi);
    std::uniform_real_distribution<float> frac(-0.5f, 0.5f);
    float lo = frac(rng) * ulp;
    if (coin(rng) && coin(rng)) lo = (coin(rng) ? 0.5f : -0.5f) * ulp;  // a tie
    const df_t r = df::df_fast_two_sum(hi, lo);
    return r;
}

// Pairs for the tests: random, near-cancelling, all-ones significands, ties, wide gaps.
std::vector<std::pair<df_t, df_t>> inputs(unsigned seed, std::size_t n) {
    std::mt19937 rng(seed);
    std::vector<std::pair<df_t, df_t>> out;
    for (std::size_t i = 0; i < n; ++i) {
        df_t x = randomDf(rng, 30), y = randomDf(rng, 30);
        switch (i % 6) {
            case 1: y = df::df_fast_two_sum(-x.hi, randomDf(rng, 1).lo * std::ldexp(1.0f, -30)); break;  // cancellation
            case 2: y = df::df_make(-x.hi, -x.lo * 0.5f); break;  // cancellation down to lo
            case 3: x = df::df_make(std::ldexp(0x1.fffffep0f, static_cast<int>(rng() % 20)), 0.0f); break;
            case 4: y = df::df_make(std::ldexp(y.hi, 40), 0.0f); break;  // a wide exponent gap
            default: break;
        }
        out.push_back({x, y});
    }
    return out;
}

TEST(DoubleFloat, TwoSumAndTwoProductAreExact) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
    std::uniform_int_distribution<int> ex(-40, 40);
    for (int i = 0; i < 20000; ++i) {
        float a = std::ldexp(mant(rng), ex(rng)), b = std::ldexp(mant(rng), ex(rng));
        if (i % 4 == 1) b = -std::nextafter(a, 0.0f);                  // cancellation
        if (i % 4 == 2) a = std::ldexp(0x1.fffffep0f, ex(rng)), b = a;  // all-ones significands
        const df_t s = df::df_two_sum(a, b);
        ASSERT_EQ(exact(s), exact(a) + exact(b)) << a << " + " << b;
        ASSERT_TRUE(normalized(s));
        const df_t pf = df::df_two_prod_fma(a, b), pd = df::df_two_prod_dekker(a, b);
        ASSERT_EQ(exact(pf), exact(a) * exact(b)) << a << " * " << b;
        ASSERT_EQ(exact(pd), exact(a) * exact(b)) << a << " * " << b << " (split)";
        ASSERT_EQ(pf.hi, pd.hi);
        ASSERT_EQ(pf.lo, pd.lo);
    }
}

TEST(DoubleFloat, AdditionAndProductsWithinTheirPublishedBounds) {
    const Rational addBound = 3 * kU * kU + 13 * kU * kU * kU;  // Joldes, Muller, Popescu 2017
    const Rational mulFmaBound = 5 * kU * kU, mulSplitBound = 7 * kU * kU;
    std::size_t cancelled = 0;
    for (const auto& [x, y] : inputs(11, 30000)) {
        const Rational ex = exact(x), ey = exact(y);
        const df_t s = df::df_add(x, y);
        ASSERT_TRUE(within(exact(s), ex + ey, addBound)) << x.hi << "+" << x.lo << " plus " << y.hi << "+" << y.lo;
        ASSERT_TRUE(normalized(s));
        cancelled += std::fabs(s.hi) < std::fabs(x.hi) * 0x1p-20f;
        const df_t mf = df::df_mul_fma(x, y), ms = df::df_mul_dekker(x, y);
        ASSERT_TRUE(within(exact(mf), ex * ey, mulFmaBound)) << x.hi << "+" << x.lo << " times " << y.hi << "+" << y.lo;
        ASSERT_TRUE(within(exact(ms), ex * ey, mulSplitBound)) << x.hi << "+" << x.lo << " times " << y.hi << "+" << y.lo;
        ASSERT_TRUE(normalized(mf));
        ASSERT_TRUE(normalized(ms));
    }
    EXPECT_GT(cancelled, 5000u);  // the adversarial pairs did cancel
}

TEST(DoubleFloat, GrainIsTheLowestSetBit) {
    EXPECT_EQ(df::df_grain(1.0f), 0);
    EXPECT_EQ(df::df_grain(0.75f), -2);
    EXPECT_EQ(df::df_grain(-96.0f), 5);
    EXPECT_EQ(df::df_grain(0x1.000002p0f), -23);
    EXPECT_EQ(df::df_grain(0x1p-149f), -149);  // the smallest subnormal
    EXPECT_EQ(df::df_grain(0x1p-130f), -130);
    EXPECT_EQ(df::df_grain(0.0f), 1000);
}

// ---- on the device ----

constexpr const char* kKernels = R"CL(
#include "common/real.h"
#include "common/double_float.h"

__kernel void df_ops(const uint n, __global const float4* xy, __global float8* out, __global int* usesFma) {
    const uint i = get_global_id(0);
    if (i == 0) *usesFma = DF_USE_FMA;
    if (i >= n) return;
    const float4 v = xy[i];
    const df_t x = df_make(v.x, v.y), y = df_make(v.z, v.w);
    const df_t s = df_add(x, y), m = df_mul(x, y), ts = df_two_sum(v.x, v.z), tp = df_two_prod(v.x, v.z);
    out[i] = (float8)(s.hi, s.lo, m.hi, m.lo, ts.hi, ts.lo, tp.hi, tp.lo);
}
)CL";

struct KernelDir {
    std::filesystem::path dir;
    std::string previous;
    KernelDir() {
        dir = std::filesystem::temp_directory_path() / ("portacl-double-float-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "double_float_test.cl") << kKernels;
        if (const char* p = std::getenv("PORTACL_KERNEL_DIR")) previous = p;
        setenv("PORTACL_KERNEL_DIR", dir.c_str(), 1);
    }
    ~KernelDir() {
        if (previous.empty()) unsetenv("PORTACL_KERNEL_DIR");
        else setenv("PORTACL_KERNEL_DIR", previous.c_str(), 1);
        std::filesystem::remove_all(dir);
    }
};

// The device's results equal the host reference's, bit for bit, for the variant it compiled (fma
// where FP_FAST_FMAF, else the split; extraOptions may force the split).
void expectDeviceEqualsHost(Context& ctx, const std::string& extraOptions) {
    const KernelDir kernels;
    const auto pairs = inputs(29, 20000);
    std::vector<cl_float4> xy;
    for (const auto& [x, y] : pairs) xy.push_back(cl_float4{{x.hi, x.lo, y.hi, y.lo}});
    const std::size_t n = xy.size();
    cl::Buffer in = ctx.upload(xy, "pairs");
    cl::Buffer out = ctx.buffer(n * sizeof(cl_float8), "results");
    cl::Buffer fmaFlag = ctx.buffer(sizeof(cl_int), "uses fma");
    cl::Kernel k = ctx.kernel("double_float_test.cl", "df_ops", Precision::Float,
                              "-D PORTACL_DOUBLE_FLOAT=1" + (extraOptions.empty() ? "" : " " + extraOptions));
    k.setArg(0, static_cast<cl_uint>(n)), k.setArg(1, in), k.setArg(2, out), k.setArg(3, fmaFlag);
    ctx.launch(k, cl::NDRange((n + 63) / 64 * 64), cl::NDRange(64));
    const auto got = ctx.download<cl_float8>(out, n, "results");
    const bool usesFma = ctx.download<cl_int>(fmaFlag, 1, "uses fma")[0] != 0;
    if (!extraOptions.empty()) EXPECT_FALSE(usesFma);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& [x, y] = pairs[i];
        const df_t s = df::df_add(x, y), m = usesFma ? df::df_mul_fma(x, y) : df::df_mul_dekker(x, y);
        const df_t ts = df::df_two_sum(x.hi, y.hi);
        const df_t tp = usesFma ? df::df_two_prod_fma(x.hi, y.hi) : df::df_two_prod_dekker(x.hi, y.hi);
        const float want[8] = {s.hi, s.lo, m.hi, m.lo, ts.hi, ts.lo, tp.hi, tp.lo};
        for (int j = 0; j < 8; ++j)
            if (!(got[i].s[j] == want[j])) {
                if (wrong++ < 5)
                    ADD_FAILURE() << ctx.device().label() << ": pair " << i << " result " << j << ": " << got[i].s[j]
                                  << " != host " << want[j] << (usesFma ? " (fma)" : " (split)");
            }
    }
    EXPECT_EQ(wrong, 0u) << ctx.device().label();
}

TEST(DoubleFloatDevice, EqualsTheHostBitForBit) { expectDeviceEqualsHost(test::context(), ""); }

TEST(DoubleFloatDevice, SplitVariantEqualsTheHostBitForBit) {
    expectDeviceEqualsHost(test::context(), "-D PORTACL_DF_NO_FMA=1");
}

TEST(DoubleFloatDevice, OnRusticlWithoutFp64) {
    (void)kRusticl;
    Context* ctx = test::rusticlContext();
    if (!ctx) GTEST_SKIP() << "Mesa's rusticl (llvmpipe) is not installed";
    EXPECT_FALSE(ctx->device().fp64);
    expectDeviceEqualsHost(*ctx, "");
    expectDeviceEqualsHost(*ctx, "-D PORTACL_DF_NO_FMA=1");
}

}  // namespace
}  // namespace portacl

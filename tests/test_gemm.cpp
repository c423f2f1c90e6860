// The register-blocked matrix product under every tuning that ships: the [gemm] values of every
// profile in platforms/ (NVIDIA's included, so the GPU configuration runs here on the test device) and
// every variant of the GPU sweep (tools/anchors/gemm_variants.txt). Each is held to the serial
// reference at sizes that are no multiple of any tile (scalar paths with guards), at sizes whose rows
// start on 4-vector boundaries (vector paths with guards), and at whole tiles (the unguarded path the
// GPU benchmark takes). NVIDIA-only compiler options of a tuning are dropped here.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "portacl/gemm.hpp"
#include "portacl/runtime/error.hpp"
#include "support/test_support.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<TuningProfile> shippedProfiles() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(PORTACL_SOURCE_DIR) / "platforms"))
        if (e.path().extension() == ".profile") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<TuningProfile> out;
    for (const auto& f : files) out.push_back(TuningProfile::parse(readText(f), f.stem().string(), f.string()));
    return out;
}

struct SweepVariant {
    std::string name;
    Precision precision;
    TuningProfile profile;  // a [gemm] section made of the line's key=value pairs
};

std::vector<SweepVariant> sweepVariants() {
    const fs::path path = fs::path(PORTACL_SOURCE_DIR) / "tools/anchors/gemm_variants.txt";
    std::stringstream lines(readText(path));
    std::vector<SweepVariant> out;
    std::string line;
    while (std::getline(lines, line)) {
        std::stringstream words(line);
        std::string name, precision, pair, section = "[gemm]\n";
        if (!(words >> name) || name[0] == '#') continue;
        words >> precision;
        while (words >> pair) {
            const auto eq = pair.find('=');
            section += pair.substr(0, eq) + " = " + pair.substr(eq + 1) + "\n";
        }
        out.push_back({name, parsePrecision(precision), TuningProfile::parse(section, name, path.string())});
    }
    return out;
}

template <typename T>
std::vector<T> randomMatrix(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(dist(gen));
    return v;
}

// The largest difference from the serial reference in units of each element's rounding bound: both
// sums of K products differ from the exact one by at most (K/2)*eps*sum|a||b| (any order, with or
// without fused multiply-adds), so a correct kernel stays at or below 1.
template <typename T>
double worstRelativeToBound(const GemmTuning& tuning, std::size_t M, std::size_t N, std::size_t K,
                            GemmKernel kernel = GemmKernel::RegisterBlocked) {
    const auto A = randomMatrix<T>(M * K, unsigned(M * 7 + K)), B = randomMatrix<T>(K * N, unsigned(N * 5 + K));
    const auto C = gemm(test::context(), kernel, M, N, K, A, B, tuning);
    const auto R = gemmReference(M, N, K, A, B);
    const double eps = std::numeric_limits<T>::epsilon();
    double worst = 0;
    for (std::size_t i = 0; i < M; ++i)
        for (std::size_t j = 0; j < N; ++j) {
            double magnitude = 0;
            for (std::size_t k = 0; k < K; ++k) magnitude += std::abs(double(A[i * K + k]) * double(B[k * N + j]));
            const double bound = K * eps * magnitude + std::numeric_limits<T>::min();
            worst = std::max(worst, std::abs(double(C[i * N + j]) - double(R[i * N + j])) / bound);
        }
    return worst;
}

struct Shape {
    std::size_t M, N, K;
    const char* what;
};

// Shapes that take each path of the kernel under `t`: every shape compiles one program per set of
// FULL_TILES, VEC_A and VEC_B (the shapes of one set share it), and compiling dominates the suite's time.
std::vector<Shape> shapesFor(const GemmTuning& t, bool scalarOnly, bool mixedVectors) {
    std::vector<Shape> s = {{1, 1, 1, "1x1x1"}, {17, 33, 65, "ragged, scalar"}, {129, 130, 131, "ragged, scalar"}};
    if (t.cpuRows > 0) {
        // The CPU shape: whole blocks only (rows of 64 are whole for every native width up to 16 and
        // 2 vectors), and whole blocks beside partial ones along both edges.
        const std::size_t rows = std::size_t(t.cpuRows);
        s.push_back({2 * rows, 64, 33, "whole CPU blocks"});
        s.push_back({3 * rows + 1, 64 * std::size_t(t.cpuVectors) + 5, 17, "CPU blocks and edges"});
        return s;
    }
    if (!scalarOnly)
        s.push_back({std::size_t(t.tileM) + 3, std::size_t(t.tileN) + 4, std::size_t(t.tileK) + 4, "ragged, vector rows"});
    s.push_back({2 * std::size_t(t.tileM), std::size_t(t.tileN), 3 * std::size_t(t.tileK), "whole tiles"});
    if (mixedVectors) {
        s.push_back({33, 65, 68, "vector A rows, scalar B"});
        s.push_back({65, 68, 33, "scalar A rows, vector B"});
    }
    return s;
}

template <typename T>
void expectMatchesReference(GemmTuning tuning, const std::string& label, bool scalarOnly, bool mixedVectors) {
    tuning.buildOptions.clear();  // vendor compiler options (-cl-nv-...) mean nothing to the test device
    for (const auto& s : shapesFor(tuning, scalarOnly, mixedVectors))
        EXPECT_LE(worstRelativeToBound<T>(tuning, s.M, s.N, s.K), 1.0)
            << label << ", " << precisionName(precisionOf<T>()) << ", " << s.M << "x" << s.N << "x" << s.K << " ("
            << s.what << ")";
}

// What makes two tunings different programs. unroll_k is left out: an unroll pragma cannot change
// what the loop computes, so variants that differ only there share one test.
std::string tilesOf(const GemmTuning& t) {
    std::ostringstream o;
    if (t.cpuRows > 0) o << "cpu " << t.cpuRows << " " << t.cpuVectors;
    else o << t.tileM << " " << t.tileN << " " << t.tileK << " " << t.wptM << " " << t.wptN << " " << t.warpTile << " " << t.doubleBuffer;
    return o.str();
}

}  // namespace

template <typename T>
class GemmTyped : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::is_same<T, double>::value && !test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    }
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmTyped, Precisions);

// Runs check: the engine's refusal of tiles of more work-items than the device runs the kernel with
// (rusticl on llvmpipe: 32) is passed over, saying so, by the tests of other devices' tiles; any other
// error fails the test.
template <class Check>
static void passingOverTilesTooWide(Check check) {
    try {
        check();
    } catch (const Error& e) {
        if (std::string(e.what()).find("give the device's profile smaller [gemm] tiles") == std::string::npos) throw;
        std::cout << "passed over: " << e.what() << "\n";
    }
}

TYPED_TEST(GemmTyped, EveryShippedProfileMatchesReference) {
    const Precision p = precisionOf<TypeParam>();
    // The test device's own profile first, with every mix of vector and scalar rows.
    expectMatchesReference<TypeParam>(gemmTuning(test::context().tuning(), p), "the test device's profile", false, true);
    std::set<std::string> done{tilesOf(gemmTuning(test::context().tuning(), p))};
    for (const auto& profile : shippedProfiles()) {
        const GemmTuning t = gemmTuning(profile, p);
        if (!done.insert(tilesOf(t)).second) continue;
        passingOverTilesTooWide([&] { expectMatchesReference<TypeParam>(t, "profile " + profile.name, false, false); });
    }
    EXPECT_GE(done.size(), 2u);
}

TYPED_TEST(GemmTyped, InnerDimensionZeroGivesZeros) {
    const std::vector<TypeParam> none;
    const auto C = gemm(test::context(), GemmKernel::RegisterBlocked, 5, 7, 0, none, none);
    EXPECT_EQ(C, std::vector<TypeParam>(35, TypeParam(0)));
}

// The FP64 tensor-core kernel (inline PTX): within the FMA kernel's error bound at sizes that cut
// fragments, warps and tiles on NVIDIA GPUs of compute capability 8.0 and up; elsewhere refused with
// the sentence that says why, in double and in float.
TEST(GemmTensorCore, MatchesReferenceAtOddSizesOrIsRefused) {
    Context& ctx = test::context();
    const std::vector<float> f(4, 1.0f);
    try {
        gemm(ctx, GemmKernel::TensorCore, 2, 2, 2, f, f);
        ADD_FAILURE() << "a float product on the tensor-core kernel was not refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("multiplies doubles only"), std::string::npos) << e.what();
    }
    if (!test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    const std::string why = tensorCoreRefusal(ctx.device(), Precision::Double);
    if (!why.empty()) {
        const std::vector<double> d(4, 1.0);
        try {
            gemm(ctx, GemmKernel::TensorCore, 2, 2, 2, d, d);
            ADD_FAILURE() << "the tensor-core kernel ran on " << ctx.device().label();
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), why);
        }
        EXPECT_EQ(defaultGemmKernel(ctx, Precision::Double), GemmKernel::RegisterBlocked);
        return;
    }
    // The profile's shape, and on compute capability 9.0 each instruction shape (K of 4, 8 and 16) in
    // tiles that fit 48 KiB of local memory.
    std::vector<GemmTuning> tunings{gemmTuning(ctx.tuning(), Precision::Double)};
    if (ctx.device().nvComputeMajor >= 9)
        for (const std::array<int, 6>& v : std::vector<std::array<int, 6>>{
                 {128, 64, 8, 4, 2, 4}, {128, 64, 8, 4, 2, 8}, {64, 64, 16, 2, 2, 16}}) {
            GemmTuning t = tunings.front();
            t.tensorM = v[0], t.tensorN = v[1], t.tensorK = v[2], t.tensorWarpsM = v[3], t.tensorWarpsN = v[4];
            t.tensorInstructionK = v[5];
            t.tensorStages = 0;  // register staging, whatever the profile stages
            t.tensorBuildOptions.clear();
            tunings.push_back(t);
        }
    // cp.async staging (compute capability 8.0 and up, as the kernel itself), registers capped at 128:
    // 128 x 64 in 4 x 2 warps with 2 and 4 stages of K 8, 3 stages with m16n8k8 on 9.0, and 64 x 64
    // in 2 x 2 warps with 4 stages. (4 x 4 warps stay refused on NVIDIA's driver with the cap: 256
    // work-items a group.)
    for (const std::array<int, 7>& v : std::vector<std::array<int, 7>>{
             {128, 64, 8, 4, 2, 2, 4}, {128, 64, 8, 4, 2, 4, 4}, {128, 64, 8, 4, 2, 3, 8}, {64, 64, 8, 2, 2, 4, 4}}) {
        GemmTuning t = tunings.front();
        t.tensorM = v[0], t.tensorN = v[1], t.tensorK = v[2], t.tensorWarpsM = v[3], t.tensorWarpsN = v[4];
        t.tensorStages = v[5], t.tensorInstructionK = ctx.device().nvComputeMajor >= 9 ? v[6] : 4;
        t.tensorBuildOptions = "-cl-nv-maxrregcount=128";
        tunings.push_back(t);
    }
    for (const GemmTuning& t : tunings)
        for (const auto& s : std::vector<Shape>{{1, 1, 1, "1x1x1"},
                                                {std::size_t(t.tensorM) + 3, std::size_t(t.tensorN) + 5, std::size_t(t.tensorK) + 3, "ragged"},
                                                {2 * std::size_t(t.tensorM), 3 * std::size_t(t.tensorN), 4 * std::size_t(t.tensorK), "whole tiles"},
                                                {257, 129, 263, "odd"}})
            EXPECT_LE(worstRelativeToBound<double>(t, s.M, s.N, s.K, GemmKernel::TensorCore), 1.0)
                << s.M << "x" << s.N << "x" << s.K << " (" << s.what << ", instruction K " << t.tensorInstructionK
                << ", tile K " << t.tensorK << ", stages " << t.tensorStages << ")";
}

// The CPU shape (cl/gemm_cpu.cl) at block sizes the profiles do not ship, on whatever the test
// device is: a row, an odd number of rows, three vectors.
TYPED_TEST(GemmTyped, CpuShapeAtOtherBlocksMatchesReference) {
    for (const auto& [rows, vectors] : std::vector<std::pair<int, int>>{{1, 1}, {5, 3}, {12, 2}}) {
        GemmTuning t = gemmTuning(test::context().tuning(), precisionOf<TypeParam>());
        t.cpuRows = rows, t.cpuVectors = vectors;
        expectMatchesReference<TypeParam>(t, "CPU blocks of " + std::to_string(rows) + " x " + std::to_string(vectors), false, false);
    }
}

TEST(GemmSweep, EveryVariantMatchesReference) {
    const auto variants = sweepVariants();
    ASSERT_GE(variants.size(), 4u);
    std::set<std::string> done;
    for (const auto& v : variants) {
        const GemmTuning t = gemmTuning(v.profile, v.precision);
        if (!done.insert(precisionName(v.precision) + std::string(" ") + tilesOf(t)).second) continue;
        passingOverTilesTooWide([&] {
            if (v.precision == Precision::Double) {
                if (test::hasFp64()) expectMatchesReference<double>(t, "sweep variant " + v.name, true, false);
            } else {
                expectMatchesReference<float>(t, "sweep variant " + v.name, true, false);
            }
        });
    }
}

TEST(GemmTuning, DoubleKeysOverrideForDouble) {
    const auto p = TuningProfile::parse("[gemm]\nunroll_k = 4\nunroll_k_double = 8\nbuild_options = -x\n", "t", "t");
    EXPECT_EQ(gemmTuning(p, Precision::Float).unrollK, 4);
    EXPECT_EQ(gemmTuning(p, Precision::Double).unrollK, 8);
    EXPECT_EQ(gemmTuning(p, Precision::Double).buildOptions, "-x");
    const auto q = TuningProfile::parse("[gemm]\ntensor_stages_double = 3\ntensor_build_options_double = -y\n", "t", "t");
    EXPECT_EQ(gemmTuning(q, Precision::Float).tensorStages, 0);
    EXPECT_EQ(gemmTuning(q, Precision::Double).tensorStages, 3);
    EXPECT_EQ(gemmTuning(q, Precision::Float).tensorBuildOptions, "");
    EXPECT_EQ(gemmTuning(q, Precision::Double).tensorBuildOptions, "-y");
}

TEST(GemmTuning, InconsistentTilesAreRefusedNamingTheProfile) {
    for (const char* bad : {"wpt_m = 6", "tile_k = 10", "tile_k = 4", "unroll_k = 0", "tile_n = 32\nwpt_n = 8\nwarp_tile = 1",
                            "tensor_instruction_k = 6", "tensor_k = 8\ntensor_instruction_k = 16",
                            "tensor_stages = 1", "tensor_stages = 5", "tensor_stages = 2\ntensor_k = 64\ntensor_instruction_k = 16",
                            "tensor_stages = 2\ntensor_k = 16\ntensor_n = 72\ntensor_warps_n = 1"}) {
        const auto p = TuningProfile::parse(std::string("[gemm]\n") + bad + "\n", "broken", "broken.profile");
        try {
            gemmTuning(p, Precision::Float);
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
        }
    }
}

TEST(GemmTuning, TilesBeyondTheDevicesLocalMemoryShrinkToTheLargestThatFits) {
    // A device like llvmpipe with 32 KiB, and one with 2 KiB: the profile's tiles shrink (one
    // buffer, then shorter K-steps, then smaller M and N tiles) until A and B fit; with too little
    // for the smallest tiles, one sentence about local memory.
    DeviceInfo device = test::context().device();
    device.maxWorkGroupSize = 1024;
    GemmTuning wanted;
    wanted.tileM = wanted.tileN = 128, wanted.tileK = 16, wanted.wptM = wanted.wptN = 8, wanted.unrollK = 16;
    const auto localBytes = [](const GemmTuning& t, std::size_t element) {
        return (t.doubleBuffer ? 2u : 1u) * t.tileK * (t.tileM + 4 + t.tileN + 4) * element;
    };
    for (std::size_t local : {32768u, 2048u}) {
        device.localMemBytes = local;
        for (Precision p : {Precision::Float, Precision::Double}) {
            const std::size_t element = p == Precision::Double ? 8 : 4;
            const GemmTuning got = fitGemmTuning(device, p, wanted);
            EXPECT_LE(localBytes(got, element), local) << describeGemmTuning(got);
            EXPECT_LT(localBytes(got, element), localBytes(wanted, element));
            EXPECT_EQ(got.tileM % got.wptM, 0);
            EXPECT_LE(got.unrollK, got.tileK);
            // The largest: doubling its K-steps or its M tile again would not fit.
            GemmTuning bigger = got;
            bigger.tileK *= 2;
            if (bigger.tileK <= wanted.tileK && got.tileM == wanted.tileM) EXPECT_GT(localBytes(bigger, element), local);
        }
    }
    device.localMemBytes = 256;
    try {
        fitGemmTuning(device, Precision::Float, wanted);
        ADD_FAILURE() << "tiles were accepted for 256 bytes of local memory";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("local memory"), std::string::npos) << e.what();
    }
    // And a product with the profile's tiles on a device of 32 KiB equals the reference.
    const std::size_t n = 40;
    std::vector<float> A(n * n), B(n * n);
    for (std::size_t i = 0; i < n * n; ++i) A[i] = float(i % 7) - 3, B[i] = float(i % 5) - 2;
    device.localMemBytes = 32768;
    const GemmTuning fitted = fitGemmTuning(device, Precision::Float, wanted);
    passingOverTilesTooWide([&] { EXPECT_EQ(gemm(test::context(), GemmKernel::RegisterBlocked, n, n, n, A, B, fitted), gemmReference(n, n, n, A, B)); });
}

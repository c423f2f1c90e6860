// Reconstruction by simulated annealing: incremental counts after 1000 swaps equal a full
// recomputation (device and serial evaluators, 2-D and 3-D); device and serial ΔE agree; the chain is
// the same whatever the batch size and evaluator; a stripes target is reconstructed to zero error;
// checkpoints round-trip and reject corrupt files and other targets.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/runtime/error.hpp"
#include "support/random_phase_image.hpp"
#include "support/test_support.hpp"

namespace lp = portacl::lineal;
using portacl::Precision;
using portacl::test::context;

namespace {

lp::PhaseImage randomImage(int nz, int ny, int nx, double fraction, unsigned seed) {
    lp::PhaseImage img = portacl::test::randomPhaseImage(nz, ny, nx, fraction, seed);
    img.mask[1] = 0;  // both phases present: swaps need a pixel of each
    return img;
}

lp::PhaseImage stripes(int ny, int nx, int period, int width) {
    lp::PhaseImage img;
    img.ny = ny;
    img.nx = nx;
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) img.mask.push_back(x % period < width ? 1 : 0);
    return img;
}

// Applies `swaps` random swaps (one of a batch of 4 candidates each time) and checks the counts.
void randomSwaps(lp::SwapEvaluator& ev, const lp::Target& t, int swaps, unsigned seed) {
    std::mt19937 rng(seed);
    for (int s = 0; s < swaps; ++s) {
        const auto& img = ev.image();
        std::vector<std::uint32_t> in, out;
        for (std::uint32_t i = 0; i < img.size(); ++i) (img.mask[i] ? in : out).push_back(i);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> batch;
        for (int k = 0; k < 4; ++k) batch.push_back({in[rng() % in.size()], out[rng() % out.size()]});
        ev.deltaErrors(batch);
        ev.apply(rng() % 4);
    }
    const auto full = lp::linealPathReference(ev.image(), {t.maxLength, true});
    EXPECT_EQ(ev.counts(), full.count);
    if (!t.S2.empty()) EXPECT_EQ(ev.s2Counts(), lp::twoPointCounts(ev.image(), t.maxLength));
}

}  // namespace

TEST(LinealPathReconstruct, IncrementalCountsEqualFullRecomputation2D) {
    const auto t = lp::targetFromImage(context(), randomImage(1, 20, 24, 0.5, 1), 6);
    const auto start = randomImage(1, 20, 24, 0.5, 2);
    auto dev = lp::makeDeviceEvaluator(context(), t, start, Precision::Float);
    randomSwaps(*dev, t, 1000, 3);
    auto ref = lp::makeReferenceEvaluator(t, start);
    randomSwaps(*ref, t, 1000, 3);
    EXPECT_EQ(dev->image().mask, ref->image().mask);
}

TEST(LinealPathReconstruct, IncrementalCountsEqualFullRecomputation3D) {
    const auto t = lp::targetFromImage(context(), randomImage(7, 8, 9, 0.6, 4), 3);
    auto dev = lp::makeDeviceEvaluator(context(), t, randomImage(7, 8, 9, 0.6, 5), Precision::Float);
    randomSwaps(*dev, t, 1000, 6);
}

TEST(LinealPathReconstruct, IncrementalCountsWithS2) {
    const auto t = lp::targetFromImage(context(), randomImage(1, 14, 17, 0.5, 21), 4, 0.5);
    ASSERT_EQ(t.S2.size(), t.L.size());
    const auto start = randomImage(1, 14, 17, 0.5, 22);
    auto dev = lp::makeDeviceEvaluator(context(), t, start, Precision::Float);
    randomSwaps(*dev, t, 1000, 23);
    auto ref = lp::makeReferenceEvaluator(t, start);
    randomSwaps(*ref, t, 1000, 23);
    const auto t3 = lp::targetFromImage(context(), randomImage(6, 7, 8, 0.5, 24), 2, 1.0);
    auto dev3 = lp::makeDeviceEvaluator(context(), t3, randomImage(6, 7, 8, 0.5, 25), Precision::Float);
    randomSwaps(*dev3, t3, 1000, 26);
}

TEST(LinealPathReconstruct, DeviceErrorChangesEqualReference) {
  for (double w2 : {0.0, 0.7}) {
    SCOPED_TRACE(w2);
    const auto t = lp::targetFromImage(context(), randomImage(1, 18, 22, 0.4, 7), 5, w2);
    const auto start = randomImage(1, 18, 22, 0.4, 8);
    auto ref = lp::makeReferenceEvaluator(t, start);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> batch;
    std::mt19937 rng(9);
    std::vector<std::uint32_t> in, out;
    for (std::uint32_t i = 0; i < start.size(); ++i) (start.mask[i] ? in : out).push_back(i);
    for (int k = 0; k < 50; ++k) batch.push_back({in[rng() % in.size()], out[rng() % out.size()]});
    const auto want = ref->deltaErrors(batch);
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        auto dev = lp::makeDeviceEvaluator(context(), t, start, p);
        const auto got = dev->deltaErrors(batch);
        // Float: sums of ~121 terms of size ~1e-3 * 2/N; double: rounding only.
        const double tol = p == Precision::Float ? 1e-8 : 1e-15;
        for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << portacl::precisionName(p) << " candidate " << i;
    }
  }
}

TEST(LinealPathReconstruct, ChainIndependentOfBatchAndEvaluator) {
    if (!portacl::test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    const auto t = lp::targetFromImage(context(), stripes(16, 16, 8, 3), 4);
    lp::AnnealOptions opt;
    opt.steps = 1500;
    opt.tMax = 1e-3;
    opt.tMin = 1e-6;
    opt.seed = 42;
    opt.progress = false;
    lp::AnnealState a, b;
    a.image = b.image = lp::randomStart(t, opt.seed);
    auto ref = lp::makeReferenceEvaluator(t, a.image);
    opt.maxBatch = 1;
    lp::anneal(*ref, t, opt, a);
    auto dev = lp::makeDeviceEvaluator(context(), t, b.image, Precision::Double);
    opt.maxBatch = 64;
    lp::anneal(*dev, t, opt, b);
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.accepted, b.accepted);
    EXPECT_EQ(a.image.mask, b.image.mask);
    EXPECT_GT(a.accepted, 10u);
}

TEST(LinealPathReconstruct, StripesReachZeroError) {
    const auto target = stripes(16, 16, 8, 4);
    const auto t = lp::targetFromImage(context(), target, 4);
    lp::AnnealOptions opt;
    opt.steps = 60000;
    opt.tMax = 1e-3;
    opt.tMin = 1e-7;
    opt.seed = 7;
    opt.maxBatch = 128;
    opt.progress = false;
    lp::AnnealState st;
    st.image = lp::randomStart(t, opt.seed);
    auto ev = lp::makeDeviceEvaluator(context(), t, st.image, Precision::Float);
    lp::anneal(*ev, t, opt, st);
    EXPECT_EQ(st.error, 0.0) << "after " << st.step << " steps";
    const auto got = lp::linealPathReference(st.image, {4, true});
    const auto want = lp::linealPathReference(target, {4, true});
    EXPECT_EQ(got.count, want.count);
    std::cout << "[ info ] stripes reconstructed in " << st.step << " steps (" << st.accepted << " accepted)\n";
}

TEST(LinealPathReconstruct, CheckpointRoundTripAndRejections) {
    const auto t = lp::targetFromImage(context(), stripes(12, 12, 6, 2), 3);
    lp::AnnealOptions opt;
    opt.seed = 5;
    opt.steps = 300;
    opt.progress = false;
    lp::AnnealState st;
    st.image = lp::randomStart(t, opt.seed);
    auto ev = lp::makeReferenceEvaluator(t, st.image);
    lp::anneal(*ev, t, opt, st);
    const std::string path = ::testing::TempDir() + "lineal_ckpt.bin";
    lp::writeCheckpoint(path, t, opt, st);
    lp::AnnealOptions back;
    const auto r = lp::readCheckpoint(path, t, back);
    EXPECT_EQ(r.image.mask, st.image.mask);
    EXPECT_EQ(r.step, st.step);
    EXPECT_EQ(back.seed, 5u);
    EXPECT_EQ(r.history.size(), st.history.size());
    // Another target.
    const auto other = lp::targetFromImage(context(), stripes(12, 12, 6, 3), 3);
    try {
        lp::readCheckpoint(path, other, back);
        FAIL();
    } catch (const portacl::Error& e) {
        EXPECT_NE(std::string(e.what()).find("belongs to another target"), std::string::npos) << e.what();
    }
    // One flipped byte.
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(60);
        f.put('\x7f');
    }
    try {
        lp::readCheckpoint(path, t, back);
        FAIL();
    } catch (const portacl::Error& e) {
        EXPECT_NE(std::string(e.what()).find("corrupt"), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
}

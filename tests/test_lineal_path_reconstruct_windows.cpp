// The reconstruction's two device paths under a tuning profile of this test's own, held to the serial
// evaluator in float and double: candidate windows split into parts (a window budget of 1000 bytes:
// a few candidates per part), and a cell whose window exceeds the budget, which reads the whole
// image (anneal_delta, the GPUs' default). test_lineal_path_reconstruct covers the default CPU path.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>

#include "portacl/lineal_path/reconstruct.hpp"
#include "support/random_phase_image.hpp"
#include "support/test_support.hpp"

namespace lp = portacl::lineal;
using portacl::Precision;
using portacl::test::context;

namespace {

// Installs the profile before the test context exists (the first context() call).
class WindowBudgetProfile : public testing::Environment {
public:
    void SetUp() override {
        dir_ = testing::TempDir() + "portacl_anneal_windows_" + std::to_string(::getpid());
        ::mkdir(dir_.c_str(), 0700);
        // Matched on every fact of the test device, so that it is more specific than any shipped profile.
        const char* spec = std::getenv("PORTACL_TEST_DEVICE");
        const portacl::DeviceInfo d = portacl::selectDevice(spec ? spec : "");
        std::ofstream(dir_ + "/anneal-windows.profile") << "[match]\nplatform = " << d.platformName << "\nvendor = " << d.vendor
                                                        << "\ndevice = " << d.name << "\ntype = " << d.type << "\n"
                                                        << "[build]\noptions = -cl-mad-enable\n"
                                                        << "[lineal_path]\nanneal_windows = 1\nanneal_window_bytes = 1000\n";
        ::setenv("PORTACL_PLATFORMS_DIR", dir_.c_str(), 1);
    }
    void TearDown() override {
        std::remove((dir_ + "/anneal-windows.profile").c_str());
        ::rmdir(dir_.c_str());
    }

private:
    std::string dir_;
};
const auto* const kEnv = testing::AddGlobalTestEnvironment(new WindowBudgetProfile);

lp::PhaseImage randomImage(int nz, int ny, int nx, double fraction, unsigned seed) {
    lp::PhaseImage img = portacl::test::randomPhaseImage(nz, ny, nx, fraction, seed);
    img.mask[1] = 0;  // both phases present
    return img;
}

// 40 rounds of 12 candidates: each round's ΔE against the serial evaluator's, then one applied to
// both; at the end the images and exact counts agree.
void matchesReference(int nz, int ny, int nx, int ml, double s2Weight) {
    SCOPED_TRACE(std::to_string(nz) + "x" + std::to_string(ny) + "x" + std::to_string(nx) + " ML " + std::to_string(ml));
    ASSERT_EQ(context().tuning().name, "anneal-windows") << "the test's profile was not picked";
    const auto t = lp::targetFromImage(context(), randomImage(nz, ny, nx, 0.5, 31), ml, s2Weight);
    const auto start = randomImage(nz, ny, nx, 0.5, 32);
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        auto dev = lp::makeDeviceEvaluator(context(), t, start, p);
        auto ref = lp::makeReferenceEvaluator(t, start);
        std::mt19937 rng(33);
        // Float: ΔE sums at most a few thousand terms of ~1e-3 * 2/N; double: rounding only.
        const double tol = p == Precision::Float ? 1e-6 : 1e-15;
        for (int s = 0; s < 40; ++s) {
            const auto& img = ref->image();
            std::vector<std::uint32_t> in, out;
            for (std::uint32_t i = 0; i < img.size(); ++i) (img.mask[i] ? in : out).push_back(i);
            std::vector<std::pair<std::uint32_t, std::uint32_t>> batch;
            for (int k = 0; k < 12; ++k) batch.push_back({in[rng() % in.size()], out[rng() % out.size()]});
            const auto want = ref->deltaErrors(batch), got = dev->deltaErrors(batch);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                ASSERT_NEAR(got[i], want[i], tol) << portacl::precisionName(p) << " round " << s << " candidate " << i;
            const std::size_t pick = rng() % batch.size();
            dev->apply(pick);
            ref->apply(pick);
        }
        EXPECT_EQ(dev->image().mask, ref->image().mask);
        EXPECT_EQ(dev->counts(), lp::linealPathReference(dev->image(), {t.maxLength, true}).count);
        if (s2Weight > 0) EXPECT_EQ(dev->s2Counts(), lp::twoPointCounts(dev->image(), t.maxLength));
    }
}

}  // namespace

// 11^2 = 121 bytes per candidate: 8 candidates per part, a batch of 12 in two parts.
TEST(LinealPathReconstructWindows, BatchInParts2D) { matchesReference(1, 18, 22, 5, 0.7); }

// 5^3 = 125 bytes per candidate (8 per part), with windows wider than the cell's 4-pixel side.
TEST(LinealPathReconstructWindows, BatchInParts3D) { matchesReference(4, 6, 7, 2, 0.0); }

// 45^2 = 2025 bytes for one candidate, beyond the budget: the whole-image kernel.
TEST(LinealPathReconstructWindows, WholeImageBeyondBudget) { matchesReference(1, 48, 46, 22, 0.5); }

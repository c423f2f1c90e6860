// Two-point probability S2 through the FFT: float and double against the serial reference's exact
// integer sums (2-D and 3-D, periodic and zero-padded non-periodic), and against GooseEYE's S2.h5.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "portacl/io/volume.hpp"
#include "portacl/lineal_path/two_point.hpp"
#include "portacl/runtime/error.hpp"
#include "support/random_phase_image.hpp"
#include "support/test_support.hpp"

namespace lp = portacl::lineal;
using portacl::Precision;
using portacl::test::context;
using portacl::test::randomPhaseImage;
using portacl::test::dataPath;

namespace {

// Float: sums of up to N ones through two float FFTs; double: rounding only.
double tolerance(Precision p) { return p == Precision::Float ? 2e-5 : 1e-12; }

void compare(const lp::PhaseImage& img, int ml, bool periodic, Precision p) {
    const lp::Options opt{ml, periodic};
    const auto got = lp::twoPointProbability(context(), img, opt, p);
    const auto want = lp::twoPointProbabilityReference(img, opt);
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
    EXPECT_LE(worst, tolerance(p)) << (periodic ? "periodic" : "non-periodic") << " ML " << ml;
}

class TwoPoint : public ::testing::TestWithParam<Precision> {
protected:
    void SetUp() override {
        if (GetParam() == Precision::Double && !portacl::test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    }
};

}  // namespace

TEST_P(TwoPoint, EqualsReference2D) {
    PORTACL_REQUIRE_DATA();
    const auto img = randomPhaseImage(1, 37, 45, 0.4, 11);
    compare(img, 12, true, GetParam());
    compare(img, 12, false, GetParam());
    const auto real = lp::phaseByLabel(portacl::io::readNpy(dataPath("microstructure/mcrpy/alloy_resized_s.npy")), 1);
    compare(real, 20, true, GetParam());
    compare(real, 20, false, GetParam());
}

TEST_P(TwoPoint, EqualsReference3D) {
    const auto img = randomPhaseImage(9, 11, 13, 0.5, 12);
    compare(img, 5, true, GetParam());
    compare(img, 5, false, GetParam());
}

// GooseEYE.S2((101,101), I, I), periodic: S2[50+dy, 50+dx] = mean of I(p) I(p+d).
TEST_P(TwoPoint, MatchesGooseEye) {
    PORTACL_REQUIRE_DATA();
    const std::string file = dataPath("microstructure/gooseeye/S2.h5");
    const auto I = lp::phaseByLabel(portacl::io::readHdf5Dataset(file, "I"), 1);
    const auto G = portacl::io::readHdf5Dataset(file, "S2");
    const auto got = lp::twoPointProbability(context(), I, {50, true}, GetParam());
    ASSERT_EQ(got.size(), G.data.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - G.data[i]));
    EXPECT_LE(worst, tolerance(GetParam()));
    EXPECT_NEAR(got[50 * 101 + 50], 0.235036, tolerance(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Precisions, TwoPoint, ::testing::Values(Precision::Float, Precision::Double),
                         [](const auto& info) { return std::string(portacl::precisionName(info.param)); });

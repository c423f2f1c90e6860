// The distributed k-Wave solver under mpiexec (tests/CMakeLists.txt runs this program on 2 and 3
// ranks): every rank holds its slab to the one-device answer computed on its own device.
#include <cmath>
#include <complex>
#include <random>

#include <gtest/gtest.h>

#include "kwave/distributed/mpi_world.hpp"
#include "kwave/distributed/slab_fft.hpp"
#include "portacl/fft.hpp"
#include "support/test_support.hpp"

using namespace portacl;
namespace dist = portacl::kwave::distributed;

namespace {

template <typename T>
std::vector<T> randomField(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);  // the same on every rank
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(u(rng));
    return v;
}

// Relative L2 over every rank of `got` against `want`.
double relativeL2(double diff2, double ref2) { return std::sqrt(dist::sum(diff2) / dist::sum(ref2)); }

// The distributed forward transform of a random field against the one-device R2C of the whole grid,
// then the distributed inverse against the field itself.
template <typename T>
void checkTransform(const std::vector<std::size_t>& shape, double tolerance, int components) {
    Context& ctx = test::context();
    const Precision prec = sizeof(T) == 8 ? Precision::Double : Precision::Float;
    const dist::SlabLayout l(shape, dist::ranks(), dist::rank());
    std::size_t n = 1;
    for (auto s : shape) n *= s;
    const std::size_t nxr = l.nx / 2 + 1;

    fft::PlanDesc d;
    d.kind = fft::Kind::R2C;
    d.shape = shape;
    d.precision = prec;
    fft::Plan& whole = fft::plan(ctx, d);

    dist::SlabFft slab(ctx, l, prec, fft::Backend::Auto);
    std::vector<std::vector<T>> fields;
    std::vector<std::vector<std::complex<T>>> spectra;
    cl::Buffer real[3], spec[3];
    for (int c = 0; c < components; ++c) {
        fields.push_back(randomField<T>(n, 17u + static_cast<unsigned>(c)));
        cl::Buffer all = ctx.upload(fields.back(), "whole field");
        cl::Buffer allSpec = ctx.buffer(n / l.nx * nxr * 2 * sizeof(T), "whole spectrum");
        whole.execute(all, allSpec, fft::Direction::Forward);
        spectra.push_back(ctx.download<std::complex<T>>(allSpec, n / l.nx * nxr, "whole spectrum"));
        const std::vector<T> mine(fields.back().begin() + static_cast<std::ptrdiff_t>(l.firstPlane() * l.plane),
                                  fields.back().begin() + static_cast<std::ptrdiff_t>((l.firstPlane() + l.planes()) * l.plane));
        real[c] = ctx.upload(mine, "slab");
        spec[c] = ctx.buffer(std::max<std::size_t>(l.spectralPoints(), 1) * 2 * sizeof(T), "slab spectrum");
    }
    slab.forward(real, spec, components);
    const std::size_t me = static_cast<std::size_t>(l.rank);
    for (int c = 0; c < components; ++c) {
        const auto got = ctx.download<std::complex<T>>(spec[c], l.spectralPoints(), "slab spectrum");
        double diff2 = 0, ref2 = 0;
        // Transposed: [n1 local][P][n0]; the whole spectrum is [n0][n1][P].
        for (std::size_t a = 0; a < l.count1[me]; ++a)
            for (std::size_t p = 0; p < l.P; ++p)
                for (std::size_t z = 0; z < l.n0; ++z) {
                    const std::complex<double> g = got[(a * l.P + p) * l.n0 + z];
                    const std::complex<double> w = spectra[c][(z * l.n1 + l.start1[me] + a) * l.P + p];
                    diff2 += std::norm(g - w);
                    ref2 += std::norm(w);
                }
        EXPECT_LT(relativeL2(diff2, ref2), tolerance) << "forward, component " << c << " on rank " << l.rank;
    }
    cl::Buffer back[3];
    for (int c = 0; c < components; ++c) back[c] = ctx.buffer(std::max<std::size_t>(l.realPoints(), 1) * sizeof(T), "slab back");
    slab.inverse(spec, back, components);
    for (int c = 0; c < components; ++c) {
        const auto got = ctx.download<T>(back[c], l.realPoints(), "slab back");
        double diff2 = 0, ref2 = 0;
        for (std::size_t i = 0; i < l.realPoints(); ++i) {
            const double w = fields[c][l.firstPlane() * l.plane + i];
            diff2 += (got[i] - w) * (got[i] - w);
            ref2 += w * w;
        }
        EXPECT_LT(relativeL2(diff2, ref2), tolerance) << "inverse, component " << c << " on rank " << l.rank;
    }
}

}  // namespace

// Slabs that do not divide evenly over 2 ranks (9 z planes; 15 rows, 18/2+1 = 10 half-spectrum columns
// over 3), odd nx, one to three components per all-to-all. Float within 1e-5 relative L2, double
// within 1e-12. Few shapes: each costs its FFT plans' compilation on a cold cache.
TEST(KWaveDistributedFft, MatchesTheOneDeviceTransform) {
    checkTransform<float>({9, 10, 15}, 1e-5, 3);
    checkTransform<float>({15, 18}, 1e-5, 2);
    if (!test::hasFp64()) GTEST_SKIP() << "the device has no fp64";
    checkTransform<double>({9, 10, 15}, 1e-12, 1);
}

TEST(KWaveDistributedFft, RefusesMoreRanksThanPlanes) {
    try {
        dist::SlabLayout({static_cast<std::size_t>(dist::ranks()) - 1, 16, 16}, dist::ranks(), dist::rank());
        FAIL() << "no refusal";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be split over"), std::string::npos) << e.what();
    }
}

int main(int argc, char** argv) {
    dist::initialize();
    ::testing::InitGoogleTest(&argc, argv);
    // Rank 0 reports; the others report only their failures.
    if (dist::rank() != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }
    const int failed = RUN_ALL_TESTS();
    // Every rank's verdict: mpiexec's status is the worst rank's, and so is this one.
    return dist::all(failed == 0) ? 0 : 1;
}

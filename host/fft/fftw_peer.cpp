// FFTW called as its users call it: the FFT bench's CPU peer on CPU devices. A 3-D real-to-complex and
// complex-to-real pair on FFTW's own arrays, its own threads (FFTW's pthreads, not the engine's loop
// pool, which the FFTW backend installs as FFTW's loop callback: swapped out while the peer plans and
// runs, back after) and FFTW_MEASURE plans, as kspaceFirstOrder-OMP plans its transforms. Built with
// FFTW where CMake found it (PORTACL_HAVE_FFTW).
#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>

#include "fft/fft_internal.hpp"
#include "portacl/runtime/error.hpp"

#ifdef PORTACL_HAVE_FFTW
#include "fft/fftw_api.hpp"
#endif

namespace portacl::fft::detail {

#ifdef PORTACL_HAVE_FFTW
namespace {

// A side^3 array's three axes in C order, from the real side to the complex one (r2c) or back: each
// axis's length, and its stride in the elements of either side (the complex side holds side / 2 + 1
// numbers along the fastest axis), as FFTW's 3-D real plans lay them out.
std::array<fftw_iodim64, 3> cubeAxes(std::size_t side, bool fromReal) {
    const std::ptrdiff_t n = std::ptrdiff_t(side), half = n / 2 + 1;
    const std::ptrdiff_t real[3] = {n * n, n, 1}, complex[3] = {n * half, half, 1};
    std::array<fftw_iodim64, 3> axes{};
    for (int k = 0; k < 3; ++k) axes[k] = {n, fromReal ? real[k] : complex[k], fromReal ? complex[k] : real[k]};
    return axes;
}

// One precision's arrays and plans; the pair's state behind FftwPeerPair.
struct PairBase {
    virtual ~PairBase() = default;
    virtual void run() = 0;
};

template <typename Real>
struct Pair final : PairBase {
    using F = Fftw<Real>;
    Real* real = nullptr;
    typename F::Complex* complex = nullptr;
    typename F::Plan r2c = nullptr, c2r = nullptr;

    Pair(std::size_t side, int threads) {
        const std::size_t n = side * side * side, spectrum = side * side * (side / 2 + 1);
        real = static_cast<Real*>(F::malloc(n * sizeof(Real)));
        complex = static_cast<typename F::Complex*>(F::malloc(spectrum * sizeof(typename F::Complex)));
        if (!real || !complex) {
            release();
            throw Error("FFTW's peer: no memory for the " + std::to_string(side) + "^3 arrays");
        }
        F::initThreads();
        F::loopsOnEngineThreads(false);
        F::threads(threads);
        // Planned before the data are written: FFTW_MEASURE overwrites the arrays.
        const auto forward = cubeAxes(side, true), inverse = cubeAxes(side, false);
        r2c = F::r2c(3, forward.data(), 0, nullptr, real, complex, FFTW_MEASURE);
        c2r = F::c2r(3, inverse.data(), 0, nullptr, complex, real, FFTW_MEASURE);
        F::loopsOnEngineThreads(true);
        for (std::size_t i = 0; i < n; ++i) real[i] = static_cast<Real>(std::sin(0.001 * static_cast<double>(i)) + 1e-6 * (i % 97));
    }
    ~Pair() override { release(); }
    void run() override {
        F::loopsOnEngineThreads(false);
        F::runR2C(r2c, real, complex);
        F::runC2R(c2r, complex, real);
        F::loopsOnEngineThreads(true);
    }
    void release() {
        if (r2c) F::destroy(r2c);
        if (c2r) F::destroy(c2r);
        F::free(real);
        F::free(complex);
    }
};

}  // namespace

struct FftwPeerPair::State {
    std::unique_ptr<PairBase> pair;
};

FftwPeerPair::FftwPeerPair(std::size_t side, int threads, Precision p) : s_(std::make_unique<State>()) {
    if (p == Precision::Double)
        s_->pair = std::make_unique<Pair<double>>(side, threads);
    else
        s_->pair = std::make_unique<Pair<float>>(side, threads);
}
FftwPeerPair::~FftwPeerPair() = default;
void FftwPeerPair::run() { s_->pair->run(); }
#else
struct FftwPeerPair::State {};
FftwPeerPair::FftwPeerPair(std::size_t, int, Precision) {
    throw Error("this build has no FFTW (install libfftw3-dev and configure again)");
}
FftwPeerPair::~FftwPeerPair() = default;
void FftwPeerPair::run() {}
#endif

}  // namespace portacl::fft::detail

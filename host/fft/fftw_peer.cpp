// FFTW called as its users call it: the FFT bench's CPU peer on CPU devices. A 3-D real-to-complex and
// complex-to-real pair on FFTW's own arrays, its own threads (FFTW's pthreads, not the engine's loop
// pool, which the FFTW backend installs as FFTW's loop callback: swapped out for the peer's runs and
// back after) and FFTW_MEASURE plans, as kspaceFirstOrder-OMP plans its transforms. Built with FFTW
// where CMake found it (PORTACL_HAVE_FFTW).
#include <cmath>
#include <memory>
#include <string>

#include "fft/fft_internal.hpp"
#include "fft/loop_pool.hpp"
#include "portacl/runtime/error.hpp"

#ifdef PORTACL_HAVE_FFTW
#include <fftw3.h>
#endif

namespace portacl::fft::detail {

#ifdef PORTACL_HAVE_FFTW
namespace {

template <typename Real>
struct PeerApi;

template <>
struct PeerApi<float> {
    using Complex = fftwf_complex;
    using Plan = fftwf_plan;
    static void threads(int n) {
        fftwf_init_threads();
        fftwf_plan_with_nthreads(n);
    }
    static void ownThreads(bool own) { fftwf_threads_set_callback(own ? nullptr : runParallelLoop, nullptr); }
    static void* malloc(std::size_t bytes) { return fftwf_malloc(bytes); }
    static void free(void* p) { fftwf_free(p); }
    static Plan r2c(int n, void* in, void* out) { return fftwf_plan_dft_r2c_3d(n, n, n, static_cast<float*>(in), static_cast<Complex*>(out), FFTW_MEASURE); }
    static Plan c2r(int n, void* in, void* out) { return fftwf_plan_dft_c2r_3d(n, n, n, static_cast<Complex*>(in), static_cast<float*>(out), FFTW_MEASURE); }
    static void execute(Plan p) { fftwf_execute(p); }
    static void destroy(Plan p) { fftwf_destroy_plan(p); }
};

template <>
struct PeerApi<double> {
    using Complex = fftw_complex;
    using Plan = fftw_plan;
    static void threads(int n) {
        fftw_init_threads();
        fftw_plan_with_nthreads(n);
    }
    static void ownThreads(bool own) { fftw_threads_set_callback(own ? nullptr : runParallelLoop, nullptr); }
    static void* malloc(std::size_t bytes) { return fftw_malloc(bytes); }
    static void free(void* p) { fftw_free(p); }
    static Plan r2c(int n, void* in, void* out) { return fftw_plan_dft_r2c_3d(n, n, n, static_cast<double*>(in), static_cast<Complex*>(out), FFTW_MEASURE); }
    static Plan c2r(int n, void* in, void* out) { return fftw_plan_dft_c2r_3d(n, n, n, static_cast<Complex*>(in), static_cast<double*>(out), FFTW_MEASURE); }
    static void execute(Plan p) { fftw_execute(p); }
    static void destroy(Plan p) { fftw_destroy_plan(p); }
};

// One precision's arrays and plans; the pair's state behind FftwPeerPair.
struct PairBase {
    virtual ~PairBase() = default;
    virtual void run() = 0;
};

template <typename Real>
struct Pair final : PairBase {
    using F = PeerApi<Real>;
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
        F::ownThreads(true);
        F::threads(threads);
        // Planned before the data are written: FFTW_MEASURE overwrites the arrays.
        r2c = F::r2c(int(side), real, complex);
        c2r = F::c2r(int(side), complex, real);
        F::ownThreads(false);
        for (std::size_t i = 0; i < n; ++i) real[i] = static_cast<Real>(std::sin(0.001 * static_cast<double>(i)) + 1e-6 * (i % 97));
    }
    ~Pair() override { release(); }
    void run() override {
        F::ownThreads(true);
        F::execute(r2c);
        F::execute(c2r);
        F::ownThreads(false);
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

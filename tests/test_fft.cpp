// The FFT interface over its backends (VkFFT, clFFT, and FFTW on CPU devices), against a direct
// O(N^2) DFT computed on the host in long double (host/fft/reference_dft.cpp). Relative L2 error, ||got - want|| / ||want||, at most 1e-5 in
// float and 1e-12 in double. Sizes are small and mostly not powers of two (12, 15, 7x9, 6x10x14),
// so that the mixed-radix paths run; 17 is a prime that clFFT refuses and VkFFT takes (Bluestein).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <complex>
#include <random>
#include <thread>
#include <vector>

#include "fft/loop_pool.hpp"
#include "fft/reference_dft.hpp"
#include "portacl/fft.hpp"
#include "portacl/runtime/error.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::fft;
using Shape = std::vector<std::size_t>;
using Complex = std::complex<double>;

namespace {

double tolerance(Precision p) { return p == Precision::Double ? 1e-12 : 1e-5; }

std::size_t product(const Shape& s) {
    std::size_t n = 1;
    for (std::size_t v : s) n *= v;
    return n;
}

std::vector<double> randomReals(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

std::vector<Complex> randomComplex(std::size_t n, unsigned seed) {
    const auto re = randomReals(2 * n, seed);
    std::vector<Complex> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = Complex(re[2 * i], re[2 * i + 1]);
    return v;
}

double relativeL2(const std::vector<double>& got, const std::vector<double>& want) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / den);
}

std::vector<double> interleave(const std::vector<Complex>& c) {
    std::vector<double> v(2 * c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        v[2 * i] = c[i].real();
        v[2 * i + 1] = c[i].imag();
    }
    return v;
}

// Real rows of length n padded to 2*(n/2+1) (the in-place real layout), and back.
std::vector<double> padRows(const std::vector<double>& x, std::size_t n) {
    const std::size_t padded = 2 * (n / 2 + 1), rows = x.size() / n;
    std::vector<double> out(rows * padded, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < n; ++j) out[r * padded + j] = x[r * n + j];
    return out;
}
std::vector<double> unpadRows(const std::vector<double>& x, std::size_t n) {
    const std::size_t padded = 2 * (n / 2 + 1), rows = x.size() / padded;
    std::vector<double> out(rows * n);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < n; ++j) out[r * n + j] = x[r * padded + j];
    return out;
}

// Runs one transform on the device in the plan's precision: host doubles in, host doubles out.
template <typename T>
std::vector<double> runTyped(Plan& p, const std::vector<double>& input, Direction dir, std::size_t outputCount) {
    Context& ctx = test::context();
    const std::vector<T> hostIn(input.begin(), input.end());
    // Buffers as a workload makes them for this backend (FFTW's: shared with the host).
    cl::Buffer in = buffer(ctx, hostIn.size() * sizeof(T), "fft test input", p.backend());
    ctx.write(in, hostIn.data(), hostIn.size() * sizeof(T), "fft test input");
    cl::Buffer out = p.desc().inPlace ? in : buffer(ctx, outputBytes(p.desc(), dir), "fft test output", p.backend());
    p.execute(in, out, dir);
    const std::vector<T> hostOut = ctx.download<T>(out, outputCount, "fft test output");
    if (!p.desc().inPlace && p.desc().kind != Kind::C2R)  // documented: only an out-of-place C2R may clobber its input
        EXPECT_EQ(ctx.download<T>(in, hostIn.size(), "fft test input"), hostIn) << "the transform changed its input";
    return std::vector<double>(hostOut.begin(), hostOut.end());
}

std::vector<double> run(Plan& p, const std::vector<double>& input, Direction dir, std::size_t outputCount) {
    return p.desc().precision == Precision::Double ? runTyped<double>(p, input, dir, outputCount)
                                                   : runTyped<float>(p, input, dir, outputCount);
}

struct Param {
    Backend backend;
    Precision precision;
};

// FFTW runs where the build has it and the test device is a CPU; the reason it does not, or "".
std::string fftwMissing() {
    if (!available(Backend::FFTW)) return "this build has no FFTW backend";
    if (!test::context().device().isCpu) return "the FFTW backend runs on CPU devices only";
    return "";
}

std::string paramName(const testing::TestParamInfo<Param>& info) {
    return std::string(backendName(info.param.backend)) + "_" + precisionName(info.param.precision);
}

class Fft : public testing::TestWithParam<Param> {
protected:
    void SetUp() override {
        if (GetParam().precision == Precision::Double && !test::hasFp64())
            GTEST_SKIP() << "the test device has no fp64 support";
        if (GetParam().backend == Backend::FFTW && !fftwMissing().empty()) GTEST_SKIP() << fftwMissing();
    }

    PlanDesc desc(Kind kind, const Shape& shape, std::size_t batch, bool inPlace) const {
        PlanDesc d;
        d.kind = kind;
        d.shape = shape;
        d.batch = batch;
        d.inPlace = inPlace;
        d.precision = GetParam().precision;
        d.backend = GetParam().backend;
        return d;
    }

    // Forward and inverse C2C of a batch of random arrays against the direct DFT.
    void checkC2C(const Shape& shape, std::size_t batch, bool inPlace) {
        Plan& p = plan(test::context(), desc(Kind::C2C, shape, batch, inPlace));
        EXPECT_EQ(p.backend(), GetParam().backend);
        const std::size_t n = product(shape);
        const auto x = randomComplex(n * batch, 7);
        for (Direction dir : {Direction::Forward, Direction::Inverse}) {
            std::vector<Complex> want;
            for (std::size_t b = 0; b < batch; ++b) {
                const auto r = reference::dft({x.begin() + b * n, x.begin() + (b + 1) * n}, shape, dir);
                want.insert(want.end(), r.begin(), r.end());
            }
            const auto got = run(p, interleave(x), dir, 2 * n * batch);
            EXPECT_LE(relativeL2(got, interleave(want)), tolerance(GetParam().precision))
                << describeCase("C2C", shape, batch, inPlace) << (dir == Direction::Forward ? " forward" : " inverse");
        }
    }

    // R2C of a batch of random real arrays against the direct DFT's half-spectrum.
    void checkR2C(const Shape& shape, std::size_t batch, bool inPlace) {
        Plan& p = plan(test::context(), desc(Kind::R2C, shape, batch, inPlace));
        const std::size_t n = product(shape), last = shape.back();
        const auto x = randomReals(n * batch, 11);
        std::vector<Complex> want;
        for (std::size_t b = 0; b < batch; ++b) {
            const auto r = reference::dftRealForward({x.begin() + b * n, x.begin() + (b + 1) * n}, shape);
            want.insert(want.end(), r.begin(), r.end());
        }
        const auto got = run(p, inPlace ? padRows(x, last) : x, Direction::Forward, want.size() * 2);
        EXPECT_LE(relativeL2(got, interleave(want)), tolerance(GetParam().precision))
            << describeCase("R2C", shape, batch, inPlace);
    }

    // C2R of the half-spectra of random real arrays: the result is those arrays again, and equals
    // the direct inverse DFT of the half-spectrum (times N where the plan leaves the inverse unscaled).
    void checkC2R(const Shape& shape, std::size_t batch, bool inPlace, bool scaled = true) {
        PlanDesc d = desc(Kind::C2R, shape, batch, inPlace);
        d.scaleInverse = scaled;
        Plan& p = plan(test::context(), d);
        const std::size_t n = product(shape), last = shape.back();
        const auto x = randomReals(n * batch, 13);
        std::vector<Complex> half;
        std::vector<double> want;
        for (std::size_t b = 0; b < batch; ++b) {
            const std::vector<double> xb(x.begin() + b * n, x.begin() + (b + 1) * n);
            const auto h = reference::dftRealForward(xb, shape);
            half.insert(half.end(), h.begin(), h.end());
            const auto back = reference::dftRealInverse(h, shape);
            EXPECT_LE(relativeL2(back, xb), 1e-13) << "the reference's own round trip";
            for (const double v : back) want.push_back(scaled ? v : v * static_cast<double>(n));
        }
        const std::size_t outCount = inPlace ? half.size() * 2 : n * batch;
        auto got = run(p, interleave(half), Direction::Inverse, outCount);
        if (inPlace) got = unpadRows(got, last);
        EXPECT_LE(relativeL2(got, want), tolerance(GetParam().precision)) << describeCase("C2R", shape, batch, inPlace);
    }

    static std::string describeCase(const char* kind, const Shape& shape, std::size_t batch, bool inPlace) {
        std::string s = kind;
        s += " ";
        for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
        return s + " batch " + std::to_string(batch) + (inPlace ? " in place" : " out of place");
    }
};

// Each case is one plan per backend and precision (plans compile kernels: PoCL takes seconds each),
// chosen so that every kind meets 1-D, 2-D and 3-D, in place and out of place, batched and odd.
TEST_P(Fft, C2C1DBatchedOutOfPlace) { checkC2C({12}, 3, false); }
TEST_P(Fft, C2C2DOddBatchedInPlace) { checkC2C({7, 9}, 2, true); }
TEST_P(Fft, C2C3DOutOfPlace) { checkC2C({6, 10, 14}, 1, false); }

TEST_P(Fft, R2C1DOddBatchedInPlace) { checkR2C({15}, 2, true); }
TEST_P(Fft, R2C2DOddLastOutOfPlace) { checkR2C({7, 9}, 1, false); }
TEST_P(Fft, R2C3DInPlace) { checkR2C({6, 10, 14}, 1, true); }

TEST_P(Fft, C2R1DBatchedOutOfPlace) { checkC2R({12}, 2, false); }
TEST_P(Fft, C2R2DOddLastInPlace) { checkC2R({7, 9}, 1, true); }
TEST_P(Fft, C2R3DBatchedOutOfPlace) { checkC2R({6, 10, 14}, 2, false); }
// PlanDesc::scaleInverse false (k-Wave's solver folds 1/N into its spectral operators): N times it.
TEST_P(Fft, C2R3DBatchedUnscaled) { checkC2R({6, 10, 14}, 2, false, false); }

// Axes of length 1 (VkFFT refuses them; the plan drops them, as they change neither data nor layout).
TEST_P(Fft, LengthOneAxes) {
    checkC2C({1, 8}, 2, false);
    checkR2C({4, 1, 6}, 1, true);
    checkC2C({1}, 2, false);  // one point: the identity
}

// Inverse(Forward(x)) == x through the device alone (the plan of C2C2DOddBatchedInPlace, cached).
TEST_P(Fft, C2CRoundTripRestoresTheInput) {
    Plan& p = plan(test::context(), desc(Kind::C2C, {7, 9}, 2, true));
    const auto x = interleave(randomComplex(2 * 63, 3));
    const auto forward = run(p, x, Direction::Forward, x.size());
    const auto back = run(p, forward, Direction::Inverse, x.size());
    EXPECT_LE(relativeL2(back, x), tolerance(GetParam().precision));
}

INSTANTIATE_TEST_SUITE_P(Backends, Fft,
                         testing::Values(Param{Backend::VkFFT, Precision::Float}, Param{Backend::VkFFT, Precision::Double},
                                         Param{Backend::ClFFT, Precision::Float}, Param{Backend::ClFFT, Precision::Double},
                                         Param{Backend::FFTW, Precision::Float}, Param{Backend::FFTW, Precision::Double}),
                         paramName);

// ---- The benchmark's configuration (3-D R2C + C2R pair, out of place) at 32^3 ----
// The full direct DFT is too slow at this size (N^2 = 10^9 terms), so 40 output bins are checked
// against direct sums, each error measured against the spectrum's RMS; the C2R must then return
// the input (relative L2).
TEST(FftBenchPair, R2CThenC2R32CubedFloat) {
    const Shape shape{32, 32, 32};
    const std::size_t n = product(shape), half = 32 * 32 * 17;
    const auto x = randomReals(n, 5);
    for (Backend b : {Backend::VkFFT, Backend::ClFFT, Backend::FFTW}) {
        if (b == Backend::FFTW && !fftwMissing().empty()) continue;
        PlanDesc d;
        d.kind = Kind::R2C;
        d.shape = shape;
        d.backend = b;
        Plan& r2c = plan(test::context(), d);
        d.kind = Kind::C2R;
        Plan& c2r = plan(test::context(), d);
        const auto spectrum = run(r2c, x, Direction::Forward, 2 * half);
        double power = 0;
        for (double v : spectrum) power += v * v;
        const double rms = std::sqrt(power / half);
        std::mt19937 rng(9);
        for (int s = 0; s < 40; ++s) {
            const Shape k{rng() % 32, rng() % 32, rng() % 17};
            const Complex want = reference::dftRealForwardAt(x, shape, k);
            const std::size_t h = (k[0] * 32 + k[1]) * 17 + k[2];
            const Complex got(spectrum[2 * h], spectrum[2 * h + 1]);
            EXPECT_LE(std::abs(got - want) / rms, tolerance(Precision::Float))
                << backendName(b) << " bin " << k[0] << "," << k[1] << "," << k[2];
        }
        const auto back = run(c2r, spectrum, Direction::Inverse, n);
        EXPECT_LE(relativeL2(back, x), tolerance(Precision::Float)) << backendName(b);
    }
}

// ---- Sizes clFFT cannot do ----

class PrimeSize : public Fft {};

TEST_P(PrimeSize, TransformsLength17) {
    checkC2C({3, 17}, 2, false);
    checkR2C({17}, 1, true);
    checkC2R({5, 17}, 2, false);
}

INSTANTIATE_TEST_SUITE_P(VkfftAndFftw, PrimeSize,
                         testing::Values(Param{Backend::VkFFT, Precision::Float}, Param{Backend::VkFFT, Precision::Double},
                                         Param{Backend::FFTW, Precision::Float}, Param{Backend::FFTW, Precision::Double}),
                         paramName);

// ---- FFTW against VkFFT: sizes too large for the direct DFT, the layouts k-Wave's solver uses ----

class FftwAgainstVkfft : public Fft {
protected:
    // The same transform through both backends on the same input: relative L2 within the tolerance.
    void compare(PlanDesc d, Direction dir, std::size_t inCount, unsigned seed) {
        d.backend = Backend::VkFFT;
        Plan& vk = plan(test::context(), d);
        d.backend = Backend::FFTW;
        Plan& fw = plan(test::context(), d);
        EXPECT_EQ(fw.backend(), Backend::FFTW);
        const auto x = randomReals(inCount, seed);
        const std::size_t outCount = d.batch * outputElements(d, dir);
        const auto want = run(vk, x, dir, outCount), got = run(fw, x, dir, outCount);
        EXPECT_LE(relativeL2(got, want), tolerance(d.precision)) << describeCase(d.kind == Kind::R2C ? "R2C" : d.kind == Kind::C2R ? "C2R" : "C2C", d.shape, d.batch, d.inPlace)
                                                              << (d.skipFastestAxis ? " (fastest axis untransformed)" : "");
    }
};

TEST_P(FftwAgainstVkfft, OddThreeDimensionalBatches) {
    // 9x5x15: odd along every axis (the last one sets the half spectrum); batch 3 as
    // k-Wave's velocity components.
    PlanDesc d = desc(Kind::R2C, {9, 5, 15}, 3, false);
    compare(d, Direction::Forward, 3 * 9 * 5 * 15, 21);
    d.kind = Kind::C2R;
    // A half spectrum of random values is not Hermitian along its k = 0 and Nyquist planes; both
    // libraries take those planes' real parts in the same way only for a Hermitian one, so the
    // spectrum is made from a real field.
    PlanDesc forward = desc(Kind::R2C, {9, 5, 15}, 3, false);
    forward.backend = Backend::VkFFT;
    const auto spectrum = run(plan(test::context(), forward), randomReals(3 * 9 * 5 * 15, 22), Direction::Forward,
                              3 * outputElements(forward, Direction::Forward));
    d.backend = Backend::VkFFT;
    const auto want = run(plan(test::context(), d), spectrum, Direction::Inverse, 3 * 9 * 5 * 15);
    d.backend = Backend::FFTW;
    const auto got = run(plan(test::context(), d), spectrum, Direction::Inverse, 3 * 9 * 5 * 15);
    EXPECT_LE(relativeL2(got, want), tolerance(d.precision)) << "C2R 9x5x15 batch 3";
}

TEST_P(FftwAgainstVkfft, FastestAxisUntransformed) {
    // k-Wave's y transforms of a half spectrum: 2-D C2C along y only, in place, for every x.
    PlanDesc d = desc(Kind::C2C, {14, 9}, 6, true);
    d.skipFastestAxis = true;
    compare(d, Direction::Inverse, 2 * 6 * 14 * 9, 23);
    compare(d, Direction::Forward, 2 * 6 * 14 * 9, 24);
}

INSTANTIATE_TEST_SUITE_P(Backends, FftwAgainstVkfft,
                         testing::Values(Param{Backend::FFTW, Precision::Float}, Param{Backend::FFTW, Precision::Double}),
                         paramName);

// Memory off FFTW's alignment (a host pointer one float past it, USE_HOST_PTR) still transforms
// right: the plan makes an unaligned variant for it. Memory the context did not share (not
// page-aligned) is mapped for the transform instead of handed to a host task.
TEST(FftwBackend, MemoryOffItsAlignmentTransformsRight) {
    if (!fftwMissing().empty()) GTEST_SKIP() << fftwMissing();
    Context& ctx = test::context();
    const Shape shape{6, 10};
    const std::size_t n = product(shape);
    const auto x = randomComplex(n, 31);
    std::vector<float> host(2 * n + 1);
    for (std::size_t i = 0; i < n; ++i) host[1 + 2 * i] = static_cast<float>(x[i].real()), host[2 + 2 * i] = static_cast<float>(x[i].imag());
    cl::Buffer data = clCall("clCreateBuffer", [&] { return cl::Buffer(ctx.clContext(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 2 * n * sizeof(float), host.data() + 1); });
    PlanDesc d;
    d.shape = shape;
    d.inPlace = true;
    d.backend = Backend::FFTW;
    plan(ctx, d).execute(data, data, Direction::Forward);
    const auto got = ctx.download<float>(data, 2 * n, "transformed");
    EXPECT_LE(relativeL2(std::vector<double>(got.begin(), got.end()), interleave(reference::dft(x, shape, Direction::Forward))),
              tolerance(Precision::Float));
}

// FFTW's parallel loops on the spinning pool (loop_pool.hpp): every job of every loop runs exactly
// once, with loops nested in jobs and loops from two threads at once, more jobs than workers.
TEST(FftwLoopPool, RunsEveryJobOnceNestedAndFromTwoThreads) {
    detail::reserveLoopWorkers(3);
    struct Job {
        std::atomic<int>* runs;
        int nested;  // jobs of the loop this job opens (0: none)
    };
    const auto work = [](char* p) -> void* {
        Job& j = *reinterpret_cast<Job*>(p);
        j.runs->fetch_add(1);
        if (j.nested) {
            std::vector<std::atomic<int>> inner(j.nested);
            std::vector<Job> jobs;
            for (auto& c : inner) jobs.push_back({&c, 0});
            detail::runParallelLoop(+[](char* q) -> void* { reinterpret_cast<Job*>(q)->runs->fetch_add(1); return nullptr; },
                                    reinterpret_cast<char*>(jobs.data()), sizeof(Job), j.nested, nullptr);
            for (auto& c : inner) j.runs->fetch_add(c.load() == 1 ? 0 : 1000);  // a nested job not run once shows
        }
        return nullptr;
    };
    const auto loop = [&](int njobs, int rounds) {
        for (int r = 0; r < rounds; ++r) {
            std::vector<std::atomic<int>> runs(njobs);
            std::vector<Job> jobs;
            for (int i = 0; i < njobs; ++i) jobs.push_back({&runs[i], i % 4 == 0 ? 5 : 0});
            detail::runParallelLoop(work, reinterpret_cast<char*>(jobs.data()), sizeof(Job), njobs, nullptr);
            for (int i = 0; i < njobs; ++i) EXPECT_EQ(runs[i].load(), 1) << "job " << i << " of " << njobs << ", round " << r;
        }
    };
    std::thread other(loop, 7, 200);
    loop(16, 200);
    other.join();
}

// A context on the test device whose profile has `lines` appended to the device's own (later keys
// override), with --profile's event recording on.
std::unique_ptr<Context> contextWithProfileLines(const std::string& lines) {
    namespace fs = std::filesystem;
    static int made = 0;
    const fs::path dir = fs::temp_directory_path() / ("portacl-fftw-profile-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
    fs::create_directories(dir);
    const fs::path profile = test::context().tuning().path;
    EXPECT_TRUE(fs::exists(profile)) << profile;
    fs::copy_file(profile, dir / profile.filename(), fs::copy_options::overwrite_existing);
    std::ofstream(dir / profile.filename(), std::ios::app) << "\n" << lines << "\n";
    const char* before = std::getenv("PORTACL_PLATFORMS_DIR");
    const std::string kept = before ? before : "";
    ::setenv("PORTACL_PLATFORMS_DIR", dir.c_str(), 1);
    ContextOptions options = defaultContextOptions();
    options.profile = true;
    auto ctx = std::make_unique<Context>(test::context().device(), options);
    if (before) ::setenv("PORTACL_PLATFORMS_DIR", kept.c_str(), 1);
    else ::unsetenv("PORTACL_PLATFORMS_DIR");
    fs::remove_all(dir);
    return ctx;
}

// [fft] fftw_batch_loop: a batch as one FFTW plan over every item (0) or one item's plan run on each
// item in turn (1, for items of fftw_batch_loop_points and up: every item here); both against the
// direct DFT, float and double, with items whose memory is off FFTW's alignment (7x9 complex values
// an item) and the fastest axis left untransformed. The shared buffers are transformed after a wait
// for the queue, or mapped ([fft] fftw_map_shared = 1).
TEST(FftwBackend, BatchesItemByItemAndAsOnePlanTransformRight) {
    if (!fftwMissing().empty()) GTEST_SKIP() << fftwMissing();
    for (const char* keys : {"fftw_batch_loop = 0", "fftw_batch_loop = 1\nfftw_batch_loop_points = 1",
                             "fftw_batch_loop = 1\nfftw_batch_loop_points = 1\nfftw_map_shared = 1"}) {
        auto owned = contextWithProfileLines(std::string("[fft]\nfftw_host_tasks = 0\n") + keys);
        Context& ctx = *owned;
        const std::string loop = ctx.tuning().get("fft", "fftw_batch_loop", "");
        ASSERT_TRUE(loop == "0" || loop == "1") << keys;
        for (const Precision prec : {Precision::Float, Precision::Double}) {
            if (prec == Precision::Double && !test::hasFp64()) continue;
            SCOPED_TRACE(std::string(keys) + ", " + precisionName(prec));
            const auto transform = [&](const PlanDesc& d, Direction dir, const std::vector<double>& input, std::size_t outCount) {
                Plan& p = plan(ctx, d);
                const std::size_t bytes = input.size() * (prec == Precision::Double ? sizeof(double) : sizeof(float));
                cl::Buffer in = buffer(ctx, bytes, "input", Backend::FFTW);
                cl::Buffer out = d.inPlace ? in : buffer(ctx, outputBytes(d, dir), "output", Backend::FFTW);
                std::vector<double> got;
                if (prec == Precision::Double) {
                    ctx.write(in, input.data(), bytes, "input");
                    p.execute(in, out, dir);
                    got = ctx.download<double>(out, outCount, "output");
                } else {
                    const std::vector<float> host(input.begin(), input.end());
                    ctx.write(in, host.data(), bytes, "input");
                    p.execute(in, out, dir);
                    const auto f = ctx.download<float>(out, outCount, "output");
                    got.assign(f.begin(), f.end());
                }
                return got;
            };
            PlanDesc d;
            d.precision = prec;
            d.backend = Backend::FFTW;
            {  // R2C, 3 items of 9x5x15 out of place, as k-Wave's three velocity components
                d.kind = Kind::R2C;
                d.shape = {9, 5, 15};
                d.batch = 3;
                const std::size_t n = product(d.shape);
                const auto x = randomReals(3 * n, 51);
                std::vector<Complex> want;
                for (std::size_t b = 0; b < 3; ++b) {
                    const auto r = reference::dftRealForward({x.begin() + b * n, x.begin() + (b + 1) * n}, d.shape);
                    want.insert(want.end(), r.begin(), r.end());
                }
                EXPECT_LE(relativeL2(transform(d, Direction::Forward, x, want.size() * 2), interleave(want)), tolerance(prec)) << "R2C 9x5x15 batch 3";
            }
            {  // C2R of 2 items of 6x10x14, unscaled
                d.kind = Kind::C2R;
                d.shape = {6, 10, 14};
                d.batch = 2;
                d.scaleInverse = false;
                const std::size_t n = product(d.shape);
                const auto x = randomReals(2 * n, 52);
                std::vector<Complex> half;
                std::vector<double> want;
                for (std::size_t b = 0; b < 2; ++b) {
                    const auto h = reference::dftRealForward({x.begin() + b * n, x.begin() + (b + 1) * n}, d.shape);
                    half.insert(half.end(), h.begin(), h.end());
                    for (std::size_t i = 0; i < n; ++i) want.push_back(x[b * n + i] * static_cast<double>(n));
                }
                EXPECT_LE(relativeL2(transform(d, Direction::Inverse, interleave(half), 2 * n), want), tolerance(prec)) << "C2R 6x10x14 batch 2";
                d.scaleInverse = true;
            }
            {  // C2C, 3 items of 7x9 in place: the second and third items lie off FFTW's alignment
                d.kind = Kind::C2C;
                d.shape = {7, 9};
                d.batch = 3;
                d.inPlace = true;
                const std::size_t n = product(d.shape);
                const auto x = randomComplex(3 * n, 53);
                std::vector<Complex> want;
                for (std::size_t b = 0; b < 3; ++b) {
                    const auto r = reference::dft({x.begin() + b * n, x.begin() + (b + 1) * n}, d.shape, Direction::Forward);
                    want.insert(want.end(), r.begin(), r.end());
                }
                EXPECT_LE(relativeL2(transform(d, Direction::Forward, interleave(x), 2 * 3 * n), interleave(want)), tolerance(prec)) << "C2C 7x9 batch 3";
            }
            {  // C2C along y only of 5 items of 14x9 (k-Wave's y transforms), in place: each item's rows
               // transformed as 1-D transforms of length 14 with stride 9
                d.kind = Kind::C2C;
                d.shape = {14, 9};
                d.batch = 5;
                d.inPlace = true;
                d.skipFastestAxis = true;
                const std::size_t n = product(d.shape);
                const auto x = randomComplex(5 * n, 54);
                std::vector<Complex> want(x.size());
                for (std::size_t b = 0; b < 5; ++b)
                    for (std::size_t c = 0; c < 9; ++c) {
                        std::vector<Complex> column(14);
                        for (std::size_t r = 0; r < 14; ++r) column[r] = x[b * n + r * 9 + c];
                        const auto t = reference::dft(column, {14}, Direction::Inverse);
                        for (std::size_t r = 0; r < 14; ++r) want[b * n + r * 9 + c] = t[r];
                    }
                EXPECT_LE(relativeL2(transform(d, Direction::Inverse, interleave(x), 2 * 5 * n), interleave(want)), tolerance(prec))
                    << "C2C 14x9 batch 5, y only";
            }
        }
        // Transforms on the calling thread are rows of their own in --profile, timed on the host.
        // Shared buffers are waited for (one marker a transform) unless fftw_map_shared = 1 maps them.
        const bool mapped = ctx.tuning().get("fft", "fftw_map_shared", "0") == "1";
        bool hostRow = false, handOver = false;
        for (const auto& row : ctx.profiler().summary()) {
            hostRow = hostRow || (row.name == "fftw r2c forward" && row.kind == EventKind::Host && row.count >= 1 && row.totalSeconds > 0);
            handOver = handOver || row.name == (mapped ? "fftw r2c forward (map)" : "fftw r2c forward (wait)");
        }
        EXPECT_TRUE(hostRow) << "no host row for the transforms in the profile (" << keys << ")";
        EXPECT_TRUE(handOver) << (mapped ? "the shared buffers were not mapped" : "the transform did not wait for the queue") << " (" << keys << ")";
    }
}

// [fft] fftw_host_tasks = 1: on shared buffers the transforms run as host tasks in the queue (a
// kernel-kind event per transform), with the same results as the direct DFT.
TEST(FftwBackend, HostTasksInTheQueueTransformRight) {
    if (!fftwMissing().empty()) GTEST_SKIP() << fftwMissing();
    if (!test::context().runsHostTasks()) GTEST_SKIP() << "the test device runs no host functions";
    auto owned = contextWithProfileLines("[fft]\nfftw_host_tasks = 1");
    Context& ctx = *owned;
    ASSERT_EQ(ctx.tuning().get("fft", "fftw_host_tasks", ""), "1");
    const Shape shape{6, 10, 14};
    const std::size_t n = product(shape), batch = 2;
    PlanDesc d;
    d.kind = Kind::R2C;
    d.shape = shape;
    d.batch = batch;
    d.backend = Backend::FFTW;
    Plan& p = plan(ctx, d);
    const auto x = randomReals(n * batch, 41);
    const std::vector<float> host(x.begin(), x.end());
    cl::Buffer in = buffer(ctx, host.size() * sizeof(float), "input", Backend::FFTW);
    cl::Buffer out = buffer(ctx, outputBytes(d, Direction::Forward), "output", Backend::FFTW);
    ctx.write(in, host.data(), host.size() * sizeof(float), "input");
    p.execute(in, out, Direction::Forward);
    std::vector<Complex> want;
    for (std::size_t b = 0; b < batch; ++b) {
        const auto r = reference::dftRealForward({x.begin() + b * n, x.begin() + (b + 1) * n}, shape);
        want.insert(want.end(), r.begin(), r.end());
    }
    const auto got = ctx.download<float>(out, want.size() * 2, "output");
    EXPECT_LE(relativeL2(std::vector<double>(got.begin(), got.end()), interleave(want)), tolerance(Precision::Float));
    bool task = false;
    for (const auto& row : ctx.profiler().summary()) task = task || (row.name == "fftw r2c forward" && row.kind == EventKind::Kernel);
    EXPECT_TRUE(task) << "the transform did not run as a host task";
}

TEST(FftwBackend, RefusedOnDevicesThatAreNotCpus) {
    if (!available(Backend::FFTW)) GTEST_SKIP() << "this build has no FFTW backend";
    if (test::context().device().isCpu) GTEST_SKIP() << "the test device is a CPU";
    PlanDesc d;
    d.shape = {8};
    d.backend = Backend::FFTW;
    try {
        plan(test::context(), d);
        FAIL() << "FFTW accepted a device that is not a CPU";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("CPU devices only"), std::string::npos) << e.what();
    }
}

TEST(FftBackends, ClfftRefusesLength17NamingTheSizeAndVkfft) {
    PlanDesc d;
    d.shape = {4, 17};
    d.backend = Backend::ClFFT;
    try {
        plan(test::context(), d);
        FAIL() << "clFFT accepted a length of 17";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("17"), std::string::npos) << what;
        EXPECT_NE(what.find("VkFFT"), std::string::npos) << what;
    }
}

TEST(FftBackends, VkfftRefusesARealLastDimensionOfOne) {
    PlanDesc d;
    d.kind = Kind::R2C;
    d.shape = {6, 1};
    d.backend = Backend::VkFFT;
    try {
        plan(test::context(), d);
        FAIL() << "VkFFT accepted a real transform with a last dimension of 1";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("last dimension"), std::string::npos) << e.what();
    }
}

// Auto is what the device profile's [fft] backend names (FFTW on the CPU implementations' profiles,
// when the build has it), else VkFFT, for every size.
TEST(FftBackends, AutoIsTheProfilesBackendForEverySize) {
    Context& ctx = test::context();
    const std::string named = ctx.tuning().get("fft", "backend", "auto");
    Backend want = named == "auto" ? Backend::VkFFT : parseBackend(named);
    if (!available(want)) want = Backend::VkFFT;
    EXPECT_EQ(resolve(ctx, Backend::Auto), want);
    EXPECT_EQ(resolve(ctx, Backend::ClFFT), Backend::ClFFT);  // a named backend stays
    PlanDesc d;
    d.shape = {17};
    d.backend = Backend::Auto;
    EXPECT_EQ(plan(ctx, d).backend(), want);
    d.shape = {16};
    EXPECT_EQ(plan(ctx, d).backend(), want);
    EXPECT_EQ((bufferFlags(ctx, Backend::Auto) & CL_MEM_ALLOC_HOST_PTR) != 0, want == Backend::FFTW);
}

TEST(FftBackends, TheCpuProfilesNameFftw) {
    for (const auto& profile : loadTuningProfiles())
        if (profile.name == "pocl" || profile.name == "intel-cpu") EXPECT_EQ(profile.get("fft", "backend", ""), "fftw") << profile.path;
}

TEST(FftBackends, ParseAndName) {
    EXPECT_EQ(parseBackend("clFFT"), Backend::ClFFT);
    EXPECT_EQ(parseBackend("vkfft"), Backend::VkFFT);
    EXPECT_EQ(parseBackend("auto"), Backend::Auto);
    EXPECT_EQ(parseBackend("FFTW"), Backend::FFTW);
    EXPECT_THROW(parseBackend("mkl"), Error);
    EXPECT_STREQ(backendName(Backend::ClFFT), "clfft");
    EXPECT_STREQ(backendName(Backend::FFTW), "fftw");
}

// ---- The plan cache ----

TEST(FftPlanCache, TheSameDescriptionReturnsTheSamePlan) {
    Context& ctx = test::context();
    PlanDesc d;
    d.kind = Kind::R2C;
    d.shape = {8, 6};
    d.backend = Backend::VkFFT;
    Plan& first = plan(ctx, d);
    EXPECT_EQ(&plan(ctx, d), &first);
    PlanDesc autoDesc = d;
    autoDesc.backend = Backend::Auto;  // Auto resolves before the lookup
    if (resolve(ctx, Backend::Auto) == Backend::VkFFT) EXPECT_EQ(&plan(ctx, autoDesc), &first);
    PlanDesc other = d;
    other.batch = 2;
    EXPECT_NE(&plan(ctx, other), &first);
    EXPECT_NE(other.key(), d.key());
}

TEST(FftPlanCache, ClfftPlansAreCachedToo) {
    Context& ctx = test::context();
    PlanDesc d;
    d.shape = {12};
    d.backend = Backend::ClFFT;
    Plan& first = plan(ctx, d);
    EXPECT_EQ(&plan(ctx, d), &first);
    EXPECT_EQ(first.backend(), Backend::ClFFT);
}

// ---- Events: benchmark timing sees each backend's kernels ----

TEST(FftEvents, ExecuteRecordsEventsThatSpanTheTransform) {
    Context& ctx = test::context();
    for (Backend b : {Backend::VkFFT, Backend::ClFFT, Backend::FFTW}) {
        if (b == Backend::FFTW && !fftwMissing().empty()) continue;
        PlanDesc d;
        d.shape = {8, 6};
        d.inPlace = true;
        d.backend = b;
        Plan& p = plan(ctx, d);
        cl::Buffer data = ctx.buffer(inputBytes(d, Direction::Forward), "data");
        ctx.fill(data, 0, inputBytes(d, Direction::Forward), "zero");
        ctx.finish();
        ctx.beginTiming();
        p.execute(data, data, Direction::Forward);
        EXPECT_GT(ctx.endTiming(), 0.0) << backendName(b) << " recorded no device time";
    }
}

// ---- Sizes and bad use ----

TEST(FftLayout, ElementCountsIncludeTheInPlacePadding) {
    PlanDesc d;
    d.kind = Kind::R2C;
    d.shape = {7, 9};
    d.batch = 3;
    EXPECT_EQ(inputElements(d, Direction::Forward), 63u);
    EXPECT_EQ(outputElements(d, Direction::Forward), 7u * 5 * 2);
    d.inPlace = true;
    EXPECT_EQ(inputElements(d, Direction::Forward), 7u * 10);
    EXPECT_EQ(inputBytes(d, Direction::Forward), 3u * 7 * 10 * sizeof(float));
    d.kind = Kind::C2R;
    d.inPlace = false;
    d.precision = Precision::Double;
    EXPECT_EQ(inputElements(d, Direction::Inverse), 7u * 5 * 2);
    EXPECT_EQ(outputBytes(d, Direction::Inverse), 3u * 63 * sizeof(double));
    d.kind = Kind::C2C;
    EXPECT_EQ(inputElements(d, Direction::Forward), 126u);
}

TEST(FftMisuse, RealPlansRunInTheirOwnDirectionOnly) {
    PlanDesc d;
    d.kind = Kind::R2C;
    d.shape = {8};
    EXPECT_THROW(inputElements(d, Direction::Inverse), Error);
    Context& ctx = test::context();
    Plan& p = plan(ctx, d);
    cl::Buffer in = ctx.buffer(inputBytes(d, Direction::Forward), "in");
    cl::Buffer out = ctx.buffer(outputBytes(d, Direction::Forward), "out");
    EXPECT_THROW(p.execute(in, out, Direction::Inverse), Error);
}

TEST(FftMisuse, BuffersTooSmallOrWronglyPairedAreRefused) {
    Context& ctx = test::context();
    PlanDesc d;
    d.shape = {8};
    Plan& p = plan(ctx, d);  // C2C out of place: 64 bytes each side
    cl::Buffer small = ctx.buffer(32, "small");
    cl::Buffer ok = ctx.buffer(64, "ok");
    EXPECT_THROW(p.execute(small, ok, Direction::Forward), Error);
    EXPECT_THROW(p.execute(ok, small, Direction::Forward), Error);
    EXPECT_THROW(p.execute(ok, ok, Direction::Forward), Error);  // out-of-place plan, one buffer
    d.inPlace = true;
    Plan& q = plan(ctx, d);
    cl::Buffer other = ctx.buffer(64, "other");
    EXPECT_THROW(q.execute(ok, other, Direction::Forward), Error);
}

TEST(FftMisuse, BadDescriptionsAreRefused) {
    Context& ctx = test::context();
    PlanDesc d;
    EXPECT_THROW(plan(ctx, d), Error);  // no shape
    d.shape = {2, 2, 2, 2};
    EXPECT_THROW(plan(ctx, d), Error);
    d.shape = {0};
    EXPECT_THROW(plan(ctx, d), Error);
    d.shape = {8};
    d.precision = Precision::Mixed;
    EXPECT_THROW(plan(ctx, d), Error);
}

}  // namespace

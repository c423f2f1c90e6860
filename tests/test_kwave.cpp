// The k-Wave solver: file formats, the serial reference against the exact k-space solution, the
// device against the reference, physics checks (wave speed, power-law absorption), checkpoints,
// reduced-precision storage and bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "kwave/k_space_operators.hpp"
#include "kwave/reference_fft.hpp"
#include "portacl/io/hdf5_file.hpp"
#include "portacl/kwave.hpp"
#include "portacl/kwave/run.hpp"
#include "portacl/runtime/error.hpp"
#include "support/kwave_simulations.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::kwave;

namespace {

std::string tempPath(const std::string& name) {
    return "/tmp/portacl_test_kwave_" + std::to_string(::getpid()) + "_" + name;
}

using test::ballSimulation;
using test::makeHard;
Field scalar(double v) { return test::scalarField(v); }

template <typename Fn>
void expectThrowsContaining(Fn&& fn, const std::string& words) {
    try {
        fn();
        ADD_FAILURE() << "no error; expected one saying \"" << words << "\"";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

double relativeL2(const std::vector<double>& a, const std::vector<double>& b) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return std::sqrt(num / std::max(den, 1e-300));
}

double relativeLinf(const std::vector<double>& a, const std::vector<double>& b) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num = std::max(num, std::abs(a[i] - b[i]));
        den = std::max(den, std::abs(b[i]));
    }
    return num / std::max(den, 1e-300);
}

OutputSelection everything() {
    OutputSelection o;
    o.pRaw = o.pRms = o.pMax = o.pMin = o.pMaxAll = o.pMinAll = o.pFinal = true;
    o.uRaw = o.uRms = o.uMax = o.uMin = o.uMaxAll = o.uMinAll = o.uFinal = true;
    o.uNonStaggeredRaw = true;
    return o;
}

Recording runDevice(const Simulation& s, Precision prec, const OutputSelection& out, Storage storage = Storage::Full,
                    const std::map<std::string, long>& profileKeys = {}) {
    RunOptions o;
    o.precision = prec;
    o.storage = storage;
    o.outputs = out;
    o.profileKeys = profileKeys;
    KSpaceSolver solver(test::context(), s, o);
    solver.run();
    return solver.recording();
}

// The solver's two sets of kernel paths, forced whatever the device profile chooses (the [kwave]
// keys): the GPUs' (the fused z kernels where nz = 16 q, kappa and the absorption operators
// computed per element, the spectral kernels over a 1-D range, the inverse transforms scaled by the
// FFT library) and the CPUs' (FFT-library 3-D transforms with the plain spectral kernels, the
// operators stored, a work-item per x row, 1/N carried by the spectral operators).
const std::map<std::string, long> kGpuPaths{
    {"fused_z", 1}, {"fftw_fused_z", 1}, {"stored_operators", 0}, {"row_kernels", 0}, {"fold_fft_scale", 0}};
const std::map<std::string, long> kCpuPaths{
    {"fused_z", 0}, {"fftw_fused_z", 0}, {"stored_operators", 1}, {"row_kernels", 1}, {"fold_fft_scale", 1},
    {"row_group", 3}};  // 3 rows a work-group: ny = 10 and 16 round up, the kernels' bounds checks skip the rest

// Every recorded quantity of `dev` within `tol` (relative L2 over the whole quantity) of `ref`.
void expectMatches(const Recording& dev, const Recording& ref, double tol) {
    ASSERT_EQ(dev.samples, ref.samples);
    for (const auto& [name, v] : ref.data) {
        auto it = dev.data.find(name);
        ASSERT_NE(it, dev.data.end()) << name;
        ASSERT_EQ(it->second.size(), v.size()) << name;
        EXPECT_LT(relativeL2(it->second, v), tol) << name;
    }
}

}  // namespace

TEST(KWaveFiles, InputRoundTripKeepsEverything) {
    Simulation s = ballSimulation(12, 10, 8, 5);
    makeHard(s);
    s.p.length = 3;
    s.p.mode = SourceMode::Dirichlet;
    s.p.many = true;
    s.p.index = {1, 5, 9};
    s.p.signal = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    s.sensor.type = SensorMask::Type::Corners;
    s.sensor.cuboids = {Cuboid{{1, 2, 3}, {4, 5, 6}}};
    s.header.fileDescription = "round trip";
    const std::string path = tempPath("input.h5");
    writeInputFile(path, s);
    const Simulation r = readInputFile(path);
    std::remove(path.c_str());
    EXPECT_EQ(r.grid.nx, 12u);
    EXPECT_EQ(r.grid.nz, 8u);
    EXPECT_EQ(r.nt, 5u);
    EXPECT_FLOAT_EQ(static_cast<float>(r.dt), static_cast<float>(s.dt));
    EXPECT_EQ(r.medium.c0.values, s.medium.c0.values);
    EXPECT_EQ(r.medium.alphaCoeff.values, s.medium.alphaCoeff.values);
    EXPECT_EQ(r.p0, s.p0);
    EXPECT_EQ(r.p.index, s.p.index);
    EXPECT_EQ(r.p.signal, s.p.signal);
    EXPECT_EQ(r.p.mode, SourceMode::Dirichlet);
    ASSERT_EQ(r.sensor.cuboids.size(), 1u);
    EXPECT_EQ(r.sensor.cuboids[0].begin[2], 3u);
    EXPECT_EQ(r.sensor.cuboids[0].end[0], 4u);
    EXPECT_EQ(r.header.fileDescription, "round trip");
    EXPECT_EQ(r.header.minorVersion, "2");
}

// An MPI rank's read: the per-point datasets for its planes only (z planes in 3-D, y rows in 2-D),
// equal to the same planes of the whole read; everything else as the whole read has it. The one-device
// solver and the checkpoint writer refuse such a simulation, and a range past the grid is refused.
TEST(KWaveFiles, SlabReadHoldsThePlanesOfTheWholeRead) {
    for (const std::size_t nz : {std::size_t(8), std::size_t(1)}) {
        Simulation s = ballSimulation(12, 10, nz, 5);
        makeHard(s);
        const std::string path = tempPath("slab_input.h5");
        writeInputFile(path, s);
        const Simulation whole = readInputFile(path);
        const std::size_t plane = nz > 1 ? 12 * 10 : 12, first = 3, count = nz > 1 ? 4 : 5;
        const Simulation part = readInputFile(path, [&](const Grid& g) {
            EXPECT_EQ(g.nx, 12u);
            return PlaneRange{first, count};
        });
        auto planesOf = [&](const std::vector<float>& v) {
            return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(first * plane),
                                      v.begin() + static_cast<std::ptrdiff_t>((first + count) * plane));
        };
        EXPECT_EQ(part.planes.first, first);
        EXPECT_EQ(part.pointsHeld(), count * plane);
        EXPECT_EQ(part.medium.c0.values, planesOf(whole.medium.c0.values)) << nz;
        EXPECT_EQ(part.medium.rho0Sgy.values, planesOf(whole.medium.rho0Sgy.values)) << nz;
        EXPECT_EQ(part.medium.bOnA.values, planesOf(whole.medium.bOnA.values)) << nz;
        EXPECT_EQ(part.medium.alphaCoeff.values, planesOf(whole.medium.alphaCoeff.values)) << nz;
        EXPECT_EQ(part.p0, planesOf(whole.p0)) << nz;
        EXPECT_EQ(part.sensor.index, whole.sensor.index);
        EXPECT_EQ(part.grid.size(), whole.grid.size());
        expectThrowsContaining([&] { KSpaceSolver solver(test::context(), part, RunOptions{}); }, "holds only planes 3 to");
        expectThrowsContaining([&] { writeCheckpointFile(tempPath("slab_checkpoint.h5"), part, KSpaceSolver::State{}); },
                               "needs the whole grid");
        expectThrowsContaining([&] { readInputFile(path, [&](const Grid&) { return PlaneRange{first, 100}; }); }, "not planes 3 to 102");
        std::remove(path.c_str());
    }
}

// k-Wave MATLAB pads the transducer signal for the delays and writes transducer_source_flag as its
// length minus the largest delay (found by running kspaceFirstOrder-OMP on such a file, which the
// reader once refused for its "wrong" size).
TEST(KWaveFiles, TransducerSignalLongerThanItsFlag) {
    Simulation s = ballSimulation(12, 10, 8, 9);
    s.u.index = {3, 40, 77};
    s.transducer.delay = {0, 2, 1};
    s.transducer.length = 9;
    for (int i = 0; i < 11; ++i) s.transducer.signal.push_back(static_cast<float>(std::sin(0.3 * i)));
    const std::string path = tempPath("transducer.h5");
    writeInputFile(path, s);
    EXPECT_EQ(io::Hdf5File::open(path).readUInt64("delay_mask"), (std::vector<std::uint64_t>{1, 3, 2})) << "1-based in the file";
    const Simulation r = readInputFile(path);
    std::remove(path.c_str());
    EXPECT_EQ(r.transducer.length, 9u);
    EXPECT_EQ(r.transducer.signal, s.transducer.signal);
    EXPECT_EQ(r.transducer.delay, s.transducer.delay);
}

TEST(KWaveFiles, FileWrittenAsKWaveWritesIt) {
    const Simulation s = ballSimulation(8, 6, 1, 3);
    const std::string path = tempPath("layout.h5");
    writeInputFile(path, s);
    const auto f = io::Hdf5File::open(path);
    EXPECT_EQ(f.readStringAttribute("/", "file_type"), "input");
    EXPECT_EQ(f.dims("p0_source_input"), (io::Dims{1, 6, 8}));
    EXPECT_EQ(f.dims("sensor_mask_index"), (io::Dims{1, 1, s.sensor.index.size()}));
    EXPECT_EQ(f.elementType("Nx"), io::ElementType::UInt64);
    EXPECT_EQ(f.elementType("c0"), io::ElementType::Float32);
    EXPECT_EQ(f.readStringAttribute("p0_source_input", "data_type"), "float");
    EXPECT_EQ(f.readUInt64("sensor_mask_index")[0], 1u) << "indices are 1-based in the file";
    std::remove(path.c_str());
}

TEST(KWaveFiles, BadInputNamesTheProblem) {
    const std::string path = tempPath("bad.h5");
    const Simulation s = ballSimulation(8, 6, 1, 3);
    writeInputFile(path, s);
    {
        // Drop a required dataset by rewriting the file without it.
        auto f = io::Hdf5File::open(path, io::Hdf5File::Mode::ReadWrite);
        f.writeStringAttribute("/", "file_type", "output");
    }
    try {
        readInputFile(path);
        FAIL() << "an output file was accepted as input";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not an input file"), std::string::npos) << e.what();
    }
    {
        auto f = io::Hdf5File::create(path);
        f.writeStringAttribute("/", "file_type", "input");
        f.writeStringAttribute("/", "major_version", "1");
        f.writeStringAttribute("/", "minor_version", "2");
        const std::uint64_t one = 8;
        f.writeUInt64("Nx", {1, 1, 1}, &one);
    }
    try {
        readInputFile(path);
        FAIL() << "a file without Ny was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'Ny'"), std::string::npos) << e.what();
    }
    {
        auto f = io::Hdf5File::open(path, io::Hdf5File::Mode::ReadWrite);
        f.writeStringAttribute("/", "minor_version", "7");
    }
    EXPECT_THROW(readInputFile(path), Error);
    std::remove(path.c_str());
    EXPECT_THROW(readInputFile(path), Error);
}

// The reference (and the device) reproduce the exact solution of a homogeneous lossless medium on a periodic grid,
// p(t) = IFFT(FFT(p0) cos(c |k| t)).
TEST(KWaveReference, MatchesExactKSpaceSolution) {
    for (const auto& dims : {std::array<std::size_t, 3>{16, 16, 16}, std::array<std::size_t, 3>{32, 24, 1}}) {
        Simulation s = ballSimulation(dims[0], dims[1], dims[2], 12);
        OutputSelection out;
        out.pRaw = false;
        out.pFinal = true;
        const Recording r = referenceRun(s, out);
        const double t = (s.nt - 1) * s.dt;
        reference::Spectrum spec(s.p0.begin(), s.p0.end());
        reference::transform(spec, dims, false);
        for (std::size_t z = 0; z < dims[2]; ++z)
            for (std::size_t y = 0; y < dims[1]; ++y)
                for (std::size_t x = 0; x < dims[0]; ++x) {
                    const double kx = waveNumber(x, dims[0], s.grid.dx), ky = waveNumber(y, dims[1], s.grid.dy);
                    const double kz = dims[2] > 1 ? waveNumber(z, dims[2], s.grid.dz) : 0.0;
                    spec[x + dims[0] * (y + dims[1] * z)] *= std::cos(1500.0 * std::sqrt(kx * kx + ky * ky + kz * kz) * t);
                }
        reference::transform(spec, dims, true);
        std::vector<double> exact(spec.size());
        for (std::size_t i = 0; i < spec.size(); ++i) exact[i] = spec[i].real();
        EXPECT_LT(relativeL2(r.data.at("p_final"), exact), 1e-9) << dims[0] << "x" << dims[1] << "x" << dims[2];
        // The device too, in single precision (2-D only: its kernels are shared with other tests).
        if (dims[2] == 1)
            EXPECT_LT(relativeL2(runDevice(s, Precision::Float, out).data.at("p_final"), exact), 1e-4);
    }
}

// Device against reference: the hard path (heterogeneous, nonlinear, absorbing, PML) in 3-D and 2-D,
// power law and Stokes, float and (3-D power law) double. The homogeneous lossless path is covered by
// the source test below. (Each case is one more kernel build on a cold PoCL cache, so the list is short.)
TEST(KWaveDevice, MatchesReference) {
    struct Case {
        std::array<std::size_t, 3> dims;
        Absorption absorption;
        bool alsoDouble;
    };
    // 12x10x6: component sizes off the device's sub-buffer alignment, so the FFTs go one component
    // at a time (the others are batched over contiguous components).
    // nz = 16 q (16x16x16, 10x6x32, 8x8x128, 8x8x256): the z transforms fused with the spectral
    // operators (kwave_z_*), one line per 16 work-items with q = 1, 2, 8 and 16 points each; 12x10x6
    // and the 2-D grids: full 3-D (2-D) transforms and the element-wise operators. nx = 32 q as well
    // (32x8x16, 64x8x32, 256x8x16): the velocity update fused with the inverse x transforms
    // (kwave_x_velocity), q = 1, 2 and 8. Every grid runs in float on both sets of kernel paths
    // (kGpuPaths, kCpuPaths), and in double as the device profile chooses.
    for (const Case c : {Case{{16, 16, 16}, Absorption::PowerLaw, true}, Case{{32, 24, 1}, Absorption::PowerLaw, false},
                         Case{{32, 24, 1}, Absorption::Stokes, false}, Case{{12, 10, 6}, Absorption::PowerLaw, false},
                         Case{{10, 6, 32}, Absorption::PowerLaw, true}, Case{{8, 8, 128}, Absorption::Stokes, false},
                         Case{{8, 8, 256}, Absorption::PowerLaw, true}, Case{{32, 8, 16}, Absorption::PowerLaw, true},
                         Case{{64, 8, 32}, Absorption::Stokes, false}, Case{{256, 8, 16}, Absorption::PowerLaw, true}}) {
        Simulation s = ballSimulation(c.dims[0], c.dims[1], c.dims[2], 10);
        makeHard(s, c.absorption);
        const auto out = everything();
        const Recording ref = referenceRun(s, out);
        SCOPED_TRACE(std::to_string(c.dims[0]) + "x" + std::to_string(c.dims[1]) + "x" + std::to_string(c.dims[2]) +
                     " heterogeneous nonlinear absorbing " + std::to_string(static_cast<int>(c.absorption)));
        for (const auto* paths : {&kGpuPaths, &kCpuPaths}) {
            SCOPED_TRACE(paths == &kGpuPaths ? "the GPU's kernel paths" : "the CPU's kernel paths");
            expectMatches(runDevice(s, Precision::Float, out, Storage::Full, *paths), ref, 2e-4);
        }
        if (c.alsoDouble && test::hasFp64()) expectMatches(runDevice(s, Precision::Double, out), ref, 1e-10);
    }
}

// Raw samples go to the host in blocks of up to 64 steps through two device buffers that alternate
// (the read of one overlaps the steps filling the other). 150 sampled steps fill three blocks, so a
// slot is reused; a run whose recording is taken after every step (partial blocks, other
// boundaries) must give the same samples bit for bit, and both must match the serial reference.
TEST(KWaveDevice, RawSamplesStreamInBlocks) {
    Simulation s = ballSimulation(32, 24, 1, 152);
    makeHard(s);
    OutputSelection out;
    out.pRaw = out.uRaw = out.pRms = out.pMaxAll = true;
    out.startIndex = 2;
    RunOptions o;
    o.outputs = out;
    KSpaceSolver whole(test::context(), s, o);
    whole.run();
    const Recording a = whole.recording();
    test::context().finish();
    EXPECT_EQ(whole.completedSteps(), whole.timeIndex());
    EXPECT_EQ(a.samples, 150u);
    ASSERT_EQ(a.data.at("p").size(), 150u * s.sensor.index.size());

    KSpaceSolver stepwise(test::context(), s, o);
    Recording b;
    while (!stepwise.done()) {
        stepwise.step();
        b = stepwise.recording();
        EXPECT_LE(stepwise.completedSteps(), stepwise.timeIndex());
    }
    for (const auto& [name, v] : a.data) EXPECT_EQ(b.data.at(name), v) << name;
    expectMatches(a, referenceRun(s, out), 2e-4);
}

// Media of scalars and grids mixed: the folded B/A / (2 rho0) and (operators stored) 2 alpha c^(y-1)
// fields are grids when either factor is (scalar B/A with a rho0 grid; scalar alpha with a c0 grid),
// scalars when both are.
TEST(KWaveDevice, MixedScalarAndGridMediumMatchesReference) {
    for (int variant = 0; variant < 2; ++variant) {
        Simulation s = ballSimulation(32, 24, 1, 10);
        makeHard(s);
        if (variant == 0) {  // rho0 and alpha_coeff grids, c0 and B/A scalars
            s.medium.c0 = scalar(1500);
            s.medium.bOnA = scalar(6);
        } else {  // a c0 grid, everything else scalar
            s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = scalar(1000);
            s.medium.bOnA = scalar(6);
            s.medium.alphaCoeff = scalar(0.75);
        }
        const auto out = everything();
        const Recording ref = referenceRun(s, out);
        SCOPED_TRACE("variant " + std::to_string(variant));
        for (const auto* paths : {&kGpuPaths, &kCpuPaths}) {  // 2 alpha, or 2 alpha c^(y-1) stored
            SCOPED_TRACE(paths == &kGpuPaths ? "the GPU's kernel paths" : "the CPU's kernel paths");
            expectMatches(runDevice(s, Precision::Float, out, Storage::Full, *paths), ref, 2e-4);
        }
        if (test::hasFp64()) expectMatches(runDevice(s, Precision::Double, out), ref, 1e-10);
    }
}

// Pressure, velocity and transducer sources in every mode, and a cuboid sensor.
TEST(KWaveDevice, SourcesMatchReference) {
    for (const SourceMode mode : {SourceMode::Dirichlet, SourceMode::AdditiveNoCorrection, SourceMode::Additive}) {
        Simulation s = ballSimulation(32, 24, 1, 12);
        s.p0.clear();
        s.pml.size = {4, 4, 0};
        s.p.length = 8;
        s.p.mode = mode;
        s.p.many = mode == SourceMode::Additive;
        s.p.index = {5 + 32 * 10, 6 + 32 * 10, 7 + 32 * 11};
        for (std::size_t t = 0; t < s.p.length; ++t)
            for (std::size_t i = 0; i < (s.p.many ? 3u : 1u); ++i)
                s.p.signal.push_back(static_cast<float>(std::sin(0.7 * t + i) * 10.0));
        s.u.length = {6, 4, 0};
        s.u.mode = mode;
        s.u.index = {12 + 32 * 5, 13 + 32 * 5};
        for (int a = 0; a < 2; ++a)
            for (std::size_t t = 0; t < s.u.length[a]; ++t) s.u.signal[a].push_back(static_cast<float>(1e-3 * std::cos(0.5 * t + a)));
        s.transducer.length = 12;
        for (int i = 0; i < 12; ++i) s.transducer.signal.push_back(static_cast<float>(1e-3 * std::sin(0.3 * i)));
        s.transducer.delay = {0, 2};
        s.transducer.length = 10;
        s.sensor.type = SensorMask::Type::Corners;
        s.sensor.cuboids = {Cuboid{{2, 3, 0}, {9, 7, 0}}, Cuboid{{15, 15, 0}, {20, 18, 0}}};
        s.sensor.index.clear();
        if (mode == SourceMode::Additive) {
            // Absorbing too: the pressure source then acts between the density and the absorption terms.
            s.medium.absorption = Absorption::PowerLaw;
            s.medium.alphaCoeff = scalar(0.75);
            s.medium.alphaPower = 1.5;
        }
        const auto out = everything();
        const Recording ref = referenceRun(s, out);
        SCOPED_TRACE("source mode " + std::to_string(static_cast<int>(mode)));
        expectMatches(runDevice(s, Precision::Float, out), ref, 2e-4);
    }
}

// A plane pulse travels at c: the peak reaches two sensors dx*distance apart distance/c later.
TEST(KWavePhysics, PlaneWaveTravelsAtSoundSpeed) {
    Simulation s = ballSimulation(128, 4, 1, 160);
    s.medium.c0 = scalar(1500);
    for (std::size_t y = 0; y < 4; ++y)
        for (std::size_t x = 0; x < 128; ++x) s.p0[x + 128 * y] = static_cast<float>(std::exp(-std::pow((x - 30.0) / 3.0, 2)));
    s.sensor.index = {40, 70};
    OutputSelection out;
    const Recording r = runDevice(s, Precision::Float, out);
    const auto& p = r.data.at("p");
    // Peak time of each sensor, refined by a parabola through the three samples around the maximum.
    auto peak = [&](std::size_t sensor) {
        std::size_t best = 1;
        for (std::size_t t = 1; t + 1 < r.samples; ++t)
            if (p[t * 2 + sensor] > p[best * 2 + sensor]) best = t;
        const double a = p[(best - 1) * 2 + sensor], b = p[best * 2 + sensor], c = p[(best + 1) * 2 + sensor];
        return (best + 0.5 * (a - c) / (a - 2 * b + c)) * s.dt;
    };
    const double speed = 30 * s.grid.dx / (peak(1) - peak(0));
    EXPECT_NEAR(speed, 1500.0, 1500.0 * 2e-3);
}

// A standing wave of one wavenumber decays as exp(-alpha(omega) c t) with alpha = alpha0 omega^y:
// the decay rates of two wavenumbers have the ratio (omega1/omega2)^y.
TEST(KWavePhysics, AbsorptionFollowsThePowerLaw) {
    auto decayRate = [](int mode) {
        Simulation s = ballSimulation(128, 4, 1, 400);
        s.medium.absorption = Absorption::PowerLaw;
        s.medium.alphaPower = 1.5;
        s.medium.alphaCoeff = scalar(10.0);
        const double k = 2 * M_PI * mode / (128 * s.grid.dx);
        for (std::size_t y = 0; y < 4; ++y)
            for (std::size_t x = 0; x < 128; ++x) s.p0[x + 128 * y] = static_cast<float>(std::cos(k * x * s.grid.dx));
        s.sensor.index = {0};
        OutputSelection out;
        const Recording r = runDevice(s, Precision::Float, out);
        // The envelope between the first and the last local maximum of p(0, t) after t = 0 (which
        // leaves out the start-up amplitude and phase of the dispersive model).
        const auto& p = r.data.at("p");
        std::size_t first = 0, last = 0;
        for (std::size_t t = 1; t + 1 < p.size(); ++t)
            if (p[t] > p[t - 1] && p[t] >= p[t + 1]) {
                if (!first) first = t;
                last = t;
            }
        const double alpha0 = 10.0 * 100.0 * std::pow(1e-6 / (2 * M_PI), 1.5) / (20.0 * std::log10(std::exp(1.0)));
        const double omega = 1500.0 * k;
        const double expected = alpha0 * std::pow(omega, 1.5) * 1500.0;  // 1/s
        const double measured = std::log(p[first] / p[last]) / ((last - first) * s.dt);
        return std::make_pair(measured, expected);
    };
    const auto [m4, e4] = decayRate(8);
    const auto [m8, e8] = decayRate(16);
    std::printf("[kwave] decay rate / alpha(omega) c: mode 8 %.4f, mode 16 %.4f\n", m4 / e4, m8 / e8);
    EXPECT_NEAR(m4 / e4, 1.0, 0.02);
    EXPECT_NEAR(m8 / e8, 1.0, 0.02);
    EXPECT_NEAR(m8 / m4, std::pow(2.0, 1.5), 0.02 * std::pow(2.0, 1.5));
}

// Stopping, checkpointing to a file and continuing gives the uninterrupted run's output.
TEST(KWaveCheckpoint, RestartEqualsUninterruptedRun) {
    Simulation s = ballSimulation(32, 24, 1, 14);
    makeHard(s);
    const auto out = everything();
    RunOptions o;
    o.outputs = out;
    const Recording whole = runDevice(s, Precision::Float, out);
    const std::string path = tempPath("checkpoint.h5");
    {
        KSpaceSolver first(test::context(), s, o);
        first.run(6);
        writeCheckpointFile(path, s, first.saveState());
    }
    KSpaceSolver second(test::context(), s, o);
    second.restoreState(readCheckpointFile(path, s));
    EXPECT_EQ(second.timeIndex(), 6u);
    second.run();
    const Recording resumed = second.recording();
    for (const auto& [name, v] : whole.data) EXPECT_EQ(resumed.data.at(name), v) << name;

    Simulation other = s;
    other.medium.c0.values[3] += 1.0f;
    EXPECT_THROW(readCheckpointFile(path, other), Error);
    std::remove(path.c_str());
}

// kwave::run, the library's whole run: stopped for a checkpoint every 5 steps and run again until it
// completes, its output holds the samples of an uninterrupted solver run; the checkpoint is gone once complete.
TEST(KWaveRun, CheckpointedRunEqualsTheSolversRecording) {
    Simulation s = ballSimulation(32, 24, 1, 14);
    makeHard(s);
    OutputSelection out;
    out.pRaw = out.pMax = out.uRaw = true;
    const Recording whole = runDevice(s, Precision::Float, out);

    RunPlan plan;
    plan.options.outputs = out;
    plan.outputFile = tempPath("run_output.h5");
    plan.checkpointFile = tempPath("run_checkpoint.h5");
    plan.checkpointSteps = 5;
    std::vector<RunProgress> seen;
    RunObserver observer;
    observer.progress = [&](const RunProgress& at) { seen.push_back(at); };
    std::size_t restoredAt = 0;
    observer.restored = [&](std::size_t t) { restoredAt = t; };

    const RunSummary first = run(test::context(), s, plan, observer);
    EXPECT_TRUE(first.checkpointed);
    EXPECT_EQ(first.firstStep, 0u);
    EXPECT_EQ(first.timeIndex, 5u);
    EXPECT_EQ(io::Hdf5File::open(plan.outputFile).readScalarUInt64("t_index"), 5u);
    ASSERT_EQ(access(plan.checkpointFile.c_str(), F_OK), 0);
    ASSERT_FALSE(seen.empty());
    for (const auto& at : seen) EXPECT_LE(at.done, 5u);

    const RunSummary second = run(test::context(), s, plan, observer);
    EXPECT_TRUE(second.checkpointed);
    EXPECT_EQ(restoredAt, 5u);
    EXPECT_EQ(second.timeIndex, 10u);

    seen.clear();
    const RunSummary third = run(test::context(), s, plan, observer);
    EXPECT_FALSE(third.checkpointed);
    EXPECT_EQ(restoredAt, 10u);
    EXPECT_EQ(third.firstStep, 10u);
    EXPECT_EQ(third.timeIndex, s.nt);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back().done, s.nt) << "the last progress call reports every step";
    EXPECT_EQ(seen.back().first, 10u);
    EXPECT_NE(access(plan.checkpointFile.c_str(), F_OK), 0) << "a complete run removes its checkpoint";

    const auto f = io::Hdf5File::open(plan.outputFile);
    EXPECT_EQ(f.readScalarUInt64("t_index"), s.nt);
    for (const char* name : {"p", "p_max", "ux", "uy"}) {
        const auto got = f.readFloat(name);
        const auto& want = whole.data.at(name);
        ASSERT_EQ(got.size(), want.size()) << name;
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(want[i])) << name << " " << i;
    }
    std::remove(plan.outputFile.c_str());

    plan.outputFile.clear();
    EXPECT_THROW(run(test::context(), s, plan), Error) << "no output file";
}

// The reduced-storage modes stay close to single precision; their errors are printed for the docs.
TEST(KWaveStorage, ReducedModesStayCloseToSingle) {
    Simulation s = ballSimulation(16, 16, 16, 12);
    makeHard(s);
    OutputSelection out;
    out.pFinal = true;
    const Recording single = runDevice(s, Precision::Float, out);
    auto bytes = [&](Storage mode) {
        RunOptions o;
        o.storage = mode;
        o.outputs = out;
        return KSpaceSolver(test::context(), s, o).deviceBytes();
    };
    const std::size_t singleBytes = bytes(Storage::Full);
    for (const Storage mode : {Storage::ReducedMin, Storage::ReducedMid, Storage::ReducedMax}) {
        const std::size_t b = bytes(mode);
        std::printf("[kwave] %s: device memory %zu of single's %zu bytes (%.1f %% saved)\n", storageName(mode), b,
                    singleBytes, 100.0 * (1.0 - double(b) / double(singleBytes)));
        EXPECT_LT(b, singleBytes);
        const Recording r = runDevice(s, Precision::Float, out, mode);
        const double l2 = relativeL2(r.data.at("p_final"), single.data.at("p_final"));
        const double linf = relativeLinf(r.data.at("p_final"), single.data.at("p_final"));
        std::printf("[kwave] %s: p_final relative L2 %.3g, Linf %.3g against single\n", storageName(mode), l2, linf);
        EXPECT_LT(l2, 2e-2) << storageName(mode);
        EXPECT_GT(l2, 0.0) << storageName(mode) << " should differ from single at all";
    }
}

// The element-wise row kernels in explicit vectors ([kwave] row_lanes) compute what one point at a
// time computes: in every storage mode (the vectors' half and bfloat16 loads and stores), 3-D and
// 2-D, float and double. The same operations in the same order; a compiler may still contract a
// product and a sum into one rounding differently in vector and scalar code, hence a bound of a few
// roundings rather than equality.
TEST(KWaveDevice, RowLanesComputeWhatOnePointAtATimeDoes) {
    for (const std::array<std::size_t, 3> dims : {std::array<std::size_t, 3>{32, 12, 10}, std::array<std::size_t, 3>{16, 20, 1}}) {  // nx: multiples of 16
        Simulation s = ballSimulation(dims[0], dims[1], dims[2], 10);
        makeHard(s);
        const auto out = everything();
        auto paths = [](long lanes) {
            auto keys = kCpuPaths;
            keys["row_lanes"] = lanes;
            return keys;
        };
        struct Mode {
            Precision precision;
            Storage storage;
            double tol;
        };
        for (const Mode m : {Mode{Precision::Float, Storage::Full, 1e-6}, Mode{Precision::Float, Storage::ReducedMin, 1e-6},
                             Mode{Precision::Float, Storage::ReducedMid, 1e-6}, Mode{Precision::Float, Storage::ReducedMax, 1e-6},
                             Mode{Precision::Double, Storage::Full, 1e-14}}) {
            if (m.precision == Precision::Double && !test::hasFp64()) continue;
            SCOPED_TRACE(std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) + " " +
                         storageName(m.storage) + (m.precision == Precision::Double ? " double" : " float"));
            const Recording one = runDevice(s, m.precision, out, m.storage, paths(1));
            expectMatches(runDevice(s, m.precision, out, m.storage, paths(16)), one, m.tol);
        }
    }
}

TEST(KWaveOutput, DatasetsShapesAndAttributes) {
    Simulation s = ballSimulation(32, 24, 1, 6);
    s.header.fileDescription = "output test";
    OutputSelection out = everything();
    out.copySensorMask = true;
    out.startIndex = 2;
    const Recording r = runDevice(s, Precision::Float, out);
    const std::string path = tempPath("output.h5");
    RunInfo info;
    info.timeIndex = s.nt;
    writeOutputFile(path, s, out, r, info);
    const auto f = io::Hdf5File::open(path);
    const std::uint64_t ns = s.sensor.index.size();
    EXPECT_EQ(f.readStringAttribute("/", "file_type"), "output");
    EXPECT_EQ(f.readStringAttribute("/", "file_description"), "output test");
    EXPECT_TRUE(f.hasAttribute("/", "total_execution_time"));
    EXPECT_EQ(f.dims("p"), (io::Dims{1, 4, ns}));
    EXPECT_EQ(f.dims("ux"), (io::Dims{1, 4, ns}));
    EXPECT_EQ(f.dims("p_rms"), (io::Dims{1, 1, ns}));
    EXPECT_EQ(f.dims("p_max_all"), (io::Dims{1, 24, 32}));
    EXPECT_EQ(f.dims("uy_final"), (io::Dims{1, 24, 32}));
    EXPECT_FALSE(f.exists("uz"));
    EXPECT_EQ(f.dims("ux_non_staggered"), (io::Dims{1, 4, ns}));
    EXPECT_EQ(f.readScalarUInt64("t_index"), 6u);
    const auto mask = f.readUInt64("sensor_mask_index");
    ASSERT_EQ(mask.size(), ns);
    for (std::size_t i = 0; i < ns; ++i) EXPECT_EQ(mask[i], s.sensor.index[i] + 1) << "1-based in the file";
    // p_rms is the root mean square of the raw samples.
    const auto p = f.readFloat("p");
    const auto rms = f.readFloat("p_rms");
    for (std::size_t i = 0; i < ns; ++i) {
        double sum = 0;
        for (std::size_t t = 0; t < 4; ++t) sum += double(p[t * ns + i]) * p[t * ns + i];
        EXPECT_NEAR(rms[i], std::sqrt(sum / 4), 1e-5 * std::abs(rms[i]) + 1e-6);
    }
    std::remove(path.c_str());
}

// A grid larger than the device is refused with one sentence, before anything is built for it.
TEST(KWaveDevice, RefusesGridLargerThanTheDevice) {
    Simulation s = ballSimulation(8, 8, 8, 2);
    s.grid.nx = s.grid.ny = s.grid.nz = 4096;
    s.p0.clear();
    s.sensor.index = {0};
    try {
        KSpaceSolver solver(test::context(), s, RunOptions{});
        FAIL() << "a 4096^3 grid was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("4096x4096x4096"), std::string::npos) << e.what();
    }
}

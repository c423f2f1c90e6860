// The device solver: kspaceFirstOrder's main loop (computeMainLoop) as OpenCL kernels (cl/kwave.cl)
// around the engine's R2C/C2R FFTs. The Simulation must outlive the solver.
//
// Device arrays (3-D; 2-D drops the z ones): the state p, u_sg{x,y,z}, rho{x,y,z}; three real
// scratch fields du{x,y,z} that hold the pressure gradients, then the velocity divergence terms,
// then the absorption terms; three half spectra; the medium (one value or a grid each); the
// operators; sources; and the sampling buffers. That is 13 fields less than k-Wave's 16+ for the
// same case.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <sstream>

#include "k_space_operators.hpp"
#include "portacl/kwave.hpp"
#include "portacl/runtime/error.hpp"
#include "sensor_recorder.hpp"
#include "storage_format.hpp"

namespace portacl::kwave {
namespace {

// Storage of each reduced quantity under a mode (Table 5.1).
struct StoragePlan {
    StorageFormat c2 = StorageFormat::Element, rho0 = StorageFormat::Element, bOnA = StorageFormat::Element,
                  tau = StorageFormat::Element, nabla = StorageFormat::Element, rho = StorageFormat::Element,
                  dtRho = StorageFormat::Element, kappa = StorageFormat::Element,
                  sourceKappa = StorageFormat::Element, p0 = StorageFormat::Element,
                  signal = StorageFormat::Element;
    explicit StoragePlan(Storage s) {
        if (s == Storage::Full) return;
        c2 = rho0 = bOnA = sourceKappa = StorageFormat::Half;
        p0 = signal = tau = nabla = StorageFormat::BFloat16;
        if (s == Storage::ReducedMid || s == Storage::ReducedMax) rho = StorageFormat::Half;
        if (s == Storage::ReducedMax) dtRho = kappa = StorageFormat::Half;
    }
};

int code(StorageFormat f) { return static_cast<int>(f); }

std::vector<double> toDouble(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

}  // namespace

struct KSpaceSolver::Impl {
    Context& ctx;
    const Simulation& sim;
    RunOptions opt;
    const Grid& g;
    std::size_t n, nr;
    int dims;
    Precision prec;
    std::size_t realBytes;
    StoragePlan st;
    std::size_t t = 0;
    std::size_t deviceBytes = 0;

    cl::Buffer p, u[3], rho[3], du[3], X[3], scratch;
    // When each component's offset meets the device's sub-buffer alignment, u, du and the spectra
    // are one buffer each (uAll, duAll, XAll) with u[a], du[a], X[a] as sub-buffers, so that the
    // transforms of all components go out as one batched FFT: a third of the launches, which is what
    // bounds a step on small grids where each launch costs more host time than device time.
    cl::Buffer uAll, duAll, XAll, duTail;  // duTail: du[1] and du[2], the absorption terms' pair
    bool batched = false;
    // 3-D grids with nz = 16 q (q = 1, 2, 4, 8, 16): the spectral operators run fused with the z
    // transforms (kwave_z_*, common/z_line_fft.h) and the FFT plans transform x and y only.
    int zFusedQ = 0;
    std::size_t zLines = 0;  // lines (x rows) of a work-group of the fused kernels
    // Also nx = 32 q (q = 1, 2, 4, 8, 16), VkFFT: the velocity update runs fused with the inverse x
    // transforms of the pressure gradient (kwave_x_velocity), whose y transforms run alone.
    int xFusedQ = 0;
    // Scratch fields: dims, and 3 with power-law absorption, which keeps sum(rho) in du[0] while its
    // two terms come back from their FFTs into du[1] and du[2] (2-D grids get a third one for it).
    int scratchFields() const { return sim.medium.absorption == Absorption::PowerLaw ? 3 : dims; }
    cl::Buffer c2, rho0, bOnA, tau, dtRho[3], pml[3], pmlSg[3], kappa, sourceKappa, nabla1, nabla2;
    cl::Buffer ddPos[3], ddNeg[3], shiftNeg[3], p0;
    cl::Buffer waveNumbers2;  // kx^2 (nx/2+1), ky^2 (ny), kz^2 (nz): kappa and nabla on the fly
    // Full-precision kappa and nabla are computed by the kernels from |k| (one read of a half-spectrum
    // field less per use); the reduced modes keep them stored as Table 5.1 says.
    bool storedKappa() const { return st.kappa != StorageFormat::Element; }
    bool storedNabla() const { return st.nabla != StorageFormat::Element; }
    // Quantities the pressure kernel reads only together are folded into one field each: B/A / (2 rho0)
    // in place of B/A (the nonlinear term then needs no rho0), and, with power-law absorption, 2 alpha
    // [Np] in place of tau and eta, which the kernel forms from it and c (tau = -2 alpha c^(y-1),
    // eta = 2 alpha c^y tan(pi y/2)): two full-grid reads fewer per step on a heterogeneous medium,
    // and one field less. The reduced modes store them as Table 5.1 stores B/A (fp16) and tau and eta
    // (bfloat16): the same information at the same precision.
    cl::Buffer pIndex, pSignal, uIndex, uSignal[3], trSignal, trDelay;
    bool additive = false;

    // Raw samples collect on the device in blocks of `chunk` steps. A full block goes to pinned host
    // memory by a read that does not wait, and sampling goes on into the other block; the host takes
    // a block's data (into the recording) only when its slot fills again, two blocks later, so that
    // the time loop never waits for the device on account of sampling.
    struct RawBlock {
        cl::Buffer device, pinned;  // pinned: CL_MEM_ALLOC_HOST_PTR, mapped once at `host`
        void* host = nullptr;
        cl::Event read;
        std::size_t steps = 0;      // steps written into `device`
        std::size_t readSteps = 0;  // steps in flight to (or arrived at) `host`
        bool pending = false;
    };
    struct Sampler {
        std::string quantity;
        int field = 0;  // 0 = p, 1..3 = u
        QuantityOutputs out;
        cl::Buffer sumsq, mx, mn, mxAll, mnAll;
        RawBlock block[2];
        int current = 0;
        std::size_t chunk = 0;
    };
    std::vector<Sampler> samplers;
    // The end of each enqueued step not yet seen complete (a marker event each, oldest first). The host
    // runs at most `stepsAhead` steps ahead of the device: enough queued work that the device never
    // idles, few enough that progress lines and checkpoint intervals stay close to the device's time.
    std::deque<cl::Event> stepEnds;
    std::size_t stepsAhead = 8;
    std::vector<std::uint64_t> points;
    cl::Buffer pointsBuf;
    Recording rec;

    cl::Kernel kPressureGradient, kVelocityGradient, kVelocity, kInitialVelocity, kDensity, kPressureTerms,
        kAbsorptionTerms, kPressure, kInitialPressure, kPointSource, kVelocityPointSource, kPointSourceDensity,
        kSourceKappa, kAddField, kAddDensity, kTransducer, kSample, kSampleAll, kUnstagger;
    fft::Plan* r2c = nullptr;
    fft::Plan* c2r = nullptr;
    fft::Plan* r2cBatch[4] = {};  // [b]: b components at once (b = 2, dims), when batched
    fft::Plan* c2rBatch[4] = {};
    fft::Plan* r2cXY[4] = {};  // [b]: 2-D transforms of every z plane of b components (zFusedQ)
    fft::Plan* c2rXY[4] = {};
    fft::Plan* c2cYInverse[4] = {};  // [b]: the y transforms of b components, in place (xFusedQ)
    cl::Kernel kZPressureGradient, kZVelocityGradient, kZAbsorptionTerms, kXVelocity;
    cl::NDRange local3 = cl::NullRange, local1 = cl::NullRange;

    Impl(Context& c, const Simulation& s, const RunOptions& o)
        : ctx(c), sim(s), opt(o), g(s.grid), n(g.size()), nr(g.reducedSize()), dims(g.dimensions()),
          prec(o.precision), realBytes(o.precision == Precision::Double ? 8 : 4), st(o.storage) {
        if (prec != Precision::Float && prec != Precision::Double)
            throw Error("the k-Wave solver runs in single or double precision (or a mixed-* storage mode)");
        if (o.storage != Storage::Full && prec != Precision::Float)
            throw Error("the mixed-* storage modes compute in single precision; they cannot be combined with double");
        validate(sim, "the simulation");
        ctx.requirePrecision(prec);
        // Refuse a grid the device cannot hold before building operators or FFT plans for it.
        ctx.checkFits(estimateBytes(), "this " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" +
                                           std::to_string(g.nz) + " simulation");
        zLines = linesPerGroup();
        zFusedQ = zFusedLines();
        xFusedQ = xFusedRows();
        build();
        allocate();
        if (batched) planBatches();
        if (zFusedQ) planXY();
        // GPUs get explicit work-groups along x (global sizes are rounded up; kernels check bounds);
        // CPUs let the runtime choose. A [kwave] section of a tuning profile overrides both.
        const bool gpu = ctx.device().isGpu;
        const int wx = ctx.tuning().getInt("kwave", "work_group_x", gpu ? 128 : 0, 0, 1L << 16);
        const int w1 = ctx.tuning().getInt("kwave", "work_group", gpu ? 256 : 0, 0, 1L << 16);
        if (wx > 0) local3 = cl::NDRange(static_cast<std::size_t>(wx), 1, 1);
        if (w1 > 0) local1 = cl::NDRange(static_cast<std::size_t>(w1));
        stepsAhead = static_cast<std::size_t>(std::max(1L, ctx.tuning().getInt("kwave", "steps_ahead", 8, 1, 1024)));
        warmUp();
    }

    ~Impl() {
        // Unmap the pinned blocks (after any read into them has finished).
        try {
            ctx.finish();
            for (auto& s : samplers)
                for (auto& b : s.block)
                    if (b.host) ctx.unmap(b.pinned, b.host, "unmap raw samples (host)");
            ctx.finish();
        } catch (...) {
        }
    }

    // One step's kernels and FFTs on the all-zero state before the time loop, then the state zeroed
    // again: every element-wise operation of a step maps zero fields to zero (at most a sign of zero
    // differs, hence the fill), so nothing changes, but the drivers' lazy work at a kernel's first
    // launch (PoCL compiles each kernel for its work-group size then; GPU drivers load modules and
    // raise clocks) falls in the set-up instead of the first time steps.
    void warmUp() {
        computeVelocity();
        computeVelocityGradient();
        computeDensity();
        computePressure();
        const std::size_t ns = points.size();
        for (auto& s : samplers) {
            if (!s.out.sampled() || sensorless()) continue;  // flags 0: the kernels read and write nothing
            args(kSample, p, pointsBuf, u32(ns), s.block[0].device, u64(0), s.sumsq, s.mx, s.mn, 0u, 0u);
            launch1(kSample, ns);
            args(kSampleAll, p, s.mxAll, s.mnAll, u64(n), 0u, 0u);
            launch1(kSampleAll, n);
        }
        auto zero = [&](const cl::Buffer& b, std::size_t bytes) { ctx.fill(b, 0, bytes, "zero after warm-up"); };
        zero(p, n * realBytes);
        for (int a = 0; a < dims; ++a) {
            zero(u[a], n * realBytes);
            zero(rho[a], n * bytesPerElement(st.rho, prec));
            zero(X[a], nr * 2 * realBytes);
        }
        for (int a = 0; a < scratchFields(); ++a) zero(du[a], n * realBytes);
        ctx.finish();
    }

    // ---- set-up -------------------------------------------------------------------------------
    // The working set from the sizes alone (the exact figure follows in allocate()).
    std::size_t estimateBytes() const {
        const Medium& m = sim.medium;
        auto grid = [&](const Field& f, StorageFormat fmt) { return f.values.size() * bytesPerElement(fmt, prec); };
        std::size_t b = n * realBytes * (1 + dims + scratchFields()) + n * bytesPerElement(st.rho, prec) * dims + nr * 2 * realBytes * dims;
        b += grid(m.c0, st.c2) + grid(m.rho0, st.rho0) + dims * grid(m.rho0Sgx, st.dtRho);
        if (m.nonlinear) b += grid(m.bOnA.scalar() ? m.rho0 : m.bOnA, st.bOnA);
        if (m.absorption == Absorption::PowerLaw) b += grid(m.alphaCoeff, st.tau);
        if (m.absorption == Absorption::Stokes) b += grid(m.alphaCoeff.scalar() && m.c0.scalar() ? m.alphaCoeff : m.c0, st.tau);
        if (storedKappa()) b += nr * bytesPerElement(st.kappa, prec);
        if (storedNabla() && m.absorption == Absorption::PowerLaw) b += 2 * nr * bytesPerElement(st.nabla, prec);
        b += sim.p0.size() * bytesPerElement(st.p0, prec);
        return b;
    }

    std::string buildOptions() const {
        const Medium& m = sim.medium;
        std::ostringstream os;
        os << "-D KW_3D=" << (g.is3D() ? 1 : 0) << " -D C0_ARRAY=" << (m.c0.scalar() ? 0 : 1)
           << " -D RHO0_ARRAY=" << (m.rho0.scalar() ? 0 : 1)
           << " -D BONA_ARRAY=" << (m.nonlinear && !(m.bOnA.scalar() && m.rho0.scalar()) ? 1 : 0)
           << " -D ALPHA_ARRAY=" << (m.absorption != Absorption::Lossless && !m.alphaCoeff.scalar() ? 1 : 0)
           << " -D ABSORB_ARRAY=" << (m.absorption != Absorption::Lossless && !(m.alphaCoeff.scalar() && m.c0.scalar()) ? 1 : 0)
           << " -D NONLINEAR=" << (m.nonlinear ? 1 : 0) << " -D ABSORPTION=" << static_cast<int>(m.absorption)
           << " -D ST_C2=" << code(st.c2) << " -D ST_RHO0=" << code(st.rho0) << " -D ST_BONA=" << code(st.bOnA)
           << " -D ST_TAU=" << code(st.tau) << " -D ST_NABLA=" << code(st.nabla) << " -D ST_RHO=" << code(st.rho)
           << " -D ST_DTRHO=" << code(st.dtRho) << " -D ST_KAPPA=" << code(st.kappa)
           << " -D ST_SKAPPA=" << code(st.sourceKappa) << " -D ST_P0=" << code(st.p0)
           << " -D ST_SIGNAL=" << code(st.signal);
        if (zFusedQ) os << " -D KZ_Q=" << zFusedQ << " -D KZ_LINES=" << zLines;
        if (xFusedQ) os << " -D KX_Q=" << xFusedQ;
        // A profile's options for this program alone (a vendor compiler that miscompiles it).
        const std::string own = ctx.tuning().get("kwave", "build_options", "");
        if (!own.empty()) os << " " << own;
        return os.str();
    }

    void build() {
        const std::string options = buildOptions();
        // Kernels of the solver's own: their arguments are bound once and kept across steps.
        auto k = [&](const char* name) { return ctx.newKernel("kwave.cl", name, prec, options); };
        kPressureGradient = k("kwave_pressure_gradient");
        kVelocityGradient = k("kwave_velocity_gradient");
        kVelocity = k("kwave_velocity");
        kInitialVelocity = k("kwave_initial_velocity");
        kDensity = k("kwave_density");
        kPressureTerms = k("kwave_pressure_terms");
        kAbsorptionTerms = k("kwave_absorption_terms");
        kPressure = k("kwave_pressure");
        kInitialPressure = k("kwave_initial_pressure");
        kPointSource = k("kwave_point_source");
        kVelocityPointSource = k("kwave_velocity_point_source");
        kPointSourceDensity = k("kwave_point_source_density");
        kSourceKappa = k("kwave_source_kappa");
        kAddField = k("kwave_add_field");
        kAddDensity = k("kwave_add_density");
        kTransducer = k("kwave_transducer");
        kSample = k("kwave_sample");
        kSampleAll = k("kwave_sample_all");
        kUnstagger = k("kwave_unstagger");
        if (zFusedQ) {
            kZPressureGradient = k("kwave_z_pressure_gradient");
            kZVelocityGradient = k("kwave_z_velocity_gradient");
            kZAbsorptionTerms = k("kwave_z_absorption_terms");
        }
        if (xFusedQ) kXVelocity = k("kwave_x_velocity");

        r2c = &fftPlan(fft::Kind::R2C, 1);
        c2r = &fftPlan(fft::Kind::C2R, 1);
    }

    // Lines of a work-group of the fused kernels (Z_LINES in cl/common/z_line_fft.h): `z_line_bytes`
    // of complex values side by side in memory, 128 unless the device profile's [kwave] says otherwise.
    std::size_t linesPerGroup() const {
        const long bytes = ctx.tuning().getInt("kwave", "z_line_bytes", 128, 0, 1L << 16);
        return std::max<std::size_t>(1, static_cast<std::size_t>(std::max(0L, bytes)) / (2 * realBytes));
    }

    // nz / 16 where the z transforms can run fused with the spectral operators, else 0: a 3-D grid
    // with nz = 16, 32, 64, 128 or 256, a work-group of 16 work-items per line and the local memory
    // for the lines and the twiddles, and `fused_z` not 0 in the device profile's [kwave].
    int zFusedLines() const {
        if (!g.is3D() || ctx.tuning().getInt("kwave", "fused_z", 1) == 0) return 0;
        const std::size_t q = g.nz / 16, complexBytes = 2 * realBytes;
        if (g.nz % 16 != 0 || (q & (q - 1)) != 0 || q > 16) return 0;
        const std::size_t localBytes = (zLines + 2) * g.nz * complexBytes;  // lines and a spare, twiddles
        if (zLines * 16 > ctx.device().maxWorkGroupSize || ctx.device().localMemBytes < localBytes) return 0;
        return static_cast<int>(q);
    }

    // nx / 32 where the velocity update can take the inverse x transforms (the z ones fused, nx = 32,
    // 64, ..., 512, the VkFFT backend, local memory for a row of coefficients per line and two
    // twiddle tables, `fused_x` not 0 in the device profile's [kwave]), else 0.
    int xFusedRows() const {
        if (!zFusedQ || opt.fftBackend == fft::Backend::ClFFT || ctx.tuning().getInt("kwave", "fused_x", 1) == 0) return 0;
        const std::size_t q = g.nx / 32, complexBytes = 2 * realBytes;
        if (g.nx % 32 != 0 || q == 0 || (q & (q - 1)) != 0 || q > 16) return 0;
        const std::size_t localBytes = ((g.nx / 2 + 1) * (zLines + 1) + g.nx) * complexBytes;
        if (ctx.device().localMemBytes < localBytes) return 0;
        return static_cast<int>(q);
    }

    fft::Plan& fftPlan(fft::Kind kind, std::size_t batch, bool xyOnly = false) {
        fft::PlanDesc d = planDesc(kind);
        d.shape = g.is3D() && !xyOnly ? std::vector<std::size_t>{g.nz, g.ny, g.nx} : std::vector<std::size_t>{g.ny, g.nx};
        d.batch = xyOnly ? batch * g.nz : batch;
        return fft::plan(ctx, d);
    }

    // The y transforms of every (x, z) of a half spectrum of `batch` components, in place (xFusedQ).
    fft::Plan& yInversePlan(std::size_t batch) {
        fft::PlanDesc d = planDesc(fft::Kind::C2C);
        d.shape = {g.ny, g.reducedNx()};
        d.batch = batch * g.nz;
        d.inPlace = true;
        d.skipFastestAxis = true;
        return fft::plan(ctx, d);
    }

    fft::PlanDesc planDesc(fft::Kind kind) const {
        fft::PlanDesc d;
        d.kind = kind;
        d.precision = prec;
        d.backend = opt.fftBackend;
        return d;
    }

    void planBatches() {
        for (const int b : {2, dims}) {
            r2cBatch[b] = &fftPlan(fft::Kind::R2C, b);
            c2rBatch[b] = &fftPlan(fft::Kind::C2R, b);
        }
    }

    // The x-y transforms of every z plane, for 1, 2 and 3 components.
    void planXY() {
        for (const int b : {1, 2, 3}) {
            if (b > 1 && !batched) break;
            r2cXY[b] = &fftPlan(fft::Kind::R2C, b, true);
            c2rXY[b] = &fftPlan(fft::Kind::C2R, b, true);
            if (xFusedQ) c2cYInverse[b] = &yInversePlan(b);
        }
    }

    // Forward FFTs of src[0..count) into X[0..count); inverse FFTs of X[0..count) into dst[0..count).
    // srcAll/dstAll hold the components contiguously when `batched`. xyOnly: x and y only (zFusedQ).
    void forwardComponents(const cl::Buffer* src, const cl::Buffer& srcAll, int count, bool xyOnly = false) {
        fft::Plan* const* plans = xyOnly ? r2cXY : r2cBatch;
        if (batched && count > 1) return plans[count]->execute(srcAll, XAll, fft::Direction::Forward);
        for (int a = 0; a < count; ++a) (xyOnly ? r2cXY[1] : r2c)->execute(src[a], X[a], fft::Direction::Forward);
    }
    void inverseComponents(const cl::Buffer* dst, const cl::Buffer& dstAll, int count, bool xyOnly = false) {
        fft::Plan* const* plans = xyOnly ? c2rXY : c2rBatch;
        if (batched && count > 1) return plans[count]->execute(XAll, dstAll, fft::Direction::Inverse);
        for (int a = 0; a < count; ++a) (xyOnly ? c2rXY[1] : c2r)->execute(X[a], dst[a], fft::Direction::Inverse);
    }

    // A fused z kernel over every line (x, y) of the half spectrum: 16 work-items per line, the lines
    // of a work-group consecutive in y nxr + x.
    void launchLines(cl::Kernel& k) {
        ctx.launch(k, cl::NDRange(roundUp(g.reducedNx() * g.ny, zLines), 16), cl::NDRange(zLines, 16));
    }

    // Host arrays first, so that the whole working set is checked against the device before any
    // allocation.
    void allocate() {
        const Medium& m = sim.medium;
        const KSpaceOperators ops(sim, true);
        const PerfectlyMatchedLayer layer(sim);
        const MediumCoefficients med(sim);

        struct Upload {
            cl::Buffer* target;
            std::vector<unsigned char> bytes;
            std::string what;
        };
        std::vector<Upload> uploads;
        auto add = [&](cl::Buffer& b, std::vector<unsigned char> bytes, const std::string& what) {
            uploads.push_back({&b, std::move(bytes), what});
        };
        auto reals = [&](const std::vector<double>& v, StorageFormat f) { return encode(v, f, prec); };
        auto complexes = [&](const std::vector<std::complex<double>>& v) {
            std::vector<double> flat;
            for (const auto& c : v) {
                flat.push_back(c.real());
                flat.push_back(c.imag());
            }
            return encode(flat, StorageFormat::Element, prec);
        };
        auto indices = [](const std::vector<std::uint64_t>& v) {
            std::vector<unsigned char> b(v.size() * 8);
            if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
            return b;
        };

        // Medium. Reduced modes store c0 (not c^2) and 1/rho0_sg (not dt/rho0_sg), as the thesis does.
        std::vector<double> c2v = med.c2;
        if (st.c2 != StorageFormat::Element) c2v = toDouble(m.c0.values);
        add(c2, reals(c2v, st.c2), "c0^2");
        add(rho0, reals(med.rho0, st.rho0), "rho0");
        for (int a = 0; a < dims; ++a) {
            std::vector<double> v = med.dtRho0Sg[a];
            if (st.dtRho != StorageFormat::Element)
                for (auto& x : v) x /= sim.dt;
            add(dtRho[a], reals(v, st.dtRho), "dt/rho0_sg");
        }
        std::vector<double> nonlinearity{0.0};  // B/A / (2 rho0)
        if (m.nonlinear) {
            nonlinearity.resize(std::max(med.bOnA.size(), med.rho0.size()));
            for (std::size_t i = 0; i < nonlinearity.size(); ++i)
                nonlinearity[i] = med.bOnA[med.bOnA.size() == 1 ? 0 : i] / (2.0 * med.rho0[med.rho0.size() == 1 ? 0 : i]);
        }
        add(bOnA, reals(nonlinearity, st.bOnA), "BonA/(2 rho0)");
        // Power law: 2 alpha (tau and eta are formed in the kernel); Stokes: tau.
        const std::vector<double>& absorbing = m.absorption == Absorption::PowerLaw ? med.alpha2 : med.tau;
        add(tau, reals(absorbing.empty() ? std::vector<double>{0.0} : absorbing, st.tau),
            m.absorption == Absorption::PowerLaw ? "2 alpha" : "absorb_tau");
        for (int a = 0; a < 3; ++a) {
            add(pml[a], reals(layer.regular[a], StorageFormat::Element), "pml");
            add(pmlSg[a], reals(layer.staggered[a], StorageFormat::Element), "pml_sg");
            add(ddPos[a], complexes(ops.ddPos[a]), "ddk_shift_pos");
            add(ddNeg[a], complexes(ops.ddNeg[a]), "ddk_shift_neg");
            if (opt.outputs.uNonStaggeredRaw) add(shiftNeg[a], complexes(ops.shiftNeg[a]), "shift_neg_r");
        }
        {
            std::vector<double> kk;
            const std::size_t lengths[3] = {g.reducedNx(), g.ny, g.nz};
            const std::size_t ns[3] = {g.nx, g.ny, g.nz};
            const double ds[3] = {g.dx, g.dy, g.dz};
            for (int a = 0; a < 3; ++a)
                for (std::size_t i = 0; i < lengths[a]; ++i) {
                    const double k = (a == 2 && !g.is3D()) ? 0.0 : waveNumber(i, ns[a], ds[a]);
                    kk.push_back(k * k);
                }
            add(waveNumbers2, reals(kk, StorageFormat::Element), "squared wavenumbers");
        }
        if (storedKappa()) add(kappa, reals(ops.kappa, st.kappa), "kappa");
        if (!ops.sourceKappa.empty()) add(sourceKappa, reals(ops.sourceKappa, st.sourceKappa), "source_kappa");
        if (!ops.nabla1.empty() && storedNabla()) {
            add(nabla1, reals(ops.nabla1, st.nabla), "absorb_nabla1");
            add(nabla2, reals(ops.nabla2, st.nabla), "absorb_nabla2");
        }
        if (!sim.p0.empty()) add(p0, reals(toDouble(sim.p0), st.p0), "p0_source_input");
        if (sim.p.length) {
            add(pIndex, indices(sim.p.index), "p_source_index");
            add(pSignal, reals(toDouble(sim.p.signal), st.signal), "p_source_input");
        }
        if (!sim.u.index.empty()) add(uIndex, indices(sim.u.index), "u_source_index");
        for (int a = 0; a < dims; ++a)
            if (sim.u.length[a]) add(uSignal[a], reals(toDouble(sim.u.signal[a]), StorageFormat::Element), "u_source_input");
        if (sim.transducer.length) {
            add(trSignal, reals(toDouble(sim.transducer.signal), StorageFormat::Element), "transducer_source_input");
            add(trDelay, indices(sim.transducer.delay), "delay_mask");
        }
        additive = (sim.p.length && sim.p.mode == SourceMode::Additive) ||
                   ((sim.u.length[0] || sim.u.length[1] || sim.u.length[2]) && sim.u.mode == SourceMode::Additive);

        // Sampling buffers.
        points = sim.sensor.points(g);
        const auto qs = quantities(g);
        const std::size_t samplesTotal = sim.nt > opt.outputs.startIndex ? sim.nt - opt.outputs.startIndex : 0;
        std::size_t samplingBytes = points.size() * 8;
        for (std::size_t q = 0; q < qs.size(); ++q) {
            Sampler s;
            s.quantity = qs[q];
            s.field = kwave::fieldOf(qs[q]);
            s.out = outputsOf(qs[q], opt.outputs);
            if (!s.out.any()) continue;
            // Raw samples: two device blocks of up to 64 steps (and at most 16 MiB each).
            const long blockSteps = std::max(1L, ctx.tuning().getInt("kwave", "sample_block_steps", 64, 1, 1L << 20));
            s.chunk = std::max<std::size_t>(
                1, std::min({std::max<std::size_t>(samplesTotal, 1), static_cast<std::size_t>(blockSteps),
                             (std::size_t(16) << 20) / std::max<std::size_t>(points.size() * realBytes, 1)}));
            samplingBytes += ((s.out.raw ? 2 * s.chunk : 0) + 3) * points.size() * realBytes + 2 * n * realBytes;
            samplers.push_back(s);
        }

        const std::size_t rhoBytes = bytesPerElement(st.rho, prec);
        const std::size_t stateBytes = n * realBytes * (1 + dims + scratchFields()) + n * rhoBytes * dims + (additive ? n * realBytes : 0);
        const std::size_t spectrumBytes = nr * 2 * realBytes * dims;
        std::size_t total = stateBytes + spectrumBytes + samplingBytes;
        for (const auto& up : uploads) total += up.bytes.size();
        ctx.checkFits(total, "this " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) +
                                 " simulation");

        auto alloc = [&](std::size_t bytes, const std::string& what) {
            deviceBytes += bytes;
            cl::Buffer b = ctx.buffer(std::max<std::size_t>(bytes, 8), what);
            ctx.fill(b, 0, std::max<std::size_t>(bytes, 8), "zero " + what);
            return b;
        };
        for (auto& up : uploads) {
            deviceBytes += up.bytes.size();
            *up.target = ctx.buffer(std::max<std::size_t>(up.bytes.size(), 8), up.what);
            if (!up.bytes.empty()) ctx.write(*up.target, up.bytes.data(), up.bytes.size(), "upload " + up.what);
        }
        p = alloc(n * realBytes, "p");
        const std::size_t align = ctx.subBufferAlignment();
        batched = dims > 1 && (n * realBytes) % align == 0 && (nr * 2 * realBytes) % align == 0;
        if (batched) {
            auto sub = [&](cl::Buffer& all, std::size_t offset, std::size_t bytes) { return ctx.subBuffer(all, offset, bytes, "field component"); };
            auto components = [&](cl::Buffer& all, cl::Buffer* parts, int count, std::size_t bytes, const std::string& what) {
                all = alloc(count * bytes, what);
                for (int a = 0; a < count; ++a) parts[a] = sub(all, a * bytes, bytes);
            };
            components(uAll, u, dims, n * realBytes, "u_sg");
            components(duAll, du, scratchFields(), n * realBytes, "du");
            components(XAll, X, dims, nr * 2 * realBytes, "spectrum");
            if (scratchFields() == 3) duTail = sub(duAll, n * realBytes, 2 * n * realBytes);
        }
        for (int a = 0; a < 3; ++a) {
            if (a < dims) rho[a] = alloc(n * rhoBytes, "rho");
            if (batched) continue;
            if (a < dims) u[a] = alloc(n * realBytes, "u_sg");
            if (a < scratchFields()) du[a] = alloc(n * realBytes, "du");
            if (a < dims) X[a] = alloc(nr * 2 * realBytes, "spectrum");
        }
        if (additive) scratch = alloc(n * realBytes, "source scratch");
        // 2-D: the z arguments of the kernels point at x arrays and are never touched.
        for (int a = dims; a < 3; ++a) {
            u[a] = u[0];
            rho[a] = rho[0];
            if (a >= scratchFields()) du[a] = du[0];
            X[a] = X[0];
            dtRho[a] = dtRho[0];
        }
        if (!sensorless()) pointsBuf = ctx.upload(points, "sensor points");
        deviceBytes += points.size() * 8;
        for (auto& s : samplers) {
            const std::size_t ns = points.size();
            for (auto& b : s.block) {
                const std::size_t bytes = (s.out.raw ? s.chunk : 1) * ns * realBytes;
                b.device = alloc(bytes, "raw samples");
                if (!s.out.raw) continue;
                b.pinned = ctx.buffer(std::max<std::size_t>(bytes, 8), "raw samples (host)", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
                b.host = ctx.map(b.pinned, CL_MAP_READ | CL_MAP_WRITE, std::max<std::size_t>(bytes, 8), "map raw samples (host)");
            }
            s.sumsq = alloc((s.out.rms ? ns : 1) * realBytes, "rms");
            s.mx = alloc((s.out.max ? ns : 1) * realBytes, "max");
            s.mn = alloc((s.out.min ? ns : 1) * realBytes, "min");
            s.mxAll = alloc((s.out.maxAll ? n : 1) * realBytes, "max_all");
            s.mnAll = alloc((s.out.minAll ? n : 1) * realBytes, "min_all");
        }
    }
    bool sensorless() const { return points.empty(); }

    // ---- launching ----------------------------------------------------------------------------
    void setReal(cl::Kernel& k, cl_uint i, double v) {
        if (prec == Precision::Double) setArg(k, i, v);
        else setArg(k, i, static_cast<float>(v));
    }
    template <typename... A>
    void args(cl::Kernel& k, const A&... a) {
        setArgs(k, 0, a...);
    }
    void launchGrid(cl::Kernel& k, std::size_t nx) { ctx.launch(k, cl::NDRange(nx, g.ny, g.nz), local3); }
    void launch1(cl::Kernel& k, std::size_t count) { ctx.launch(k, cl::NDRange(count), local1); }
    cl_uint u32(std::size_t v) const { return static_cast<cl_uint>(v); }
    cl_ulong u64(std::size_t v) const { return static_cast<cl_ulong>(v); }

    // The pressure gradient in du; with toSpectra (xFusedQ), its x spectra in X (y and z transformed
    // back) for kwave_x_velocity.
    void pressureGradient(bool toSpectra = false) {
        if (zFusedQ) {
            r2cXY[1]->execute(p, X[0], fft::Direction::Forward);
            spectralArgs(kZPressureGradient, ddPos, false);
            launchLines(kZPressureGradient);
            if (!toSpectra) return inverseComponents(du, duAll, dims, true);
            if (batched) return c2cYInverse[dims]->execute(XAll, XAll, fft::Direction::Inverse);
            for (int a = 0; a < dims; ++a) c2cYInverse[1]->execute(X[a], X[a], fft::Direction::Inverse);
            return;
        }
        r2c->execute(p, X[0], fft::Direction::Forward);
        gradientSpectra();
        inverseComponents(du, duAll, dims);
    }

    // FFT(p) in X[0] -> kappa * ddk_shift_pos * FFT(p) in X[0..dims).
    void gradientSpectra() {
        spectralArgs(kPressureGradient, ddPos);
        launch1(kPressureGradient, nr);
    }

    // X[0..2], kappa (or, computed, c_ref dt/2 and the wavenumbers), dd*_shift_* per axis, sizes.
    void spectralArgs(cl::Kernel& k, const cl::Buffer* dd, bool withCount = true) {
        args(k, X[0], X[1], X[2], storedKappa() ? kappa : waveNumbers2, waveNumbers2);
        setReal(k, 5, 0.5 * sim.cRef * sim.dt);
        setArg(k, 6, dd[0]);
        setArg(k, 7, dd[1]);
        setArg(k, 8, dd[2]);
        setArg(k, 9, u32(g.reducedNx()));
        setArg(k, 10, u32(g.ny));
        if (withCount) setArg(k, 11, u64(nr));
    }

    void computeVelocity() {
        if (xFusedQ) {
            pressureGradient(true);
            args(kXVelocity, u[0], u[1], u[2], X[0], X[1], X[2], dtRho[0], dtRho[1], dtRho[2], pmlSg[0], pmlSg[1], pmlSg[2]);
            setReal(kXVelocity, 12, sim.dt);
            setArg(kXVelocity, 13, u32(g.ny));
            setArg(kXVelocity, 14, u32(g.nz));
            ctx.launch(kXVelocity, cl::NDRange(roundUp(g.ny * g.nz, zLines), 16), cl::NDRange(zLines, 16));
            return;
        }
        pressureGradient();
        args(kVelocity, u[0], u[1], u[2], du[0], du[1], du[2], dtRho[0], dtRho[1], dtRho[2], pmlSg[0], pmlSg[1], pmlSg[2]);
        setReal(kVelocity, 12, sim.dt);
        setArg(kVelocity, 13, u32(g.nx));
        setArg(kVelocity, 14, u32(g.ny));
        setArg(kVelocity, 15, u32(g.nz));
        launchGrid(kVelocity, g.nx);
    }

    // source_mat = real(ifftn(source_kappa .* fftn(source_mat))), k-Wave's additive correction.
    void filterScratch() {
        r2c->execute(scratch, X[0], fft::Direction::Forward);
        args(kSourceKappa, X[0], sourceKappa, u64(nr));
        launch1(kSourceKappa, nr);
        c2r->execute(X[0], scratch, fft::Direction::Inverse);
    }

    void addVelocitySources() {
        const std::size_t ns = sim.u.index.size();
        for (int a = 0; a < dims; ++a) {
            if (sim.u.length[a] <= t) continue;
            const std::size_t offset = sim.u.many ? t * ns : t;
            if (sim.u.mode == SourceMode::Additive) {
                ctx.fill(scratch, 0, n * realBytes, "zero source scratch");
                args(kVelocityPointSource, scratch, uIndex, uSignal[a], u32(ns), u64(offset), u32(sim.u.many), u32(0));
                launch1(kVelocityPointSource, ns);
                filterScratch();
                args(kAddField, u[a], scratch, u64(n));
                launch1(kAddField, n);
            } else {
                args(kVelocityPointSource, u[a], uIndex, uSignal[a], u32(ns), u64(offset), u32(sim.u.many),
                     u32(sim.u.mode == SourceMode::Dirichlet ? 0 : 1));
                launch1(kVelocityPointSource, ns);
            }
        }
        if (sim.transducer.length > t) {
            args(kTransducer, u[0], uIndex, trSignal, trDelay, u32(ns), u64(t), u64(n), u64(sim.transducer.signal.size()));
            launch1(kTransducer, ns);
        }
    }

    void computeVelocityGradient() {
        if (zFusedQ) {
            forwardComponents(u, uAll, dims, true);
            spectralArgs(kZVelocityGradient, ddNeg, false);
            launchLines(kZVelocityGradient);
            return inverseComponents(du, duAll, dims, true);
        }
        forwardComponents(u, uAll, dims);
        spectralArgs(kVelocityGradient, ddNeg);
        launch1(kVelocityGradient, nr);
        inverseComponents(du, duAll, dims);
    }

    void computeDensity() {
        args(kDensity, rho[0], rho[1], rho[2], du[0], du[1], du[2], rho0, pml[0], pml[1], pml[2]);
        setReal(kDensity, 10, sim.dt);
        setArg(kDensity, 11, u32(g.nx));
        setArg(kDensity, 12, u32(g.ny));
        setArg(kDensity, 13, u32(g.nz));
        setArg(kDensity, 14, u32(fusedTerms() ? 1 : 0));
        launchGrid(kDensity, g.nx);
    }

    // The power-law pressure terms come out of the density kernel unless a pressure source acts
    // between the two this step.
    bool fusedTerms() const { return sim.medium.absorption == Absorption::PowerLaw && sim.p.length <= t; }

    void addPressureSource() {
        if (sim.p.length <= t) return;
        const std::size_t ns = sim.p.index.size();
        const std::size_t offset = sim.p.many ? t * ns : t;
        if (sim.p.mode == SourceMode::Additive) {
            ctx.fill(scratch, 0, n * realBytes, "zero source scratch");
            args(kPointSource, scratch, pIndex, pSignal, u32(ns), u64(offset), u32(sim.p.many), u32(0));
            launch1(kPointSource, ns);
            filterScratch();
            args(kAddDensity, rho[0], rho[1], rho[2], scratch, u64(n));
            launch1(kAddDensity, n);
        } else {
            args(kPointSourceDensity, rho[0], rho[1], rho[2], pIndex, pSignal, u32(ns), u64(offset), u32(sim.p.many),
                 u32(sim.p.mode == SourceMode::Dirichlet ? 0 : 1));
            launch1(kPointSourceDensity, ns);
        }
    }

    void computePressure() {
        if (sim.medium.absorption == Absorption::PowerLaw) {
            if (!fusedTerms()) {
                args(kPressureTerms, rho[0], rho[1], rho[2], du[0], du[1], du[2], rho0, u64(n));
                launch1(kPressureTerms, n);
            }
            // du[0] = sum(rho), du[1] = rho0 sum(du) -> du[1] = eta term, du[2] = tau term; du[0] stays.
            const bool fused = zFusedQ != 0;
            forwardComponents(du, duAll, 2, fused);
            cl::Kernel& k = fused ? kZAbsorptionTerms : kAbsorptionTerms;
            const cl::Buffer& n2 = storedNabla() ? nabla2 : waveNumbers2;
            const cl::Buffer& n1 = storedNabla() ? nabla1 : waveNumbers2;
            args(k, X[0], X[1], n2, n1, waveNumbers2);
            setReal(k, 5, sim.medium.alphaPower - 2.0);
            setArg(k, 6, u32(g.reducedNx()));
            setArg(k, 7, u32(g.ny));
            if (fused) launchLines(k);
            else {
                setArg(k, 8, u64(nr));
                launch1(k, nr);
            }
            inverseComponents(du + 1, duTail, 2, fused);
        }
        args(kPressure, p, rho[0], rho[1], rho[2], du[0], du[1], du[2], c2, rho0, bOnA, tau, u64(n));
        const double y = sim.medium.alphaPower;
        setReal(kPressure, 12, y - 1.0);
        setReal(kPressure, 13, sim.medium.absorption == Absorption::PowerLaw ? std::tan(M_PI_2 * y) : 0.0);
        launch1(kPressure, n);
    }

    void addInitialPressure() {
        args(kInitialPressure, p, rho[0], rho[1], rho[2], p0, c2, u64(n));
        launch1(kInitialPressure, n);
        r2c->execute(p, X[0], fft::Direction::Forward);
        gradientSpectra();
        inverseComponents(u, uAll, dims);
        args(kInitialVelocity, u[0], u[1], u[2], dtRho[0], dtRho[1], dtRho[2]);
        setReal(kInitialVelocity, 6, sim.dt);
        setArg(kInitialVelocity, 7, u64(n));
        launch1(kInitialVelocity, n);
    }

    // The field a sampler reads; for the non-staggered velocities, computed into du[0] (free while
    // sampling) from the spectrum of u times e^(-i k d/2) along its axis.
    cl::Buffer& sampledField(int f) {
        if (f < 4) return f == 0 ? p : u[f - 1];
        const int a = f - 4;
        r2c->execute(u[a], X[0], fft::Direction::Forward);
        args(kUnstagger, X[0], shiftNeg[a], u32(a), u32(g.reducedNx()), u32(g.ny), u64(nr));
        launch1(kUnstagger, nr);
        c2r->execute(X[0], du[0], fft::Direction::Inverse);
        return du[0];
    }

    void sample() {
        const cl_uint first = rec.samples == 0 ? 1 : 0;
        const std::size_t ns = points.size();
        for (auto& s : samplers) {
            if (!s.out.sampled()) continue;
            const cl_uint flags = (s.out.raw ? 1u : 0u) | (s.out.rms ? 2u : 0u) | (s.out.max ? 4u : 0u) | (s.out.min ? 8u : 0u);
            if (flags) {
                RawBlock& b = s.block[s.current];
                args(kSample, sampledField(s.field), pointsBuf, u32(ns), b.device, u64(b.steps * ns), s.sumsq, s.mx, s.mn, flags, first);
                launch1(kSample, ns);
            }
            const cl_uint allFlags = (s.out.maxAll ? 1u : 0u) | (s.out.minAll ? 2u : 0u);
            if (allFlags) {
                args(kSampleAll, sampledField(s.field), s.mxAll, s.mnAll, u64(n), allFlags, first);
                launch1(kSampleAll, n);
            }
            if (s.out.raw && ++s.block[s.current].steps == s.chunk) blockFull(s);
        }
        ++rec.samples;
    }

    // The current block is full: its read to the host starts (not waited for) and sampling moves to
    // the other block. This slot's previous block, read two blocks ago, is taken first.
    void blockFull(Sampler& s) {
        RawBlock& b = s.block[s.current];
        if (b.pending) takeBlock(s, b);
        startRead(s, b);
        s.current ^= 1;
    }

    void startRead(Sampler& s, RawBlock& b) {
        const std::size_t bytes = b.steps * points.size() * realBytes;
        b.read = ctx.readAsync(b.device, b.host, bytes, "download " + s.quantity + " samples");
        b.readSteps = b.steps;
        b.steps = 0;
        b.pending = true;
    }

    // Waits for a block's read (long complete in a running simulation) and appends its samples.
    void takeBlock(Sampler& s, RawBlock& b) {
        clCall("clWaitForEvents(raw samples)", [&] { return b.read.wait(); });
        const std::size_t count = b.readSteps * points.size();
        auto& dst = rec.data[s.quantity];
        if (prec == Precision::Double) {
            const double* v = static_cast<const double*>(b.host);
            dst.insert(dst.end(), v, v + count);
        } else {
            const float* v = static_cast<const float*>(b.host);
            dst.insert(dst.end(), v, v + count);
        }
        b.pending = false;
        b.readSteps = 0;
    }

    std::vector<double> downloadReals(const cl::Buffer& b, std::size_t count, const std::string& what) {
        std::vector<unsigned char> bytes(count * realBytes);
        if (count) ctx.read(b, bytes.data(), bytes.size(), "download " + what);
        return decode(bytes, StorageFormat::Element, prec);
    }

    // Everything sampled so far into the recording, in step order: the current slot's earlier block
    // (the older one), the other slot's, then the current block's partial fill.
    void flushRaw(Sampler& s) {
        if (!s.out.raw) return;
        RawBlock& cur = s.block[s.current];
        RawBlock& other = s.block[s.current ^ 1];
        if (cur.pending) takeBlock(s, cur);
        if (other.pending) takeBlock(s, other);
        if (cur.steps) {
            startRead(s, cur);
            takeBlock(s, cur);
        }
    }

    // Steps whose device work is complete, as far as can be told without waiting.
    std::size_t completedSteps() {
        while (!stepEnds.empty() &&
               clCall("clGetEventInfo(time step)", [&] { return stepEnds.front().getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(); }) == CL_COMPLETE)
            stepEnds.pop_front();
        return t - stepEnds.size();
    }

    void step() {
        if (t >= sim.nt) return;
        while (stepEnds.size() >= stepsAhead) {
            clCall("clWaitForEvents(time step)", [&] { return stepEnds.front().wait(); });
            stepEnds.pop_front();
        }
        computeVelocity();
        addVelocitySources();
        computeVelocityGradient();
        computeDensity();
        addPressureSource();
        computePressure();
        if (t == 0 && !sim.p0.empty()) addInitialPressure();
        if (t >= opt.outputs.startIndex && !sensorless()) sample();
        stepEnds.push_back(ctx.marker("kwave step end"));
        ++t;
        if (t % kFiniteCheckSteps == 0) probeFinite(false);
    }

    // The non-finite check. Every step's pressure comes through inverse FFTs of spectra that mix
    // every grid point, so one NaN or infinity anywhere in the fields reaches every point of p within
    // a step: reading p[0] tells whether the whole field is still finite. The read is started every
    // kFiniteCheckSteps steps without waiting and looked at when the next one starts (long complete by
    // then); `wait` (the end of a run) looks at a fresh read at once.
    static constexpr std::size_t kFiniteCheckSteps = 32;
    cl::Event probeRead;
    std::size_t probeStep = 0;
    bool probePending = false;
    unsigned char probeBytes[8] = {};

    void probeFinite(bool wait) {
        if (probePending) takeProbe();
        if (t == 0) return;
        clCall("clEnqueueReadBuffer(finite check)",
               [&] { return ctx.queue().enqueueReadBuffer(p, CL_FALSE, 0, realBytes, probeBytes, nullptr, &probeRead); });
        probeStep = t;
        probePending = true;
        if (wait) takeProbe();
    }

    void takeProbe() {
        clCall("clWaitForEvents(finite check)", [&] { return probeRead.wait(); });
        probePending = false;
        double v;
        if (realBytes == sizeof(double)) std::memcpy(&v, probeBytes, sizeof v);
        else {
            float f;
            std::memcpy(&f, probeBytes, sizeof f);
            v = f;
        }
        if (std::isfinite(v)) return;
        const Grid& grid = sim.grid;
        double cMax = 0;
        for (double c : sim.medium.c0.values) cMax = std::max(cMax, c);
        const double dMin = std::min({grid.dx, grid.dy, grid.is3D() ? grid.dz : grid.dx});
        const double cfl = cMax * sim.dt / dMin;
        std::ostringstream why;
        why.precision(3);
        why << "the simulation became unstable: the pressure field is not finite after time step " << probeStep
            << " (checked every " << kFiniteCheckSteps << " steps); the CFL number c0_max*dt/dx_min is " << cfl
            << (cfl > 0.5 ? ", too large (k-Wave needs it below about 0.3; reduce dt)" : "")
            << ", PML alpha " << sim.pml.alpha[0] << "/" << sim.pml.alpha[1] << (grid.is3D() ? "/" : "")
            << (grid.is3D() ? std::to_string(sim.pml.alpha[2]) : std::string())
            << " (k-Wave's default is 2; much larger values reflect and can diverge); no output was written";
        throw Error(why.str());
    }

    Recording recording() {
        for (auto& s : samplers) flushRaw(s);
        Recording r = rec;
        const std::size_t ns = points.size();
        const char* uFinal[3] = {"ux_final", "uy_final", "uz_final"};
        for (auto& s : samplers) {
            if (r.samples) {
                if (s.out.rms) r.data[s.quantity + "_rms"] = downloadReals(s.sumsq, ns, "rms");
                if (s.out.max) r.data[s.quantity + "_max"] = downloadReals(s.mx, ns, "max");
                if (s.out.min) r.data[s.quantity + "_min"] = downloadReals(s.mn, ns, "min");
                if (s.out.maxAll) r.data[s.quantity + "_max_all"] = downloadReals(s.mxAll, n, "max_all");
                if (s.out.minAll) r.data[s.quantity + "_min_all"] = downloadReals(s.mnAll, n, "min_all");
            }
            if (s.out.raw && !r.data.count(s.quantity)) r.data[s.quantity] = {};
            if (s.out.final) r.data[s.field == 0 ? "p_final" : uFinal[s.field - 1]] = downloadReals(sampledField(s.field), n, "final field");
        }
        return r;
    }

    std::vector<double> downloadDensity(int a) {
        std::vector<unsigned char> bytes(n * bytesPerElement(st.rho, prec));
        ctx.read(rho[a], bytes.data(), bytes.size(), "download rho");
        return decode(bytes, st.rho, prec);
    }

    State saveState() {
        State s;
        s.timeIndex = t;
        s.fields["p"] = downloadReals(p, n, "p");
        const char* un[3] = {"ux_sgx", "uy_sgy", "uz_sgz"};
        const char* rn[3] = {"rhox", "rhoy", "rhoz"};
        for (int a = 0; a < dims; ++a) {
            s.fields[un[a]] = downloadReals(u[a], n, un[a]);
            s.fields[rn[a]] = downloadDensity(a);
        }
        s.recording = recording();
        // Raw samples live in the recording; the aggregates are restored from it too.
        return s;
    }

    void uploadReals(cl::Buffer& b, const std::vector<double>& v, StorageFormat f, const std::string& what) {
        const auto bytes = encode(v, f, prec);
        if (!bytes.empty()) ctx.write(b, bytes.data(), bytes.size(), "upload " + what);
    }

    void restoreState(const State& s) {
        auto field = [&](const char* name) -> const std::vector<double>& {
            auto it = s.fields.find(name);
            if (it == s.fields.end() || it->second.size() != n)
                throw Error(std::string("the checkpoint lacks the field '") + name + "' of this grid");
            return it->second;
        };
        uploadReals(p, field("p"), StorageFormat::Element, "p");
        const char* un[3] = {"ux_sgx", "uy_sgy", "uz_sgz"};
        const char* rn[3] = {"rhox", "rhoy", "rhoz"};
        for (int a = 0; a < dims; ++a) {
            uploadReals(u[a], field(un[a]), StorageFormat::Element, un[a]);
            uploadReals(rho[a], field(rn[a]), st.rho, rn[a]);
        }
        t = s.timeIndex;
        rec = Recording();
        rec.samples = s.recording.samples;
        const std::size_t ns = points.size();
        ctx.finish();
        stepEnds.clear();
        for (auto& smp : samplers) {
            for (auto& b : smp.block) {
                b.steps = b.readSteps = 0;
                b.pending = false;
            }
            smp.current = 0;
            auto restore = [&](bool on, const std::string& name, cl::Buffer& b, std::size_t count) {
                if (!on || !rec.samples) return;
                auto it = s.recording.data.find(name);
                if (it == s.recording.data.end() || it->second.size() != count)
                    throw Error("the checkpoint lacks '" + name + "', which this run records");
                uploadReals(b, it->second, StorageFormat::Element, name);
            };
            if (smp.out.raw) {
                auto it = s.recording.data.find(smp.quantity);
                if (rec.samples && (it == s.recording.data.end() || it->second.size() != rec.samples * ns))
                    throw Error("the checkpoint lacks the raw '" + smp.quantity + "' samples this run records");
                if (it != s.recording.data.end()) rec.data[smp.quantity] = it->second;
            }
            restore(smp.out.rms, smp.quantity + "_rms", smp.sumsq, ns);
            restore(smp.out.max, smp.quantity + "_max", smp.mx, ns);
            restore(smp.out.min, smp.quantity + "_min", smp.mn, ns);
            restore(smp.out.maxAll, smp.quantity + "_max_all", smp.mxAll, n);
            restore(smp.out.minAll, smp.quantity + "_min_all", smp.mnAll, n);
        }
    }
};

KSpaceSolver::KSpaceSolver(Context& ctx, const Simulation& sim, const RunOptions& options)
    : impl_(std::make_unique<Impl>(ctx, sim, options)) {}
// The queue may still be writing into host memory this solver owns (sample blocks, the finite
// check) when it is destroyed by an exception: wait for it first.
KSpaceSolver::~KSpaceSolver() {
    try {
        if (impl_) impl_->ctx.finish();
    } catch (...) {
    }
}

std::size_t KSpaceSolver::timeIndex() const { return impl_->t; }
std::size_t KSpaceSolver::completedSteps() { return impl_->completedSteps(); }
bool KSpaceSolver::done() const { return impl_->t >= impl_->sim.nt; }
void KSpaceSolver::step() { impl_->step(); }
void KSpaceSolver::run(std::size_t endStep, const std::function<bool(std::size_t)>& stop) {
    const std::size_t end = endStep ? std::min(endStep, impl_->sim.nt) : impl_->sim.nt;
    while (impl_->t < end) {
        impl_->step();
        if (stop && stop(impl_->t)) break;
    }
    impl_->probeFinite(true);
}
void KSpaceSolver::checkFinite() { impl_->probeFinite(true); }
Recording KSpaceSolver::recording() { return impl_->recording(); }
std::size_t KSpaceSolver::deviceBytes() const { return impl_->deviceBytes; }
KSpaceSolver::State KSpaceSolver::saveState() { return impl_->saveState(); }
void KSpaceSolver::restoreState(const State& state) { impl_->restoreState(state); }

}  // namespace portacl::kwave

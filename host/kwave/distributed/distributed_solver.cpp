#include "distributed_solver.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <sstream>

#include "kwave/device_fields.hpp"
#include "kwave/k_space_operators.hpp"
#include "kwave/medium_upload.hpp"
#include "kwave/profile_keys.hpp"
#include "kwave/sensor_sampling.hpp"
#include "kwave/step_kernels.hpp"
#include "kwave/storage_format.hpp"
#include "portacl/cluster/collectives.hpp"
#include "portacl/kwave/distributed.hpp"
#include "lfb_solver.hpp"
#include "slab_fft.hpp"
#include "slab_output.hpp"
#include "slab_simulation.hpp"
#include "slab_state.hpp"
#include "kwave/setup_trace.hpp"

namespace portacl::kwave::distributed {

using cluster::all;
using cluster::maxOver;
using cluster::minOver;

namespace {

std::vector<std::size_t> shapeOf(const Grid& g) {
    return g.is3D() ? std::vector<std::size_t>{g.nz, g.ny, g.nx} : std::vector<std::size_t>{g.ny, g.nx};
}

int scratchFieldsOf(const Simulation& sim) { return sim.medium.absorption == Absorption::PowerLaw ? 3 : sim.grid.dimensions(); }

bool additiveSource(const Simulation& sim) {
    return (sim.p.length && sim.p.mode == SourceMode::Additive) ||
           ((sim.u.length[0] || sim.u.length[1] || sim.u.length[2]) && sim.u.mode == SourceMode::Additive);
}

std::string gigabytes(double bytes) {
    std::ostringstream os;
    os.precision(3);
    os << bytes / 1e9 << " GB";
    return os.str();
}

}  // namespace

PlaneRange slabPlanes(const Grid& grid, int rankCount, int rank, std::size_t overlap) {
    if (overlap) return lfbPlanes(grid, rankCount, rank, overlap);
    const SlabLayout l(shapeOf(grid), rankCount, rank);
    return {l.firstPlane(), l.planes()};
}

std::size_t bytesPerRank(const Simulation& sim, const RunOptions& opt, int rankCount) {
    const SlabLayout l(shapeOf(sim.grid), rankCount, 0);  // rank 0 holds the largest slabs
    const std::size_t rb = opt.precision == Precision::Double ? 8 : 4, nl = l.realPoints();
    const int dims = sim.grid.dimensions();
    std::size_t b = nl * rb * (1 + 2 * dims + scratchFieldsOf(sim) + (additiveSource(sim) ? 1 : 0));
    b += l.spectralPoints() * 2 * rb * dims + SlabFft::deviceBytes(l, opt.precision);
    const Medium& m = sim.medium;
    auto field = [&](const Field& f) { return (f.values.size() > 1 ? nl : 1) * rb; };
    b += field(m.c0) + field(m.rho0) + dims * field(m.rho0Sgx);
    if (m.nonlinear) b += field(m.bOnA.scalar() ? m.rho0 : m.bOnA);
    if (m.absorption != Absorption::Lossless) b += field(m.alphaCoeff.scalar() && m.c0.scalar() ? m.alphaCoeff : m.c0);
    if (!sim.p0.empty()) b += nl * rb;
    if (additiveSource(sim)) b += l.spectralPoints() * rb;
    return b;
}

int ranksToFit(const Simulation& sim, const RunOptions& opt, std::size_t deviceBytes) {
    const Grid& g = sim.grid;
    const std::size_t most = g.is3D() ? std::min(g.nz / 2, g.ny) : std::min(g.ny, g.reducedNx());
    for (std::size_t r = 1; r <= most; ++r)
        if (bytesPerRank(sim, opt, static_cast<int>(r)) <= deviceBytes) return static_cast<int>(r);
    return 0;
}

struct DistributedSolver::Impl : StepKernels {
    Context& ctx;
    const Simulation& sim;
    RunOptions opt;
    SlabLayout l;
    SlabSimulation part;
    const Grid& g;   // the whole grid
    const Grid& sg;  // this rank's slab
    int dims;
    Precision prec;
    std::size_t realBytes, nl, ns;
    StoragePlan storage;  // the one-device solver's (device_fields.hpp): fp16/bfloat16 in the reduced modes
    std::size_t rhoBytes;
    std::size_t t = 0;
    std::size_t deviceBytes = 0;
    std::unique_ptr<SlabFft> fft;
    std::unique_ptr<SensorSampling> sensor;
    bool sensorless;
    SensorSampling::FieldSource sampledField = [this](int field) -> const cl::Buffer& { return fieldForSampling(field); };

    // The spectral kernels' axes: slot s is physical axis slotAxis[s] (-1: none), over slotLen[s]
    // wavenumbers from slotBegin[s] (the transposed layout, slab_layout.hpp).
    int slotAxis[3] = {-1, -1, -1}, axisSlot[3] = {-1, -1, -1};
    std::size_t slotLen[3] = {1, 1, 1}, slotBegin[3] = {0, 0, 0};

    cl::Buffer p, u[3], rho[3], du[3], X[3], scratch;
    cl::Buffer c2, rho0, bOnA, tau, dtRho[3], pml[3], pmlSg[3], ddPos[3], ddNeg[3], shiftNeg[3], kk, sourceKappa, p0;
    cl::Buffer kappa, nabla1, nabla2;  // stored per point in the reduced modes (Table 5.1) and with stored operators, else computed from kk
    bool storedKappa() const { return storage.kappaStored(); }
    bool storedNabla() const { return storage.nablaStored(); }
    cl::Buffer pIndex, pSignal, uIndex, uSignal[3], trSignal, trDelay;

    Impl(Context& c, const Simulation& s, const RunOptions& o)
        : ctx(c), sim(s), opt(o), l(shapeOf(s.grid), ranks(), rank()), part(s, l), g(s.grid), sg(part.slab.grid),
          dims(g.dimensions()), prec(o.precision), realBytes(o.precision == Precision::Double ? 8 : 4), nl(l.realPoints()),
          ns(l.spectralPoints()), storage(o.storage, profileKey(c, o, "stored_operators", 0) != 0), rhoBytes(bytesPerElement(storage.rho, o.precision)),
          sensorless(part.wholeSensorPoints == 0) {
        if (prec != Precision::Float && prec != Precision::Double)
            throw EveryRankError("the k-Wave solver runs in single or double precision");
        if (o.storage != Storage::Full && prec != Precision::Float)
            throw EveryRankError("the reduced storage modes compute in single precision; they cannot be combined with double");

        if (g.is3D()) {
            slotAxis[0] = 2, slotAxis[1] = 0, slotAxis[2] = 1;
            slotLen[0] = g.nz, slotLen[1] = g.reducedNx(), slotLen[2] = l.count1[l.rank];
            slotBegin[2] = l.start1[l.rank];
        } else {
            slotAxis[0] = 1, slotAxis[1] = 0;
            slotLen[0] = g.ny, slotLen[1] = l.count1[l.rank];
            slotBegin[1] = l.start1[l.rank];
        }
        for (int sl = 0; sl < 3; ++sl)
            if (slotAxis[sl] >= 0) axisSlot[slotAxis[sl]] = sl;
        // The working set against every rank's device before anything is built or allocated.
        const std::size_t need = maxOver(bytesPerRank(sim, opt, l.ranks));
        const std::size_t have = minOver(static_cast<std::size_t>(ctx.device().globalMemBytes));
        if (need > have) {
            const int fit = ranksToFit(sim, opt, have);
            throw EveryRankError("this " + l.describe() + " simulation needs " + gigabytes(static_cast<double>(need)) +
                        " of device memory on each of " + std::to_string(l.ranks) + " ranks, but the smallest rank's device has " +
                        gigabytes(static_cast<double>(have)) +
                        (fit ? "; " + std::to_string(fit) + " ranks with such devices would hold it (mpirun -n " + std::to_string(fit) + ")"
                             : "; no split of its slowest axis fits devices of this size"));
        }
        ctx.requirePrecision(prec);
        traceSetup("the input's validation");
        try {
            validate(sim, "the simulation");
        } catch (const Error& e) {
            throw EveryRankError(e.what());
        }
        const std::string options = kernelOptions(ctx, sim, storage);
        traceSetup("the kernels");
        buildStepKernels(ctx, prec, options);
        sensor = std::make_unique<SensorSampling>(ctx, part.slab, opt, options, cl::NullRange);
        traceSetup("the slab's FFT plans and transposes");
        fft = std::make_unique<SlabFft>(ctx, l, prec, opt.fftBackend);
        deviceBytes += fft->deviceBytes();
        traceSetup("the fields, the medium and the operators");
        allocate();
        traceSetup("the sensor's buffers");
        sensor->allocate();
        traceSetup("a warm-up step");
        warmUp();
        traceSetup("the solver is ready");
    }

    // As the one-device solver: one step's kernels and transforms on the all-zero state (which they
    // map to zero), so that the drivers' lazy work at a kernel's first launch falls in the set-up.
    void warmUp() {
        computeVelocity();
        computeVelocityGradient();
        computeDensity();
        computePressure();
        sensor->warmUp(p);
        auto zero = [&](const cl::Buffer& b, std::size_t bytes) { ctx.fill(b, 0, bytes, "zero after warm-up"); };
        zero(p, nl * realBytes);
        for (int a = 0; a < dims; ++a) {
            zero(u[a], nl * realBytes);
            zero(rho[a], nl * rhoBytes);
            zero(X[a], ns * 2 * realBytes);
        }
        for (int a = 0; a < scratchFieldsOf(sim); ++a) zero(du[a], nl * realBytes);
        ctx.finish();
    }

    // ---- the slab's arrays --------------------------------------------------------------------
    std::vector<unsigned char> reals(const std::vector<double>& v) const { return encode(v, StorageFormat::Element, prec); }
    std::vector<unsigned char> complexes(const std::vector<std::complex<double>>& v) const {
        std::vector<double> flat;
        for (const auto& c : v) {
            flat.push_back(c.real());
            flat.push_back(c.imag());
        }
        return reals(flat);
    }
    static std::vector<unsigned char> indices(const std::vector<std::uint64_t>& v) {
        std::vector<unsigned char> b(v.size() * 8);
        if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
        return b;
    }
    cl::Buffer upload(const std::vector<unsigned char>& bytes, const std::string& what) {
        deviceBytes += bytes.size();
        cl::Buffer b = ctx.buffer(std::max<std::size_t>(bytes.size(), 8), what);
        if (!bytes.empty()) ctx.write(b, bytes.data(), bytes.size(), "upload " + what);
        return b;
    }
    cl::Buffer zeros(std::size_t bytes, const std::string& what) {
        deviceBytes += bytes;
        cl::Buffer b = ctx.buffer(std::max<std::size_t>(bytes, 8), what);
        ctx.fill(b, 0, std::max<std::size_t>(bytes, 8), "zero " + what);
        return b;
    }
    static std::vector<double> toDouble(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

    // Wavenumber i of kernel slot `sl` (0 for a slot without an axis).
    double slotWaveNumber(int sl, std::size_t i) const {
        const int a = slotAxis[sl];
        if (a < 0) return 0.0;
        const std::size_t n[3] = {g.nx, g.ny, g.nz};
        const double d[3] = {g.dx, g.dy, g.dz};
        return waveNumber(slotBegin[sl] + i, n[a], d[a]);
    }

    // The medium's fields over the slab, a block at a time (medium_upload.hpp).
    void uploadMedium() {
        const MediumUpload medium(ctx, opt, part.slab, storage);
        deviceBytes += medium.deviceBytes();
        medium.upload(ctx, {&c2, &rho0, {&dtRho[0], &dtRho[1], &dtRho[2]}, &bOnA, &tau});
    }

    void allocate() {
        const Medium& m = sim.medium;
        const StoragePlan& st = storage;
        const PerfectlyMatchedLayer layer(sim);
        traceSetup("the medium");
        uploadMedium();
        traceSetup("the PML and the operators");
        // The PML along the slab axis: this slab's planes of it.
        const int slabAxis = g.is3D() ? 2 : 1;
        for (int a = 0; a < 3; ++a) {
            std::vector<double> r = layer.regular[a], s = layer.staggered[a];
            if (a == slabAxis) {
                const auto first = static_cast<std::ptrdiff_t>(l.firstPlane()), last = first + static_cast<std::ptrdiff_t>(l.planes());
                r = std::vector<double>(r.begin() + first, r.begin() + last);
                s = std::vector<double>(s.begin() + first, s.begin() + last);
            }
            pml[a] = upload(reals(r), "pml");
            pmlSg[a] = upload(reals(s), "pml_sg");
        }
        // The operators in slot order.
        const std::complex<double> I(0.0, 1.0);
        const double ds[3] = {g.dx, g.dy, g.dz};
        const std::size_t nsAxis[3] = {g.nx, g.ny, g.nz};
        std::vector<double> squares;
        for (int sl = 0; sl < 3; ++sl) {
            std::vector<std::complex<double>> pos(slotLen[sl]), neg(slotLen[sl]), shift(slotLen[sl]);
            const int a = slotAxis[sl];
            for (std::size_t i = 0; i < slotLen[sl]; ++i) {
                const double k = slotWaveNumber(sl, i);
                squares.push_back(k * k);
                const double d = a >= 0 ? ds[a] : 1.0;
                pos[i] = I * k * std::exp(I * (0.5 * k * d));
                neg[i] = I * k * std::exp(-I * (0.5 * k * d));
                const bool nyquist = a >= 0 && nsAxis[a] % 2 == 0 && slotBegin[sl] + i == nsAxis[a] / 2;
                shift[i] = nyquist ? std::complex<double>(0.0, 0.0) : std::exp(-I * (0.5 * k * d));
            }
            ddPos[sl] = upload(complexes(pos), "ddk_shift_pos");
            ddNeg[sl] = upload(complexes(neg), "ddk_shift_neg");
            if (opt.outputs.uNonStaggeredRaw) shiftNeg[sl] = upload(complexes(shift), "shift_neg_r");
        }
        kk = upload(reals(squares), "squared wavenumbers");
        // |k| at each point of this rank's transposed spectrum, for the operators stored per point.
        const bool perPointOperators = storedKappa() || (storedNabla() && m.absorption == Absorption::PowerLaw) || additiveSource(sim);
        std::vector<double> k(perPointOperators ? ns : 0);
        for (std::size_t i = 0; i < k.size(); ++i) {
            const std::size_t x = i % slotLen[0], y = (i / slotLen[0]) % slotLen[1], z = i / (slotLen[0] * slotLen[1]);
            k[i] = std::sqrt(squares[x] + squares[slotLen[0] + y] + squares[slotLen[0] + slotLen[1] + z]);
        }
        const double half = 0.5 * sim.cRef * sim.dt;
        auto perPoint = [&](auto f) {
            std::vector<double> v(ns);
            for (std::size_t i = 0; i < ns; ++i) v[i] = f(k[i]);
            return v;
        };
        if (storedKappa())
            kappa = upload(encode(perPoint([&](double kmag) { return kmag == 0.0 ? 1.0 : std::sin(half * kmag) / (half * kmag); }), st.kappa, prec),
                           "kappa");
        if (storedNabla() && m.absorption == Absorption::PowerLaw) {
            const double y = m.alphaPower;
            nabla1 = upload(encode(perPoint([&](double kmag) { return kmag == 0.0 ? 0.0 : std::pow(kmag, y - 2.0); }), st.nabla, prec), "absorb_nabla1");
            nabla2 = upload(encode(perPoint([&](double kmag) { return kmag == 0.0 ? 0.0 : std::pow(kmag, y - 1.0); }), st.nabla, prec), "absorb_nabla2");
        }
        if (additiveSource(sim)) {
            sourceKappa = upload(encode(perPoint([&](double kmag) { return std::cos(half * kmag); }), st.sourceKappa, prec), "source_kappa");
            scratch = zeros(nl * realBytes, "source scratch");
        }
        const Simulation& ps = part.slab;
        traceSetup("the sources");
        if (!ps.p0.empty()) p0 = upload(encode(toDouble(ps.p0), st.p0, prec), "p0_source_input");
        if (sim.p.length) {
            pIndex = upload(indices(ps.p.index), "p_source_index");
            pSignal = upload(encode(toDouble(ps.p.signal), st.signal, prec), "p_source_input");
        }
        if (!sim.u.index.empty()) uIndex = upload(indices(ps.u.index), "u_source_index");
        for (int a = 0; a < dims; ++a)
            if (sim.u.length[a]) uSignal[a] = upload(reals(toDouble(ps.u.signal[a])), "u_source_input");
        if (sim.transducer.length) {
            trSignal = upload(reals(toDouble(sim.transducer.signal)), "transducer_source_input");
            trDelay = upload(indices(ps.transducer.delay), "delay_mask");
        }
        traceSetup("the state, the scratch fields and the spectra");
        p = zeros(nl * realBytes, "p");
        for (int a = 0; a < 3; ++a) {
            if (a < dims) {
                u[a] = zeros(nl * realBytes, "u_sg");
                rho[a] = zeros(nl * rhoBytes, "rho");
                X[a] = zeros(ns * 2 * realBytes, "spectrum");
            }
            if (a < scratchFieldsOf(sim)) du[a] = zeros(nl * realBytes, "du");
        }
        for (int a = dims; a < 3; ++a) {
            u[a] = u[0];
            rho[a] = rho[0];
            X[a] = X[0];
            dtRho[a] = dtRho[0];
            if (a >= scratchFieldsOf(sim)) du[a] = du[0];
        }
    }

    // ---- launching ----------------------------------------------------------------------------
    void setReal(cl::Kernel& k, cl_uint i, double v) {
        if (prec == Precision::Double) setArg(k, i, v);
        else setArg(k, i, static_cast<float>(v));
    }
    template <typename... A>
    void args(cl::Kernel& k, const A&... a) {
        setArgs(k, 0, a...);
    }
    void launchSlab(cl::Kernel& k) { ctx.launch(k, cl::NDRange(sg.nx, sg.ny, sg.nz)); }
    void launch1(cl::Kernel& k, std::size_t count) {
        if (count) ctx.launch(k, cl::NDRange(count));
    }
    static cl_uint u32(std::size_t v) { return static_cast<cl_uint>(v); }
    static cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }
    const cl::Buffer& slotX(int sl) const { return X[slotAxis[sl] < 0 ? 0 : slotAxis[sl]]; }

    // The spectra in slot order, the wavenumbers (kappa computed from them), the shift operators.
    void spectralArgs(cl::Kernel& k, const cl::Buffer* dd) {
        args(k, slotX(0), slotX(1), slotX(2), storedKappa() ? kappa : kk, kk);
        setReal(k, 5, 0.5 * sim.cRef * sim.dt);
        setArg(k, 6, dd[0]);
        setArg(k, 7, dd[1]);
        setArg(k, 8, dd[2]);
        setArg(k, 9, u32(slotLen[0]));
        setArg(k, 10, u32(slotLen[1]));
        setArg(k, 11, u64(ns));
    }

    // kappa * ddk_shift_pos * FFT(p) into X[0..dims), the gradient back into `out`.
    void gradientOf(const cl::Buffer& field, const cl::Buffer* out) {
        fft->forward(field, slotX(0));
        spectralArgs(kPressureGradient, ddPos);
        launch1(kPressureGradient, ns);
        fft->inverse(X, out, dims);
    }

    void computeVelocity() {
        gradientOf(p, du);
        args(kVelocity, u[0], u[1], u[2], du[0], du[1], du[2], dtRho[0], dtRho[1], dtRho[2], pmlSg[0], pmlSg[1], pmlSg[2]);
        setReal(kVelocity, 12, sim.dt);
        setArg(kVelocity, 13, u32(sg.nx));
        setArg(kVelocity, 14, u32(sg.ny));
        setArg(kVelocity, 15, u32(sg.nz));
        launchSlab(kVelocity);
    }

    void filterScratch() {
        fft->forward(scratch, X[0]);
        args(kSourceKappa, X[0], sourceKappa, u64(ns));
        setReal(kSourceKappa, 3, 1.0);  // the slab transforms scale their inverses
        launch1(kSourceKappa, ns);
        fft->inverse(X[0], scratch);
    }

    void addVelocitySources() {
        const Simulation& ps = part.slab;
        const std::size_t nsAll = sim.u.index.size(), nsHere = ps.u.index.size();
        for (int a = 0; a < dims; ++a) {
            if (sim.u.length[a] <= t) continue;
            const std::size_t offset = sim.u.many ? t * nsHere : t;
            if (sim.u.mode == SourceMode::Additive) {
                ctx.fill(scratch, 0, nl * realBytes, "zero source scratch");
                args(kVelocityPointSource, scratch, uIndex, uSignal[a], u32(nsHere), u64(offset), u32(sim.u.many), u32(0));
                launch1(kVelocityPointSource, nsHere);
                filterScratch();
                args(kAddField, u[a], scratch, u64(nl));
                launch1(kAddField, nl);
            } else {
                args(kVelocityPointSource, u[a], uIndex, uSignal[a], u32(nsHere), u64(offset), u32(sim.u.many),
                     u32(sim.u.mode == SourceMode::Dirichlet ? 0 : 1));
                launch1(kVelocityPointSource, nsHere);
            }
        }
        (void)nsAll;
        if (sim.transducer.length > t) {
            args(kTransducer, u[0], uIndex, trSignal, trDelay, u32(nsHere), u64(t), u64(nl), u64(sim.transducer.signal.size()));
            launch1(kTransducer, nsHere);
        }
    }

    void computeVelocityGradient() {
        fft->forward(u, X, dims);
        spectralArgs(kVelocityGradient, ddNeg);
        launch1(kVelocityGradient, ns);
        fft->inverse(X, du, dims);
    }

    bool fusedTerms() const { return sim.medium.absorption == Absorption::PowerLaw && sim.p.length <= t; }

    void computeDensity() {
        args(kDensity, rho[0], rho[1], rho[2], du[0], du[1], du[2], rho0, pml[0], pml[1], pml[2]);
        setReal(kDensity, 10, sim.dt);
        setArg(kDensity, 11, u32(sg.nx));
        setArg(kDensity, 12, u32(sg.ny));
        setArg(kDensity, 13, u32(sg.nz));
        setArg(kDensity, 14, u32(fusedTerms() ? 1 : 0));
        launchSlab(kDensity);
    }

    void addPressureSource() {
        if (sim.p.length <= t) return;
        const std::size_t nsHere = part.slab.p.index.size();
        const std::size_t offset = sim.p.many ? t * nsHere : t;
        if (sim.p.mode == SourceMode::Additive) {
            ctx.fill(scratch, 0, nl * realBytes, "zero source scratch");
            args(kPointSource, scratch, pIndex, pSignal, u32(nsHere), u64(offset), u32(sim.p.many), u32(0));
            launch1(kPointSource, nsHere);
            filterScratch();
            args(kAddDensity, rho[0], rho[1], rho[2], scratch, u64(nl));
            launch1(kAddDensity, nl);
        } else {
            args(kPointSourceDensity, rho[0], rho[1], rho[2], pIndex, pSignal, u32(nsHere), u64(offset), u32(sim.p.many),
                 u32(sim.p.mode == SourceMode::Dirichlet ? 0 : 1));
            launch1(kPointSourceDensity, nsHere);
        }
    }

    void computePressure() {
        if (sim.medium.absorption == Absorption::PowerLaw) {
            if (!fusedTerms()) {
                args(kPressureTerms, rho[0], rho[1], rho[2], du[0], du[1], du[2], rho0, u64(nl));
                launch1(kPressureTerms, nl);
            }
            fft->forward(du, X, 2);
            args(kAbsorptionTerms, X[0], X[1], storedNabla() ? nabla2 : kk, storedNabla() ? nabla1 : kk, kk);
            setReal(kAbsorptionTerms, 5, sim.medium.alphaPower - 2.0);
            setArg(kAbsorptionTerms, 6, u32(slotLen[0]));
            setArg(kAbsorptionTerms, 7, u32(slotLen[1]));
            setArg(kAbsorptionTerms, 8, u64(ns));
            setReal(kAbsorptionTerms, 9, 1.0);
            launch1(kAbsorptionTerms, ns);
            fft->inverse(X, du + 1, 2);
        }
        args(kPressure, p, rho[0], rho[1], rho[2], du[0], du[1], du[2], c2, rho0, bOnA, tau, u64(nl));
        const double y = sim.medium.alphaPower;
        setReal(kPressure, 12, y - 1.0);
        setReal(kPressure, 13, sim.medium.absorption == Absorption::PowerLaw ? std::tan(M_PI_2 * y) : 0.0);
        launch1(kPressure, nl);
    }

    void addInitialPressure() {
        args(kInitialPressure, p, rho[0], rho[1], rho[2], p0, c2, u64(nl));
        launch1(kInitialPressure, nl);
        gradientOf(p, u);
        args(kInitialVelocity, u[0], u[1], u[2], dtRho[0], dtRho[1], dtRho[2]);
        setReal(kInitialVelocity, 6, sim.dt);
        setArg(kInitialVelocity, 7, u64(nl));
        launch1(kInitialVelocity, nl);
    }

    const cl::Buffer& fieldForSampling(int field) {
        if (field < 4) return field == 0 ? p : u[field - 1];
        const int a = field - 4, sl = axisSlot[a];
        fft->forward(u[a], X[0]);
        args(kUnstagger, X[0], shiftNeg[sl], u32(sl), u32(slotLen[0]), u32(slotLen[1]), u64(ns));
        launch1(kUnstagger, ns);
        fft->inverse(X[0], du[0]);
        return du[0];
    }

    void step() {
        if (t >= sim.nt) return;
        computeVelocity();
        addVelocitySources();
        computeVelocityGradient();
        computeDensity();
        addPressureSource();
        computePressure();
        if (t == 0 && !sim.p0.empty()) addInitialPressure();
        if (t >= opt.outputs.startIndex && !sensorless) sensor->sample(sampledField);
        ++t;
    }

    // p[0] of every slab: a non-finite value anywhere reaches every point within a step (the
    // transforms mix them all), so every rank sees it at the same step and all of them stop.
    void checkFinite() {
        double v = 0;
        if (prec == Precision::Double) ctx.read(p, &v, sizeof v, "finite check");
        else {
            float f = 0;
            ctx.read(p, &f, sizeof f, "finite check");
            v = f;
        }
        if (!all(std::isfinite(v)))
            throw Error("the simulation became unstable: the pressure field is not finite after time step " + std::to_string(t) +
                        " (reduce dt: k-Wave needs the CFL number c0_max*dt/dx_min below about 0.3); no output was written");
    }

    static constexpr const char* kVelocityNames[3] = {"ux_sgx", "uy_sgy", "uz_sgz"};
    static constexpr const char* kDensityNames[3] = {"rhox", "rhoy", "rhoz"};

    std::vector<double> download(const cl::Buffer& b, StorageFormat f) {
        std::vector<unsigned char> bytes(nl * bytesPerElement(f, prec));
        ctx.read(b, bytes.data(), bytes.size(), "download state");
        return decode(bytes, f, prec);
    }

    KSpaceSolver::State saveState() {
        KSpaceSolver::State st;
        st.timeIndex = t;
        gatherStateField(st, "p", download(p, StorageFormat::Element));
        for (int a = 0; a < dims; ++a) {
            gatherStateField(st, kVelocityNames[a], download(u[a], StorageFormat::Element));
            gatherStateField(st, kDensityNames[a], download(rho[a], storage.rho));
        }
        st.recording = recording();
        return st;
    }

    void restoreState(const KSpaceSolver::State& st) {
        try {
            requireDecomposition(st, "");
        } catch (const Error& e) {
            throw EveryRankError(e.what());
        }
        const std::size_t first = l.firstPlane() * l.plane;
        auto upload = [&](const cl::Buffer& b, const std::vector<double>& v, StorageFormat f = StorageFormat::Element) {
            const auto bytes = encode(v, f, prec);
            ctx.write(b, bytes.data(), bytes.size(), "upload state");
        };
        upload(p, stateFieldPart(st, "p", g.size(), first, nl));
        for (int a = 0; a < dims; ++a) {
            upload(u[a], stateFieldPart(st, kVelocityNames[a], g.size(), first, nl));
            upload(rho[a], stateFieldPart(st, kDensityNames[a], g.size(), first, nl), storage.rho);
        }
        t = st.timeIndex;
        // This slab's part of the recording: its sensor points' series and aggregates, its planes of
        // the whole-grid aggregates.
        sensor->restore(recordingPart(st.recording, part, g.size(), first, nl));
    }

    // Planes [from, to) of this slab of `field` (element precision) as floats.
    std::vector<float> planesAsFloat(const cl::Buffer& field, std::size_t from, std::size_t to) {
        const std::size_t count = (to - from) * l.plane;
        std::vector<float> out(count);
        if (!count) return out;
        if (prec == Precision::Float) {
            ctx.read(field, out.data(), count * sizeof(float), "download grid field", from * l.plane * sizeof(float));
        } else {
            std::vector<double> d(count);
            ctx.read(field, d.data(), count * sizeof(double), "download grid field", from * l.plane * sizeof(double));
            for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(d[i]);
        }
        return out;
    }

    StreamedGridFields gridFields(std::size_t roundBytes) {
        StreamedGridFields grids;
        for (const auto& [name, buffer] : sensor->gridFields(sampledField)) grids.names.push_back(name);
        grids.write = [this, roundBytes](const std::string& name, const StreamedGridFields::Sink& put) {
            for (const auto& [n, buffer] : sensor->gridFields(sampledField))
                if (n == name) {
                    const cl::Buffer& field = *buffer;
                    return streamGridField([&](std::size_t from, std::size_t to) { return planesAsFloat(field, from, to); }, l,
                                           roundBytes, put);
                }
            throw Error("no whole-grid dataset '" + name + "' is recorded");
        };
        return grids;
    }

    Recording recording(bool withGridFields = true) {
        return gatherRecording(sensor->recording(sampledField, withGridFields), sim, l, part.wholeSensorPoints);
    }
};

DistributedSolver::DistributedSolver(Context& ctx, const Simulation& sim, const RunOptions& options)
    : impl_(std::make_unique<Impl>(ctx, sim, options)) {}
DistributedSolver::~DistributedSolver() {
    try {
        if (impl_) impl_->ctx.finish();
    } catch (...) {
    }
}
std::size_t DistributedSolver::timeIndex() const { return impl_->t; }
bool DistributedSolver::done() const { return impl_->t >= impl_->sim.nt; }
void DistributedSolver::step() { impl_->step(); }
void DistributedSolver::run(std::size_t endStep, const std::function<bool(std::size_t)>& stop) {
    const std::size_t end = endStep ? std::min(endStep, impl_->sim.nt) : impl_->sim.nt;
    while (impl_->t < end) {
        impl_->step();
        if (stop && stop(impl_->t)) break;
    }
    impl_->checkFinite();
}
Recording DistributedSolver::recording(bool withGridFields) { return impl_->recording(withGridFields); }
StreamedGridFields DistributedSolver::gridFields(std::size_t roundBytes) { return impl_->gridFields(roundBytes); }
KSpaceSolver::State DistributedSolver::saveState() { return impl_->saveState(); }
void DistributedSolver::restoreState(const KSpaceSolver::State& state) { impl_->restoreState(state); }
std::size_t DistributedSolver::deviceBytes() const { return impl_->deviceBytes + impl_->sensor->deviceBytes(); }
const TransposeTimes& DistributedSolver::transposeTimes() const { return impl_->fft->times(); }
const std::string& DistributedSolver::exchangeMethod() const { return impl_->fft->exchangeMethod(); }

}  // namespace portacl::kwave::distributed

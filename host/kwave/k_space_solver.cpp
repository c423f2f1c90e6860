// The device solver (k-Wave's KSpaceFirstOrderSolver): kspaceFirstOrder's main loop (computeMainLoop)
// as OpenCL kernels (cl/kwave.cl) around the engine's R2C/C2R FFTs, with the fast paths that fuse
// transforms into the spectral operators. The arrays are DeviceFields' (device_fields.hpp), the
// sensor's sampling and aggregates SensorSampling's (sensor_sampling.hpp). The Simulation must
// outlive the solver.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <sstream>

#include "device_fields.hpp"
#include "profile_keys.hpp"
#include "portacl/kwave.hpp"
#include "portacl/runtime/error.hpp"
#include "sensor_sampling.hpp"
#include "step_kernels.hpp"
#include "storage_format.hpp"
#include "subdomain.hpp"
#include "setup_trace.hpp"

namespace portacl::kwave {

struct KSpaceSolver::Impl : StepKernels {
    Context& ctx;
    const Simulation& sim;
    RunOptions opt;
    const Grid& g;
    std::size_t n, nr;
    int dims;
    Precision prec;
    std::size_t realBytes;
    std::size_t t = 0;
    // A subdomain of the local Fourier basis decomposition (subdomain.hpp), or none.
    const Subdomain* sub = nullptr;
    // Which components of u hold the bell on their overlap planes now (from the divergence's
    // transform until the next exchange), so that the non-staggered output does not apply it twice.
    bool uBelled[3] = {false, false, false};
    cl::Kernel kBell;
    cl::Buffer bellBelow, bellAbove;

    DeviceFields f;
    std::unique_ptr<SensorSampling> sensor;
    // The field a sampler reads (SensorSampling::FieldSource).
    SensorSampling::FieldSource sampledField = [this](int field) -> const cl::Buffer& { return fieldForSampling(field); };

    // 3-D grids with nz = 16 q (q = 1, 2, 4, 8, 16): the spectral operators run fused with the z
    // transforms (kwave_z_*, common/z_line_fft.h) and the FFT plans transform x and y only.
    int zFusedQ = 0;
    std::size_t zLines = 0;  // lines (x rows) of a work-group of the fused kernels
    // Also nx = 32 q (q = 1, 2, 4, 8, 16), VkFFT: the velocity update runs fused with the inverse x
    // transforms of the pressure gradient (kwave_x_velocity), whose y transforms run alone.
    int xFusedQ = 0;
    // The spectral and 3-D element-wise kernels a work-item per x row, looping over it (cl/kwave.cl
    // ROW_KERNELS; [kwave] row_kernels, CPUs).
    bool rowKernels = false;
    // Their work-groups: [kwave] row_group rows (along y) each, so that a CPU device's threads share
    // many groups (nz * ny / rows) and the runtime can balance them; 0: the runtime's choice, which
    // on PoCL is as few groups as it has threads (4 at 128^3 on 2, 16 on 16: one each, so that the
    // kernel lasts as long as its latest thread).
    cl::NDRange rowLocal = cl::NullRange;
    // The points of a row each of their work-items computes at once, in vectors ([kwave] row_lanes:
    // 2, 4, 8 or 16; 1: one at a time).
    int rowLanes = 1;
    // The 3-D transforms' inverses left unscaled, their 1/N carried by the spectral operators before
    // them ([kwave] fold_fft_scale, for FFTW, whose scaling is a pass over the output of its own; not
    // with the fused z kernels, which scale in their z transforms). spectralScale: 1/N, else 1.
    bool foldScale = false;
    double spectralScale = 1.0;

    // The end of each enqueued step not yet seen complete (a marker event each, oldest first). The host
    // runs at most `stepsAhead` steps ahead of the device: enough queued work that the device never
    // idles, few enough that progress lines and checkpoint intervals stay close to the device's time.
    std::deque<cl::Event> stepEnds;
    std::size_t stepsAhead = 8;

    fft::Plan* r2c = nullptr;
    fft::Plan* c2r = nullptr;
    fft::Plan* r2cBatch[4] = {};  // [b]: b components at once (b = 2, dims), when batched
    fft::Plan* c2rBatch[4] = {};
    fft::Plan* r2cXY[4] = {};  // [b]: 2-D transforms of every z plane of b components (zFusedQ)
    fft::Plan* c2rXY[4] = {};
    fft::Plan* c2cYInverse[4] = {};  // [b]: the y transforms of b components, in place (xFusedQ)
    cl::Kernel kZPressureGradient, kZVelocityGradient, kZAbsorptionTerms, kXVelocity;
    cl::NDRange local3 = cl::NullRange, local1 = cl::NullRange;

    Impl(Context& c, const Simulation& s, const RunOptions& o, const Subdomain* subdomain = nullptr)
        : ctx(c), sim(s), opt(o), g(s.grid), n(g.size()), nr(g.reducedSize()), dims(g.dimensions()),
          prec(o.precision), realBytes(o.precision == Precision::Double ? 8 : 4), sub(subdomain), f(c, s, opt) {
        if (prec != Precision::Float && prec != Precision::Double)
            throw Error("the k-Wave solver runs in single or double precision (or a mixed-* storage mode)");
        if (o.storage != Storage::Full && prec != Precision::Float)
            throw Error("the mixed-* storage modes compute in single precision; they cannot be combined with double");
        requireWholeGrid(sim, "the one-device solver");
        // A subdomain's simulation is cut from one the distributed solver validated whole (its sensor
        // may hold none of the points).
        if (!sub) validate(sim, "the simulation");
        ctx.requirePrecision(prec);
        // Refuse a grid the device cannot hold before building operators or FFT plans for it.
        ctx.checkFits(f.estimateBytes(), "this " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" +
                                             std::to_string(g.nz) + " simulation");
        zLines = linesPerGroup();
        zFusedQ = zFusedLines();
        xFusedQ = xFusedRows();
        rowKernels = key("row_kernels", 0) != 0;
        if (const long rows = key("row_group", 0, 0, 1L << 16); rowKernels && rows > 0)
            rowLocal = cl::NDRange(std::min<std::size_t>({static_cast<std::size_t>(rows), g.ny, ctx.device().maxWorkGroupSize}), 1);
        // The element-wise row kernels' explicit vectors: [kwave] row_lanes points of a row at once,
        // where whole rows divide into them (cl/kwave.cl, GRID_LANES).
        const long lanes = key("row_lanes", 1, 1, 16);
        if ((lanes & (lanes - 1)) != 0)
            throw Error("the k-Wave solver's [kwave] row_lanes must be 1, 2, 4, 8 or 16, not " + std::to_string(lanes));
        if (rowKernels && g.nx % static_cast<std::size_t>(lanes) == 0) rowLanes = static_cast<int>(lanes);
        foldScale = !zFusedQ && key("fold_fft_scale", 0) != 0;
        spectralScale = foldScale ? 1.0 / static_cast<double>(n) : 1.0;
        f.spectralScale = spectralScale;
        // GPUs get explicit work-groups along x (global sizes are rounded up; kernels check bounds);
        // CPUs let the runtime choose. A [kwave] section of a tuning profile overrides both.
        const bool gpu = ctx.device().isGpu;
        const int wx = key("work_group_x", gpu ? 128 : 0, 0, 1L << 16);
        const int w1 = key("work_group", gpu ? 256 : 0, 0, 1L << 16);
        if (wx > 0) local3 = cl::NDRange(static_cast<std::size_t>(wx), 1, 1);
        if (w1 > 0) local1 = cl::NDRange(static_cast<std::size_t>(w1));
        const std::string options = buildOptions();
        traceSetup("the kernels and the FFT plans");
        build(options);
        traceSetup("the sensor's kernels");
        sensor = std::make_unique<SensorSampling>(ctx, sim, opt, options, local1);
        traceSetup("the fields, the medium and the operators");
        f.allocate(sensor->plannedBytes());
        if (sub) setUpSubdomain();
        traceSetup("the sensor's buffers");
        sensor->allocate();
        traceSetup("the batched and fused FFT plans");
        if (f.batched) planBatches();
        if (zFusedQ) planXY();
        stepsAhead = static_cast<std::size_t>(std::max(1L, key("steps_ahead", 8, 1, 1024)));
        traceSetup("a warm-up step");
        warmUp();
        traceSetup("the solver is ready");
    }

    std::size_t deviceBytes() const { return f.deviceBytes + sensor->deviceBytes(); }

    // ---- a subdomain of the local Fourier basis decomposition (subdomain.hpp) -------------------
    std::size_t planePoints() const { return g.is3D() ? g.nx * g.ny : g.nx; }
    std::size_t planeCount() const { return g.is3D() ? g.nz : g.ny; }

    // The slowest axis's PML from the subdomain (the whole grid's), the bell's two ends uploaded.
    void setUpSubdomain() {
        const int slow = g.is3D() ? 2 : 1;
        if (sub->pml.size() != planeCount() || sub->pmlStaggered.size() != planeCount() || sub->bellBelow.size() != sub->below ||
            sub->bellAbove.size() != sub->above || sub->below + sub->above >= planeCount())
            throw Error("a subdomain's PML profile and bell must cover its planes");
        auto write = [&](const cl::Buffer& b, const std::vector<double>& v, const std::string& what) {
            const auto bytes = encode(v, StorageFormat::Element, prec);
            ctx.write(b, bytes.data(), bytes.size(), what);
        };
        write(f.pml[slow], sub->pml, "subdomain pml");
        write(f.pmlSg[slow], sub->pmlStaggered, "subdomain pml_sg");
        auto bell = [&](const std::vector<double>& v, const std::string& what) {
            cl::Buffer b = ctx.buffer(std::max<std::size_t>(v.size(), 1) * realBytes, what);
            if (!v.empty()) write(b, v, what);
            f.deviceBytes += v.size() * realBytes;
            return b;
        };
        // On the device both in plane order (kwave_bell's bell[0] is the first plane it scales).
        bellBelow = bell(sub->bellBelow, "bell below");
        bellAbove = bell(std::vector<double>(sub->bellAbove.rbegin(), sub->bellAbove.rend()), "bell above");
    }

    // `field` times the bell over its overlap planes, before a forward transform.
    void bell(const cl::Buffer& field) {
        if (!sub) return;
        const std::size_t plane = planePoints();
        auto apply = [&](const cl::Buffer& w, std::size_t firstPlane, std::size_t planes) {
            if (!planes) return;
            args(kBell, field, w, u64(plane), u64(firstPlane * plane), u64(planes * plane));
            launch1(kBell, planes * plane);
        };
        apply(bellBelow, 0, sub->below);
        apply(bellAbove, planeCount() - sub->above, sub->above);
    }

    // ---- the overlap exchanges of a subdomain ----------------------------------------------------
    bool exchanging() const { return sub && sub->send && sub->receive; }

    // `launchPlanes(from, to)` updates `fields` over planes [from, to) of the slowest axis, `after`
    // follows it (this step's sources; `afterActs`: whether they change anything this step). On a
    // subdomain the overlap planes are then replaced by the neighbours': the planes they need are
    // updated first and read to the host while the rest of the rank's own planes are updated, and only
    // the commands after this wait for the planes written back. The overlap planes are not updated
    // (the exchange replaces them), so the results are those of updating every plane first. With
    // sources this step, or an update that cannot be split (`splittable` false: it updates every
    // plane), the planes are read after the whole update.
    void updateAndExchange(const std::function<cl::Event(std::size_t, std::size_t)>& launchPlanes, bool splittable,
                           const std::function<void()>& after, bool afterActs, const cl::Buffer* fields, int count,
                           std::size_t elementBytes) {
        if (!exchanging()) {
            launchPlanes(0, planeCount());
            if (afterActs) after();
            return;
        }
        const std::size_t own0 = sub->below, own1 = planeCount() - sub->above;
        if (!splittable || afterActs) {
            launchPlanes(own0, own1);
            if (afterActs) after();
            return exchangeNow(fields, count, elementBytes);
        }
        // The planes the neighbours need: [own0, lo) below and [hi, own1) above; the rest between.
        const std::size_t lo = std::min(own1, own0 + sub->sendBelow), hi = std::max(lo, own1 - std::min(own1 - own0, sub->sendAbove));
        if (lo > own0) launchPlanes(own0, lo);
        if (own1 > hi) launchPlanes(hi, own1);
        sub->send(fields, count, elementBytes, ctx.marker("overlap planes updated"));
        ctx.flush();
        if (hi > lo) {
            const cl::Event rest = launchPlanes(lo, hi);
            ctx.flush();
            return receive(fields, &rest);
        }
        receive(fields, nullptr);
    }

    // The overlap planes of fields already updated, from the neighbours.
    void exchangeNow(const cl::Buffer* fields, int count, std::size_t elementBytes) {
        if (!exchanging()) return;
        sub->send(fields, count, elementBytes, ctx.marker("overlap planes updated"));
        ctx.flush();
        receive(fields, nullptr);
    }

    void receive(const cl::Buffer* fields, const cl::Event* lastWork) {
        ctx.barrier(sub->receive(lastWork), "overlap planes written");
        if (fields == f.u)
            for (bool& b : uBelled) b = false;
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
        sensor->warmUp(f.p);
        f.zeroState();
        ctx.finish();
    }

    // ---- set-up -------------------------------------------------------------------------------
    std::string buildOptions() const {
        std::ostringstream fused;
        if (zFusedQ) fused << " -D KZ_Q=" << zFusedQ << " -D KZ_LINES=" << zLines;
        if (xFusedQ) fused << " -D KX_Q=" << xFusedQ;
        if (rowKernels) fused << " -D ROW_KERNELS=1";
        if (rowKernels && rowLanes > 1) fused << " -D ROW_LANES=" << rowLanes;
        return kernelOptions(ctx, sim, f.st, fused.str());
    }

    void build(const std::string& options) {
        buildStepKernels(ctx, prec, options);
        // The fused paths' kernels, also of the solver's own.
        auto k = [&](const char* name) { return ctx.newKernel("kwave.cl", name, prec, options); };
        if (zFusedQ) {
            kZPressureGradient = k("kwave_z_pressure_gradient");
            kZVelocityGradient = k("kwave_z_velocity_gradient");
            kZAbsorptionTerms = k("kwave_z_absorption_terms");
        }
        if (xFusedQ) kXVelocity = k("kwave_x_velocity");
        if (sub) kBell = k("kwave_bell");

        r2c = &fftPlan(fft::Kind::R2C, 1);
        c2r = &fftPlan(fft::Kind::C2R, 1);
    }

    // Lines of a work-group of the fused kernels (Z_LINES in cl/common/z_line_fft.h): `z_line_bytes`
    // of complex values side by side in memory, 128 unless the device profile's [kwave] says otherwise.
    std::size_t linesPerGroup() const {
        const long bytes = key("z_line_bytes", 128, 0, 1L << 16);
        return std::max<std::size_t>(1, static_cast<std::size_t>(std::max(0L, bytes)) / (2 * realBytes));
    }

    long key(const std::string& name, long fallback, long lo = 0, long hi = 1) const {
        return profileKey(ctx, opt, name, fallback, lo, hi);
    }

    // nz / 16 where the z transforms can run fused with the spectral operators, else 0: a 3-D grid
    // with nz = 16, 32, 64, 128 or 256, a work-group of 16 work-items per line and the local memory
    // for the lines and the twiddles, and `fused_z` not 0 in the device profile's [kwave]. Where FFTW
    // does the x-y transforms, `fftw_fused_z` decides (default: fused_z): on CPUs the fused kernels'
    // z transforms in OpenCL are slower than FFTW's, so the CPU profiles turn it off.
    int zFusedLines() const {
        long on = key("fused_z", 1);
        if (fft::resolve(ctx, opt.fftBackend) == fft::Backend::FFTW) on = key("fftw_fused_z", on);
        if (!g.is3D() || on == 0) return 0;
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
        if (!zFusedQ || fft::resolve(ctx, opt.fftBackend) == fft::Backend::ClFFT || key("fused_x", 1) == 0) return 0;
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
        d.scaleInverse = !foldScale;
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
            if (b > 1 && !f.batched) break;
            r2cXY[b] = &fftPlan(fft::Kind::R2C, b, true);
            c2rXY[b] = &fftPlan(fft::Kind::C2R, b, true);
            if (xFusedQ) c2cYInverse[b] = &yInversePlan(b);
        }
    }

    // Forward FFTs of src[0..count) into X[0..count); inverse FFTs of X[0..count) into dst[0..count).
    // srcAll/dstAll hold the components contiguously when `batched`. xyOnly: x and y only (zFusedQ).
    void forwardComponents(const cl::Buffer* src, const cl::Buffer& srcAll, int count, bool xyOnly = false) {
        fft::Plan* const* plans = xyOnly ? r2cXY : r2cBatch;
        if (f.batched && count > 1) return plans[count]->execute(srcAll, f.XAll, fft::Direction::Forward);
        for (int a = 0; a < count; ++a) (xyOnly ? r2cXY[1] : r2c)->execute(src[a], f.X[a], fft::Direction::Forward);
    }
    void inverseComponents(const cl::Buffer* dst, const cl::Buffer& dstAll, int count, bool xyOnly = false) {
        fft::Plan* const* plans = xyOnly ? c2rXY : c2rBatch;
        if (f.batched && count > 1) return plans[count]->execute(f.XAll, dstAll, fft::Direction::Inverse);
        for (int a = 0; a < count; ++a) (xyOnly ? c2rXY[1] : c2r)->execute(f.X[a], dst[a], fft::Direction::Inverse);
    }

    // A fused z kernel over every line (x, y) of the half spectrum: 16 work-items per line, the lines
    // of a work-group consecutive in y nxr + x.
    void launchLines(cl::Kernel& k) {
        ctx.launch(k, cl::NDRange(roundUp(g.reducedNx() * g.ny, zLines), 16), cl::NDRange(zLines, 16));
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
    cl::Event launchGrid(cl::Kernel& k, std::size_t nx) {
        if (rowKernels) return ctx.launch(k, cl::NDRange(g.ny, g.nz), rowLocal);
        return ctx.launch(k, cl::NDRange(nx, g.ny, g.nz), local3);
    }
    // A GRID_BEGIN kernel over planes [from, to) of the slowest axis (z; y in 2-D), whose argument
    // `nyArg` is ny and the next nz: the slowest axis's bound set to `to`, the range offset to `from`.
    cl::Event launchGridPlanes(cl::Kernel& k, cl_uint nyArg, std::size_t from, std::size_t to) {
        const bool d3 = g.is3D();
        if (from == 0 && to == planeCount()) return launchGrid(k, g.nx);
        setArg(k, d3 ? nyArg + 1 : nyArg, u32(to));
        if (rowKernels)
            return d3 ? ctx.launch(k, cl::NDRange(0, from), cl::NDRange(g.ny, to - from), rowLocal)
                      : ctx.launch(k, cl::NDRange(from, 0), cl::NDRange(to - from, 1), rowLocal);
        return d3 ? ctx.launch(k, cl::NDRange(0, 0, from), cl::NDRange(g.nx, g.ny, to - from), local3)
                  : ctx.launch(k, cl::NDRange(0, from, 0), cl::NDRange(g.nx, to - from, 1), local3);
    }
    void launch1(cl::Kernel& k, std::size_t count) { ctx.launch(k, cl::NDRange(count), local1); }
    // A kernel of SPECTRAL_BEGIN over the half spectrum: a work-item per point, or per x row.
    void launchSpectral(cl::Kernel& k) {
        if (rowKernels) ctx.launch(k, cl::NDRange(g.ny, g.is3D() ? g.nz : 1), rowLocal);
        else launch1(k, nr);
    }
    cl_uint u32(std::size_t v) const { return static_cast<cl_uint>(v); }
    cl_ulong u64(std::size_t v) const { return static_cast<cl_ulong>(v); }

    // The pressure gradient in du; with toSpectra (xFusedQ), its x spectra in X (y and z transformed
    // back) for kwave_x_velocity.
    void pressureGradient(bool toSpectra = false) {
        bell(f.p);
        if (zFusedQ) {
            r2cXY[1]->execute(f.p, f.X[0], fft::Direction::Forward);
            spectralArgs(kZPressureGradient, f.ddPos, false);
            launchLines(kZPressureGradient);
            if (!toSpectra) return inverseComponents(f.du, f.duAll, dims, true);
            if (f.batched) return c2cYInverse[dims]->execute(f.XAll, f.XAll, fft::Direction::Inverse);
            for (int a = 0; a < dims; ++a) c2cYInverse[1]->execute(f.X[a], f.X[a], fft::Direction::Inverse);
            return;
        }
        r2c->execute(f.p, f.X[0], fft::Direction::Forward);
        gradientSpectra();
        inverseComponents(f.du, f.duAll, dims);
    }

    // FFT(p) in X[0] -> kappa * ddk_shift_pos * FFT(p) in X[0..dims).
    void gradientSpectra() {
        spectralArgs(kPressureGradient, f.ddPos);
        launchSpectral(kPressureGradient);
    }

    // X[0..2], kappa (or, computed, c_ref dt/2 and the wavenumbers), dd*_shift_* per axis, sizes.
    void spectralArgs(cl::Kernel& k, const cl::Buffer* dd, bool withCount = true) {
        args(k, f.X[0], f.X[1], f.X[2], f.storedKappa() ? f.kappa : f.waveNumbers2, f.waveNumbers2);
        setReal(k, 5, 0.5 * sim.cRef * sim.dt);
        setArg(k, 6, dd[0]);
        setArg(k, 7, dd[1]);
        setArg(k, 8, dd[2]);
        setArg(k, 9, u32(g.reducedNx()));
        setArg(k, 10, u32(g.ny));
        if (withCount) setArg(k, 11, u64(nr));
    }

    void computeVelocity() {
        pressureGradient(xFusedQ != 0);
        updateVelocity(0, planeCount());
    }

    // u from the pressure gradient over planes [from, to) (xFusedQ: every plane, the update fused
    // with the gradient's inverse x transforms).
    cl::Event updateVelocity(std::size_t from, std::size_t to) {
        if (xFusedQ) {
            args(kXVelocity, f.u[0], f.u[1], f.u[2], f.X[0], f.X[1], f.X[2], f.dtRho[0], f.dtRho[1], f.dtRho[2], f.pmlSg[0], f.pmlSg[1], f.pmlSg[2]);
            setReal(kXVelocity, 12, sim.dt);
            setArg(kXVelocity, 13, u32(g.ny));
            setArg(kXVelocity, 14, u32(g.nz));
            return ctx.launch(kXVelocity, cl::NDRange(roundUp(g.ny * g.nz, zLines), 16), cl::NDRange(zLines, 16));
        }
        args(kVelocity, f.u[0], f.u[1], f.u[2], f.du[0], f.du[1], f.du[2], f.dtRho[0], f.dtRho[1], f.dtRho[2], f.pmlSg[0], f.pmlSg[1], f.pmlSg[2]);
        setReal(kVelocity, 12, sim.dt);
        setArg(kVelocity, 13, u32(g.nx));
        setArg(kVelocity, 14, u32(g.ny));
        setArg(kVelocity, 15, u32(g.nz));
        return launchGridPlanes(kVelocity, 14, from, to);
    }

    // source_mat = real(ifftn(source_kappa .* fftn(source_mat))), k-Wave's additive correction.
    void filterScratch() {
        r2c->execute(f.scratch, f.X[0], fft::Direction::Forward);
        args(kSourceKappa, f.X[0], f.sourceKappa, u64(nr));
        setReal(kSourceKappa, 3, spectralScale);
        launch1(kSourceKappa, nr);
        c2r->execute(f.X[0], f.scratch, fft::Direction::Inverse);
    }

    bool velocitySourcesAct() const {
        for (int a = 0; a < dims; ++a)
            if (sim.u.length[a] > t) return true;
        return sim.transducer.length > t;
    }

    void addVelocitySources() {
        const std::size_t ns = sim.u.index.size();
        for (int a = 0; a < dims; ++a) {
            if (sim.u.length[a] <= t) continue;
            const std::size_t offset = sim.u.many ? t * ns : t;
            if (sim.u.mode == SourceMode::Additive) {
                ctx.fill(f.scratch, 0, n * realBytes, "zero source scratch");
                args(kVelocityPointSource, f.scratch, f.uIndex, f.uSignal[a], u32(ns), u64(offset), u32(sim.u.many), u32(0));
                launch1(kVelocityPointSource, ns);
                filterScratch();
                args(kAddField, f.u[a], f.scratch, u64(n));
                launch1(kAddField, n);
            } else {
                args(kVelocityPointSource, f.u[a], f.uIndex, f.uSignal[a], u32(ns), u64(offset), u32(sim.u.many),
                     u32(sim.u.mode == SourceMode::Dirichlet ? 0 : 1));
                launch1(kVelocityPointSource, ns);
            }
        }
        if (sim.transducer.length > t) {
            args(kTransducer, f.u[0], f.uIndex, f.trSignal, f.trDelay, u32(ns), u64(t), u64(n), u64(sim.transducer.signal.size()));
            launch1(kTransducer, ns);
        }
    }

    void computeVelocityGradient() {
        for (int a = 0; a < dims; ++a) {
            bell(f.u[a]);
            uBelled[a] = sub != nullptr;
        }
        if (zFusedQ) {
            forwardComponents(f.u, f.uAll, dims, true);
            spectralArgs(kZVelocityGradient, f.ddNeg, false);
            launchLines(kZVelocityGradient);
            return inverseComponents(f.du, f.duAll, dims, true);
        }
        forwardComponents(f.u, f.uAll, dims);
        spectralArgs(kVelocityGradient, f.ddNeg);
        launchSpectral(kVelocityGradient);
        inverseComponents(f.du, f.duAll, dims);
    }

    void computeDensity() { updateDensity(0, planeCount()); }

    // rho over planes [from, to).
    cl::Event updateDensity(std::size_t from, std::size_t to) {
        args(kDensity, f.rho[0], f.rho[1], f.rho[2], f.du[0], f.du[1], f.du[2], f.rho0, f.pml[0], f.pml[1], f.pml[2]);
        setReal(kDensity, 10, sim.dt);
        setArg(kDensity, 11, u32(g.nx));
        setArg(kDensity, 12, u32(g.ny));
        setArg(kDensity, 13, u32(g.nz));
        setArg(kDensity, 14, u32(fusedTerms() ? 1 : 0));
        return launchGridPlanes(kDensity, 12, from, to);
    }

    // The power-law pressure terms come out of the density kernel unless a pressure source acts
    // between the two this step, or a subdomain's densities get their overlap planes after it.
    bool fusedTerms() const { return sim.medium.absorption == Absorption::PowerLaw && sim.p.length <= t && !sub; }

    void addPressureSource() {
        if (sim.p.length <= t) return;
        const std::size_t ns = sim.p.index.size();
        const std::size_t offset = sim.p.many ? t * ns : t;
        if (sim.p.mode == SourceMode::Additive) {
            ctx.fill(f.scratch, 0, n * realBytes, "zero source scratch");
            args(kPointSource, f.scratch, f.pIndex, f.pSignal, u32(ns), u64(offset), u32(sim.p.many), u32(0));
            launch1(kPointSource, ns);
            filterScratch();
            args(kAddDensity, f.rho[0], f.rho[1], f.rho[2], f.scratch, u64(n));
            launch1(kAddDensity, n);
        } else {
            args(kPointSourceDensity, f.rho[0], f.rho[1], f.rho[2], f.pIndex, f.pSignal, u32(ns), u64(offset), u32(sim.p.many),
                 u32(sim.p.mode == SourceMode::Dirichlet ? 0 : 1));
            launch1(kPointSourceDensity, ns);
        }
    }

    void computePressure() {
        absorptionTerms();
        updatePressure(0, planeCount());
    }

    // The power-law absorption's two terms in du[1] and du[2] (sum(rho) stays in du[0]).
    void absorptionTerms() {
        if (sim.medium.absorption == Absorption::PowerLaw) {
            if (!fusedTerms()) {
                args(kPressureTerms, f.rho[0], f.rho[1], f.rho[2], f.du[0], f.du[1], f.du[2], f.rho0, u64(n));
                launch1(kPressureTerms, n);
            }
            // du[0] = sum(rho), du[1] = rho0 sum(du) -> du[1] = eta term, du[2] = tau term; du[0] stays.
            const bool fused = zFusedQ != 0;
            bell(f.du[0]);
            bell(f.du[1]);
            forwardComponents(f.du, f.duAll, 2, fused);
            cl::Kernel& k = fused ? kZAbsorptionTerms : kAbsorptionTerms;
            const cl::Buffer& n2 = f.storedNabla() ? f.nabla2 : f.waveNumbers2;
            const cl::Buffer& n1 = f.storedNabla() ? f.nabla1 : f.waveNumbers2;
            args(k, f.X[0], f.X[1], n2, n1, f.waveNumbers2);
            setReal(k, 5, sim.medium.alphaPower - 2.0);
            setArg(k, 6, u32(g.reducedNx()));
            setArg(k, 7, u32(g.ny));
            if (fused) launchLines(k);
            else {
                setArg(k, 8, u64(nr));
                setReal(k, 9, spectralScale);
                launchSpectral(k);
            }
            inverseComponents(f.du + 1, f.duTail, 2, fused);
        }
    }

    // p over planes [from, to).
    cl::Event updatePressure(std::size_t from, std::size_t to) {
        const std::size_t plane = planePoints();
        args(kPressure, f.p, f.rho[0], f.rho[1], f.rho[2], f.du[0], f.du[1], f.du[2], f.c2, f.rho0, f.bOnA, f.tau, u64(to * plane));
        const double y = sim.medium.alphaPower;
        setReal(kPressure, 12, y - 1.0);
        setReal(kPressure, 13, sim.medium.absorption == Absorption::PowerLaw ? std::tan(M_PI_2 * y) : 0.0);
        if (from == 0 && to == planeCount()) return ctx.launch(kPressure, cl::NDRange(n), local1);
        return ctx.launch(kPressure, cl::NDRange(from * plane), cl::NDRange((to - from) * plane), local1);
    }

    void addInitialPressure() {
        args(kInitialPressure, f.p, f.rho[0], f.rho[1], f.rho[2], f.p0, f.c2, u64(n));
        launch1(kInitialPressure, n);
        bell(f.p);
        r2c->execute(f.p, f.X[0], fft::Direction::Forward);
        gradientSpectra();
        inverseComponents(f.u, f.uAll, dims);
        args(kInitialVelocity, f.u[0], f.u[1], f.u[2], f.dtRho[0], f.dtRho[1], f.dtRho[2]);
        setReal(kInitialVelocity, 6, sim.dt);
        setArg(kInitialVelocity, 7, u64(n));
        launch1(kInitialVelocity, n);
    }

    // The field a sampler reads; for the non-staggered velocities, computed into du[0] (free while
    // sampling) from the spectrum of u times e^(-i k d/2) along its axis.
    const cl::Buffer& fieldForSampling(int field) {
        if (field < 4) return field == 0 ? f.p : f.u[field - 1];
        const int a = field - 4;
        if (!uBelled[a]) bell(f.u[a]);
        uBelled[a] = sub != nullptr;
        r2c->execute(f.u[a], f.X[0], fft::Direction::Forward);
        args(kUnstagger, f.X[0], f.shiftNeg[a], u32(a), u32(g.reducedNx()), u32(g.ny), u64(nr));
        launchSpectral(kUnstagger);
        c2r->execute(f.X[0], f.du[0], fft::Direction::Inverse);
        return f.du[0];
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
            ctx.wait(stepEnds.front(), "time step");
            stepEnds.pop_front();
        }
        pressureGradient(xFusedQ != 0);
        updateAndExchange([this](std::size_t a, std::size_t b) { return updateVelocity(a, b); }, xFusedQ == 0,
                          [this] { addVelocitySources(); }, velocitySourcesAct(), f.u, dims, realBytes);
        computeVelocityGradient();
        updateAndExchange([this](std::size_t a, std::size_t b) { return updateDensity(a, b); }, true, [this] { addPressureSource(); },
                          sim.p.length > t, f.rho, dims, bytesPerElement(f.st.rho, prec));
        absorptionTerms();
        // Without absorption p is a pointwise function of the densities, whose overlap planes came
        // from the neighbours, so its own need no exchange; at step 0 p0's went through the bell.
        const bool p0Step = t == 0 && !sim.p0.empty();
        if (sim.medium.absorption == Absorption::Lossless || p0Step) {
            updatePressure(0, planeCount());
            if (p0Step) {
                addInitialPressure();  // u from the gradient of p0, wrong on the overlap planes until exchanged
                exchangeNow(f.u, dims, realBytes);
                exchangeNow(&f.p, 1, realBytes);
            }
        } else {
            updateAndExchange([this](std::size_t a, std::size_t b) { return updatePressure(a, b); }, true, [] {}, false, &f.p, 1, realBytes);
        }
        // A subdomain samples even without sensor points of its own, so that its recording holds the
        // datasets (and the sample count) that the distributed gather expects from every rank.
        if (t >= opt.outputs.startIndex && (sub || !sensor->sensorless())) sensor->sample(sampledField);
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
        probeRead = ctx.readAsync(f.p, probeBytes, realBytes, "finite check");
        probeStep = t;
        probePending = true;
        if (wait) takeProbe();
    }

    void takeProbe() {
        ctx.wait(probeRead, "finite check");
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

    State saveState() {
        State s;
        s.timeIndex = t;
        s.fields = f.saveState();
        // Raw samples live in the recording; the aggregates are restored from it too.
        s.recording = sensor->recording(sampledField);
        return s;
    }

    void restoreState(const State& s) {
        requireDecomposition(s, "");
        f.restoreState(s.fields);
        t = s.timeIndex;
        sensor->restore(s.recording);  // waits for the queue first
        stepEnds.clear();
    }
};

KSpaceSolver::KSpaceSolver(Context& ctx, const Simulation& sim, const RunOptions& options)
    : impl_(std::make_unique<Impl>(ctx, sim, options)) {}
KSpaceSolver::KSpaceSolver(Context& ctx, const Simulation& sim, const RunOptions& options, const Subdomain* subdomain)
    : impl_(std::make_unique<Impl>(ctx, sim, options, subdomain)) {}
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
Recording KSpaceSolver::recording() { return impl_->sensor->recording(impl_->sampledField); }
std::size_t KSpaceSolver::deviceBytes() const { return impl_->deviceBytes(); }
KSpaceSolver::State KSpaceSolver::saveState() { return impl_->saveState(); }
void KSpaceSolver::restoreState(const State& state) { impl_->restoreState(state); }

}  // namespace portacl::kwave

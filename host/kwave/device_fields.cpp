#include "device_fields.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <sstream>

#include "k_space_operators.hpp"
#include "medium_upload.hpp"
#include "profile_keys.hpp"
#include "portacl/runtime/error.hpp"
#include "setup_trace.hpp"

namespace portacl::kwave {
namespace {

int code(StorageFormat f) { return static_cast<int>(f); }

std::vector<double> toDouble(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

}  // namespace

StoragePlan::StoragePlan(Storage s, bool storeOperators) : storedOperators(storeOperators) {
    if (s == Storage::Full) return;
    c2 = rho0 = bOnA = sourceKappa = StorageFormat::Half;
    p0 = signal = tau = nabla = StorageFormat::BFloat16;
    if (s == Storage::ReducedMid || s == Storage::ReducedMax) rho = StorageFormat::Half;
    if (s == Storage::ReducedMax) dtRho = kappa = StorageFormat::Half;
}

std::string StoragePlan::defines() const {
    std::ostringstream os;
    os << "-D ST_C2=" << code(c2) << " -D ST_RHO0=" << code(rho0) << " -D ST_BONA=" << code(bOnA)
       << " -D ST_TAU=" << code(tau) << " -D ST_NABLA=" << code(nabla) << " -D ST_RHO=" << code(rho)
       << " -D ST_DTRHO=" << code(dtRho) << " -D ST_KAPPA=" << code(kappa)
       << " -D ST_SKAPPA=" << code(sourceKappa) << " -D ST_P0=" << code(p0)
       << " -D ST_SIGNAL=" << code(signal) << " -D STORED_OPERATORS=" << (storedOperators ? 1 : 0);
    return os.str();
}

std::vector<double> absorbingField(const Simulation& sim, const MediumCoefficients& med, const StoragePlan& st) {
    const Absorption a = sim.medium.absorption;
    if (a == Absorption::Lossless) return {0.0};
    if (a == Absorption::Stokes) return med.tau;
    if (!st.storedOperators) return med.alpha2;
    std::vector<double> v(med.tau.size());  // tau = -2 alpha c^(y-1)
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = -med.tau[i];
    return v;
}

DeviceFields::DeviceFields(Context& c, const Simulation& s, const RunOptions& o)
    : ctx(c), sim(s), opt(o), g(s.grid), n(g.size()), nr(g.reducedSize()), dims(g.dimensions()),
      prec(o.precision), realBytes(o.precision == Precision::Double ? 8 : 4),
      st(o.storage, profileKey(c, o, "stored_operators", 0) != 0) {}

int DeviceFields::scratchFields() const { return sim.medium.absorption == Absorption::PowerLaw ? 3 : dims; }

std::size_t DeviceFields::estimateBytes() const {
    const Medium& m = sim.medium;
    auto grid = [&](const Field& f, StorageFormat fmt) { return f.values.size() * bytesPerElement(fmt, prec); };
    std::size_t b = n * realBytes * (1 + dims + scratchFields()) + n * bytesPerElement(st.rho, prec) * dims + nr * 2 * realBytes * dims;
    b += grid(m.c0, st.c2) + grid(m.rho0, st.rho0) + dims * grid(m.rho0Sgx, st.dtRho);
    if (m.nonlinear) b += grid(m.bOnA.scalar() ? m.rho0 : m.bOnA, st.bOnA);
    // 2 alpha is a grid where alpha is; tau and 2 alpha c^(y-1) where alpha or c0 is.
    if (m.absorption == Absorption::PowerLaw && !st.storedOperators) b += grid(m.alphaCoeff, st.tau);
    else if (m.absorption != Absorption::Lossless) b += grid(m.alphaCoeff.scalar() && m.c0.scalar() ? m.alphaCoeff : m.c0, st.tau);
    if (storedKappa()) b += nr * bytesPerElement(st.kappa, prec);
    if (storedNabla() && m.absorption == Absorption::PowerLaw) b += 2 * nr * bytesPerElement(st.nabla, prec);
    b += sim.p0.size() * bytesPerElement(st.p0, prec);
    return b;
}

// Host arrays first, so that the whole working set is checked against the device before any
// allocation.
void DeviceFields::allocate(std::size_t otherBytes) {
    additive = (sim.p.length && sim.p.mode == SourceMode::Additive) ||
               ((sim.u.length[0] || sim.u.length[1] || sim.u.length[2]) && sim.u.mode == SourceMode::Additive);
    // The per-point operators only where they are stored (the kernels form them from |k| otherwise).
    const KSpaceOperators ops(sim, true, {storedKappa(), additive, storedNabla()});
    const PerfectlyMatchedLayer layer(sim);
    traceSetup("the medium's first block");
    const MediumUpload medium(ctx, opt, sim, st);

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
            flat.push_back(c.real() * spectralScale);
            flat.push_back(c.imag() * spectralScale);
        }
        return encode(flat, StorageFormat::Element, prec);
    };
    auto indices = [](const std::vector<std::uint64_t>& v) {
        std::vector<unsigned char> b(v.size() * 8);
        if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
        return b;
    };

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
    const std::size_t rhoBytes = bytesPerElement(st.rho, prec);
    const std::size_t stateBytes = n * realBytes * (1 + dims + scratchFields()) + n * rhoBytes * dims + (additive ? n * realBytes : 0);
    const std::size_t spectrumBytes = nr * 2 * realBytes * dims;
    std::size_t total = stateBytes + spectrumBytes + otherBytes + medium.deviceBytes();
    for (const auto& up : uploads) total += up.bytes.size();
    ctx.checkFits(total, "this " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) +
                             " simulation");

    // The state, scratch fields and spectra in the memory the FFT backend wants (host memory for FFTW).
    auto alloc = [&](std::size_t bytes, const std::string& what) {
        deviceBytes += bytes;
        cl::Buffer b = fft::buffer(ctx, std::max<std::size_t>(bytes, 8), what, opt.fftBackend);
        ctx.fill(b, 0, std::max<std::size_t>(bytes, 8), "zero " + what);
        return b;
    };
    traceSetup("the medium's upload");
    deviceBytes += medium.deviceBytes();
    medium.upload(ctx, {&c2, &rho0, {&dtRho[0], &dtRho[1], &dtRho[2]}, &bOnA, &tau});
    for (auto& up : uploads) {
        deviceBytes += up.bytes.size();
        *up.target = ctx.buffer(std::max<std::size_t>(up.bytes.size(), 8), up.what);
        if (!up.bytes.empty()) ctx.write(*up.target, up.bytes.data(), up.bytes.size(), "upload " + up.what);
    }
    traceSetup("the state, the scratch fields and the spectra");
    p = alloc(n * realBytes, "p");
    const std::size_t align = ctx.subBufferAlignment();
    batched = dims > 1 && (n * realBytes) % align == 0 && (nr * 2 * realBytes) % align == 0;
    if (batched) {
        auto components = [&](cl::Buffer& all, cl::Buffer* parts, int count, std::size_t bytes, const std::string& what) {
            all = alloc(count * bytes, what);
            for (int a = 0; a < count; ++a) parts[a] = ctx.subBuffer(all, a * bytes, bytes, "field component");
        };
        components(uAll, u, dims, n * realBytes, "u_sg");
        components(duAll, du, scratchFields(), n * realBytes, "du");
        components(XAll, X, dims, nr * 2 * realBytes, "spectrum");
        if (scratchFields() == 3) duTail = ctx.subBuffer(duAll, n * realBytes, 2 * n * realBytes, "field component");
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
}

void DeviceFields::zeroState() {
    auto zero = [&](const cl::Buffer& b, std::size_t bytes) { ctx.fill(b, 0, bytes, "zero after warm-up"); };
    zero(p, n * realBytes);
    for (int a = 0; a < dims; ++a) {
        zero(u[a], n * realBytes);
        zero(rho[a], n * bytesPerElement(st.rho, prec));
        zero(X[a], nr * 2 * realBytes);
    }
    for (int a = 0; a < scratchFields(); ++a) zero(du[a], n * realBytes);
}

std::vector<double> DeviceFields::download(const cl::Buffer& b, std::size_t count, const std::string& what) {
    std::vector<unsigned char> bytes(count * realBytes);
    if (count) ctx.read(b, bytes.data(), bytes.size(), "download " + what);
    return decode(bytes, StorageFormat::Element, prec);
}

void DeviceFields::upload(cl::Buffer& b, const std::vector<double>& values, StorageFormat f, const std::string& what) {
    const auto bytes = encode(values, f, prec);
    if (!bytes.empty()) ctx.write(b, bytes.data(), bytes.size(), "upload " + what);
}

namespace {
const char* const kVelocityNames[3] = {"ux_sgx", "uy_sgy", "uz_sgz"};
const char* const kDensityNames[3] = {"rhox", "rhoy", "rhoz"};
}  // namespace

std::map<std::string, std::vector<double>> DeviceFields::saveState() {
    std::map<std::string, std::vector<double>> fields;
    fields["p"] = download(p, n, "p");
    for (int a = 0; a < dims; ++a) {
        fields[kVelocityNames[a]] = download(u[a], n, kVelocityNames[a]);
        std::vector<unsigned char> bytes(n * bytesPerElement(st.rho, prec));
        ctx.read(rho[a], bytes.data(), bytes.size(), "download rho");
        fields[kDensityNames[a]] = decode(bytes, st.rho, prec);
    }
    return fields;
}

void DeviceFields::restoreState(const std::map<std::string, std::vector<double>>& fields) {
    auto field = [&](const char* name) -> const std::vector<double>& {
        auto it = fields.find(name);
        if (it == fields.end() || it->second.size() != n)
            throw Error(std::string("the checkpoint lacks the field '") + name + "' of this grid");
        return it->second;
    };
    upload(p, field("p"), StorageFormat::Element, "p");
    for (int a = 0; a < dims; ++a) {
        upload(u[a], field(kVelocityNames[a]), StorageFormat::Element, kVelocityNames[a]);
        upload(rho[a], field(kDensityNames[a]), st.rho, kDensityNames[a]);
    }
}

}  // namespace portacl::kwave

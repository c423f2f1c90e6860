#include "k_space_operators.hpp"

#include <cmath>

namespace portacl::kwave {

double waveNumber(std::size_t i, std::size_t n, double d) {
    const long long half = static_cast<long long>(n / 2);
    const long long shifted = (static_cast<long long>(i) + half) % static_cast<long long>(n) - half;
    return 2.0 * M_PI * static_cast<double>(shifted) / (d * static_cast<double>(n));
}

KSpaceOperators::KSpaceOperators(const Simulation& sim, bool halfSpectrum, PerPointOperators perPoint) {
    const Grid& g = sim.grid;
    nxStored = halfSpectrum ? g.reducedNx() : g.nx;
    const std::size_t count = nxStored * g.ny * g.nz;
    const bool withKappa = perPoint.kappa;
    const bool absorbing = perPoint.nabla && sim.medium.absorption == Absorption::PowerLaw;
    const bool additive = perPoint.sourceKappa && ((sim.p.length && sim.p.mode == SourceMode::Additive) ||
                                                   ((sim.u.length[0] || sim.u.length[1] || sim.u.length[2]) && sim.u.mode == SourceMode::Additive));
    if (withKappa) kappa.resize(count);
    if (additive) sourceKappa.resize(count);
    if (absorbing) {
        nabla1.resize(count);
        nabla2.resize(count);
    }
    const double y = sim.medium.alphaPower;
    const double half = 0.5 * sim.cRef * sim.dt;
    for (std::size_t z = 0; z < (withKappa || additive || absorbing ? g.nz : 0); ++z) {
        const double kz = g.is3D() ? waveNumber(z, g.nz, g.dz) : 0.0;
        for (std::size_t yy = 0; yy < g.ny; ++yy) {
            const double ky = waveNumber(yy, g.ny, g.dy);
            for (std::size_t x = 0; x < nxStored; ++x) {
                const double kx = waveNumber(x, g.nx, g.dx);
                const double k = std::sqrt(kx * kx + ky * ky + kz * kz);
                const std::size_t i = x + nxStored * (yy + g.ny * z);
                const double arg = half * k;
                if (withKappa) kappa[i] = arg == 0.0 ? 1.0 : std::sin(arg) / arg;
                if (additive) sourceKappa[i] = std::cos(arg);
                if (absorbing) {
                    nabla1[i] = k == 0.0 ? 0.0 : std::pow(k, y - 2.0);
                    nabla2[i] = k == 0.0 ? 0.0 : std::pow(k, y - 1.0);
                }
            }
        }
    }
    const std::size_t lengths[3] = {nxStored, g.ny, g.nz};
    const std::size_t ns[3] = {g.nx, g.ny, g.nz};
    const double ds[3] = {g.dx, g.dy, g.dz};
    const std::complex<double> I(0.0, 1.0);
    for (int a = 0; a < 3; ++a) {
        ddPos[a].resize(lengths[a]);
        ddNeg[a].resize(lengths[a]);
        shiftNeg[a].resize(lengths[a]);
        for (std::size_t i = 0; i < lengths[a]; ++i) {
            const double k = (a == 2 && !g.is3D()) ? 0.0 : waveNumber(i, ns[a], ds[a]);
            ddPos[a][i] = I * k * std::exp(I * (0.5 * k * ds[a]));
            ddNeg[a][i] = I * k * std::exp(-I * (0.5 * k * ds[a]));
            // At the Nyquist bin of an even axis the shift is i: k-Wave's 1-D real transforms drop that
            // imaginary term; zero makes it explicit and keeps N-D transforms Hermitian.
            const bool nyquist = ns[a] % 2 == 0 && i == ns[a] / 2;
            shiftNeg[a][i] = nyquist ? std::complex<double>(0.0, 0.0) : std::exp(-I * (0.5 * k * ds[a]));
        }
    }
}

PerfectlyMatchedLayer::PerfectlyMatchedLayer(const Simulation& sim) {
    const Grid& g = sim.grid;
    const std::size_t ns[3] = {g.nx, g.ny, g.nz};
    const double ds[3] = {g.dx, g.dy, g.dz};
    for (int a = 0; a < 3; ++a) {
        regular[a].assign(ns[a], 1.0);
        staggered[a].assign(ns[a], 1.0);
        if (a == 2 && !g.is3D()) continue;
        const double size = static_cast<double>(sim.pml.size[a]);
        const double rate = 0.5 * sim.dt * sim.pml.alpha[a] * sim.cRef / ds[a];
        // Left strip: distance into the layer (size - i)/size; right strip: (i + 1)/size. The
        // staggered grid sits half a point further along the axis.
        auto left = [&](double i) { return std::exp(-rate * std::pow((i - size) / -size, 4)); };
        auto right = [&](double i) { return std::exp(-rate * std::pow((i + 1.0) / size, 4)); };
        for (std::size_t i = 0; i < sim.pml.size[a]; ++i) {
            const double fi = static_cast<double>(i);
            regular[a][i] = left(fi);
            staggered[a][i] = left(fi + 0.5);
            const std::size_t r = ns[a] - sim.pml.size[a] + i;
            regular[a][r] = right(fi);
            staggered[a][r] = right(fi + 0.5);
        }
    }
}

MediumCoefficients::MediumCoefficients(const Simulation& sim, bool withTauAndEta)
    : MediumCoefficients(sim, withTauAndEta, 0, sim.pointsHeld()) {}

MediumCoefficients::MediumCoefficients(const Simulation& sim, bool withTauAndEta, std::size_t first, std::size_t count) {
    const Medium& m = sim.medium;
    auto copy = [&](const Field& f) {
        if (f.values.size() <= 1) return std::vector<double>(f.values.begin(), f.values.end());
        const auto from = f.values.begin() + static_cast<std::ptrdiff_t>(first);
        return std::vector<double>(from, from + static_cast<std::ptrdiff_t>(count));
    };
    c2 = copy(m.c0);
    for (auto& c : c2) c *= c;
    rho0 = copy(m.rho0);
    const Field* sg[3] = {&m.rho0Sgx, &m.rho0Sgy, &m.rho0Sgz};
    for (int a = 0; a < sim.grid.dimensions(); ++a) {
        dtRho0Sg[a] = copy(*sg[a]);
        for (auto& r : dtRho0Sg[a]) r = sim.dt / r;
    }
    if (m.nonlinear) bOnA = copy(m.bOnA);
    if (m.absorption != Absorption::Lossless) {
        // alpha_coeff [dB/(MHz^y cm)] to Np/((rad/s)^y m), then tau = -2 alpha c^(y-1),
        // eta = 2 alpha c^y tan(pi y / 2).
        const double y = m.alphaPower;
        const double toNeper = 100.0 * std::pow(1.0e-6 / (2.0 * M_PI), y) / (20.0 * std::log10(std::exp(1.0)));
        alpha2 = copy(m.alphaCoeff);
        for (auto& a : alpha2) a *= 2.0 * toNeper;
        if (!withTauAndEta) return;
        const std::size_t n = (m.alphaCoeff.scalar() && m.c0.scalar()) ? 1 : count;
        tau.resize(n);
        if (m.absorption == Absorption::PowerLaw) eta.resize(n);
        const double tangent = std::tan(M_PI_2 * y);
        for (std::size_t i = 0; i < n; ++i) {
            const double alpha2 = 2.0 * toNeper * m.alphaCoeff.at(first + i);
            const double c = m.c0.at(first + i);
            tau[i] = -alpha2 * std::pow(c, y - 1.0);
            if (m.absorption == Absorption::PowerLaw) eta[i] = alpha2 * std::pow(c, y) * tangent;
        }
    }
}

}  // namespace portacl::kwave

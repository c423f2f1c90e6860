// Small k-Wave simulations shared by the k-Wave and conformance suites.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

#include "portacl/kwave.hpp"

namespace portacl::test {

inline kwave::Field scalarField(double v) { return kwave::Field{{static_cast<float>(v)}}; }

// A homogeneous water-like medium on an nx x ny x nz grid with a smooth ball of initial pressure,
// sampled at every seventh grid point.
inline kwave::Simulation ballSimulation(std::size_t nx, std::size_t ny, std::size_t nz, std::size_t nt) {
    kwave::Simulation s;
    s.grid.nx = nx;
    s.grid.ny = ny;
    s.grid.nz = nz;
    s.grid.dx = s.grid.dy = s.grid.dz = 1e-4;
    s.nt = nt;
    s.cRef = 1500;
    s.dt = 0.3 * s.grid.dx / s.cRef;
    s.medium.c0 = scalarField(1500);
    s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = s.medium.rho0Sgz = scalarField(1000);
    s.p0.assign(s.grid.size(), 0.0f);
    const double cx = nx / 2.0, cy = ny / 2.0, cz = nz / 2.0, r = std::min(nx, ny) / 5.0;
    for (std::size_t z = 0; z < nz; ++z)
        for (std::size_t y = 0; y < ny; ++y)
            for (std::size_t x = 0; x < nx; ++x) {
                const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy) + (nz > 1 ? (z - cz) * (z - cz) : 0.0);
                s.p0[x + nx * (y + ny * z)] = static_cast<float>(1e5 * std::exp(-d2 / (r * r)));
            }
    for (std::size_t i = 0; i < s.grid.size(); i += 7) s.sensor.index.push_back(i);
    return s;
}

// Makes a simulation heterogeneous, absorbing, nonlinear, with a PML.
inline void makeHard(kwave::Simulation& s, kwave::Absorption absorption = kwave::Absorption::PowerLaw) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> jitter(-1.0f, 1.0f);
    const std::size_t n = s.grid.size();
    auto field = [&](float base, float spread) {
        kwave::Field f;
        f.values.resize(n);
        for (auto& v : f.values) v = base + spread * jitter(rng);
        return f;
    };
    s.medium.c0 = field(1500, 100);
    s.medium.rho0 = field(1000, 80);
    s.medium.rho0Sgx = field(1000, 80);
    s.medium.rho0Sgy = field(1000, 80);
    if (s.grid.is3D()) s.medium.rho0Sgz = field(1000, 80);
    else s.medium.rho0Sgz = kwave::Field{};
    s.medium.nonlinear = true;
    s.medium.bOnA = field(6, 1);
    s.medium.absorption = absorption;
    s.medium.alphaCoeff = field(0.75f, 0.2f);
    s.medium.alphaPower = absorption == kwave::Absorption::Stokes ? 2.0 : 1.5;
    s.cRef = 1600;
    s.pml.size = {3, 3, s.grid.is3D() ? 3u : 0u};
    s.pml.alpha = {2, 2, 2};
}

}  // namespace portacl::test

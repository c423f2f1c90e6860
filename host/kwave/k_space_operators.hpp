// The precomputed operators of the k-space scheme, in double, shared by the device solver (which
// stores them on the R2C half-spectrum) and the serial reference (full spectrum):
//   kappa        = sinc(c_ref |k| dt / 2)                 (k-space correction)
//   source_kappa = cos(c_ref |k| dt / 2)                  (additive sources)
//   nabla1       = |k|^(y-2), nabla2 = |k|^(y-1), 0 at k=0 (power-law absorption)
//   dd*_shift_pos/neg = i k e^(+-i k d/2) per axis         (staggered derivatives)
//   *_shift_neg_r = e^(-i k d/2) per axis                  (velocity back to the regular grid)
// PerfectlyMatchedLayer: k-Wave's profile exp(-alpha c_ref/d (dt/2) ((distance)/size)^4) per axis on
// the regular and staggered grids. MediumCoefficients: c^2, dt/rho0_sg, tau and eta per point (or one
// value when homogeneous).
#pragma once

#include <array>
#include <complex>
#include <vector>

#include "portacl/kwave.hpp"

namespace portacl::kwave {

// The wavenumber of FFT bin i of an axis of n points spaced d (k-Wave's ifftshift convention: bin n/2
// of an even axis is the negative Nyquist frequency). Exported (PORTACL_API) for the tests.
PORTACL_API double waveNumber(std::size_t i, std::size_t n, double d);

// Which per-point operators to compute (each is a pass over the spectrum in double, gigabytes at
// 1024^3): sourceKappa only with an additive source and nabla only with the power law, even when asked.
struct PerPointOperators {
    bool kappa = true, sourceKappa = true, nabla = true;
};

struct KSpaceOperators {
    std::size_t nxStored = 0;  // nx/2+1 (half spectrum) or nx (full)
    std::vector<double> kappa, sourceKappa, nabla1, nabla2;  // nxStored * ny * nz, x fastest
    std::array<std::vector<std::complex<double>>, 3> ddPos, ddNeg;  // per axis: nxStored, ny, nz
    std::array<std::vector<std::complex<double>>, 3> shiftNeg;      // e^(-i k d/2): staggered to regular grid
    PORTACL_API KSpaceOperators(const Simulation& sim, bool halfSpectrum, PerPointOperators perPoint = {});  // exported for the fuzzers
};

struct PerfectlyMatchedLayer {
    std::array<std::vector<double>, 3> regular, staggered;  // per axis x, y, z (length nx, ny, nz)
    PORTACL_API explicit PerfectlyMatchedLayer(const Simulation& sim);  // exported for the fuzzers
};

struct MediumCoefficients {
    // One value when homogeneous, else one per grid point.
    std::vector<double> c2, rho0, bOnA, tau, eta;
    std::vector<double> alpha2;  // 2 alpha_coeff in Np/((rad/s)^y m), one value or one per point
    std::array<std::vector<double>, 3> dtRho0Sg;
    // tau and eta (two powers per point: most of the set-up's time on a large heterogeneous grid)
    // only when `withTauAndEta`: the reference and the paths that store tau need them, the device
    // kernels that form them from 2 alpha and c do not.
    explicit MediumCoefficients(const Simulation& sim, bool withTauAndEta = true);
    // Points [first, first + count) of the grid fields only (homogeneous ones keep their one value):
    // a block at a time, so that the host holds a block's coefficients rather than the grid's.
    MediumCoefficients(const Simulation& sim, bool withTauAndEta, std::size_t first, std::size_t count);
};

}  // namespace portacl::kwave

// The serial reference for the FFT: a direct O(N^2) discrete Fourier transform, accumulated in long
// double, with the conventions of include/portacl/fft.hpp (C order; forward e^{-2 pi i k.n/N},
// unscaled; inverse e^{+2 pi i k.n/N} scaled by 1/N). Slow by design: it checks, it does not compete.
#pragma once

#include "portacl/export.hpp"

#include <complex>
#include <cstddef>
#include <vector>

#include "portacl/fft.hpp"

// Exported from the library (PORTACL_API) for the tests, which hold the FFT backends to it.
namespace portacl::fft::reference {

// One complex array of `shape` (1 to 3 dimensions, C order).
PORTACL_API std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x, const std::vector<std::size_t>& shape,
                                                  Direction dir);

// One output bin of the forward transform of a real array: X[k] for the multi-index k (O(N)).
PORTACL_API std::complex<double> dftRealForwardAt(const std::vector<double>& x, const std::vector<std::size_t>& shape,
                                                  const std::vector<std::size_t>& k);

// Forward transform of a real array of `shape`: the half-spectrum, last dimension n/2+1.
PORTACL_API std::vector<std::complex<double>> dftRealForward(const std::vector<double>& x, const std::vector<std::size_t>& shape);

// Inverse transform of a half-spectrum (last dimension n/2+1) to a real array of `shape`: the full
// spectrum is rebuilt by Hermitian symmetry X[k] = conj(X[-k]), then transformed and scaled by 1/N.
PORTACL_API std::vector<double> dftRealInverse(const std::vector<std::complex<double>>& half, const std::vector<std::size_t>& shape);

}  // namespace portacl::fft::reference

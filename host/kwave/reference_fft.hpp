// The serial reference's own Fourier transform: an N-D complex DFT in double, one axis at a time,
// radix-2 where the axis length is a power of two and a direct DFT otherwise (small grids only).
// Same convention as numpy.fft.fftn: forward unscaled, inverse scaled by 1/N.
#pragma once

#include <array>
#include <complex>
#include <vector>

#include "portacl/export.hpp"

namespace portacl::kwave::reference {

using Spectrum = std::vector<std::complex<double>>;

// `shape` = {nx, ny, nz}, x fastest in memory. Exported (PORTACL_API) for the tests.
PORTACL_API void transform(Spectrum& data, const std::array<std::size_t, 3>& shape, bool inverse);

}  // namespace portacl::kwave::reference

// The two-point probability S2 of a phase: for a displacement d, the fraction of placements p at
// which both p and p + d lie in the phase (periodic: every pixel; non-periodic: the pixels with
// p + d inside, normalized by their number prod(n_i - |d_i|)). Computed as the autocorrelation of the
// phase indicator through the engine's FFT (zero-padded by ML when not periodic), on the same map
// layout as the lineal path result: index ((dz+MLz)*(2ML+1) + dy+ML)*(2ML+1) + dx+ML.
#pragma once

#include "portacl/export.hpp"

#include <vector>

#include "portacl/lineal_path.hpp"

namespace portacl::lineal {

// S2 for every displacement of the box [-ML, ML]^D, in float or double (Precision::Float/Double).
// Float sums of up to N products carry a relative error of about 1e-6; double about 1e-14.
PORTACL_API std::vector<double> twoPointProbability(Context& ctx, const PhaseImage& img, const Options& opt, Precision precision);
// Serial reference: direct sums of integer products (exact before the one division).
PORTACL_API std::vector<double> twoPointProbabilityReference(const PhaseImage& img, const Options& opt);

}  // namespace portacl::lineal

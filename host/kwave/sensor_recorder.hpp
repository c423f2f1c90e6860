// Sampling on the host: what each quantity ("p", "ux", "uy", "uz") records under an OutputSelection,
// and the serial sampler the reference solver uses. The device solver samples with its own kernels
// into the same Recording layout.
#pragma once

#include <string>
#include <vector>

#include "portacl/kwave.hpp"

namespace portacl::kwave {

struct QuantityOutputs {
    bool raw = false, rms = false, max = false, min = false, maxAll = false, minAll = false, final = false;
    bool any() const { return raw || rms || max || min || maxAll || minAll || final; }
    bool sampled() const { return raw || rms || max || min || maxAll || minAll; }
};

// The outputs of "p" or a velocity component.
QuantityOutputs outputsOf(const std::string& quantity, const OutputSelection& sel);

// The quantities of a simulation: "p", "ux", "uy" (and "uz" in 3-D), then the velocities moved to the
// regular grid, "ux_non_staggered", ... (--u_non_staggered_raw).
std::vector<std::string> quantities(const Grid& grid);
// 0 for p, 1 + axis for u on the staggered grid, 4 + axis for u moved to the regular grid.
int fieldOf(const std::string& quantity);

// Records one sampled step of `field` (grid-sized) into `rec` (sample number rec.samples, which the
// caller advances after all quantities are recorded).
void sampleOnHost(Recording& rec, const std::string& quantity, const QuantityOutputs& out,
                  const std::vector<std::uint64_t>& points, const double* field, std::size_t gridSize);

}  // namespace portacl::kwave

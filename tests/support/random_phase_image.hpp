// Seeded random two-phase images for the lineal-path suites.
#pragma once

#include <random>

#include "portacl/lineal_path.hpp"

namespace portacl::test {

// Each voxel is in the phase with probability `fraction`; voxel 0 is always in it, so the phase is
// present whatever the seed.
inline lineal::PhaseImage randomPhaseImage(int nz, int ny, int nx, double fraction, unsigned seed) {
    lineal::PhaseImage img;
    img.nz = nz;
    img.ny = ny;
    img.nx = nx;
    std::mt19937 rng(seed);
    std::bernoulli_distribution on(fraction);
    img.mask.resize(img.size());
    for (auto& m : img.mask) m = on(rng) ? 1 : 0;
    img.mask[0] = 1;
    return img;
}

}  // namespace portacl::test

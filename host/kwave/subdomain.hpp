// What the one-device solver does differently on one subdomain of the local Fourier basis
// decomposition (distributed/lfb_solver.cpp; docs/engineering/kwave.md, "The local Fourier basis
// decomposition"). The subdomain is a rank's slab of the slowest axis plus `below` and `above`
// overlap planes of its neighbours' slabs; the solver runs its ordinary step on it, with its own
// transforms, and
// - multiplies every field it transforms forward for a derivative (p, u, the absorption terms' two
//   inputs) by the bell over the overlap planes first, so that the field falls smoothly to zero at
//   the subdomain's ends and the periodic transform sees no jump there;
// - takes the slowest axis's PML profile from here (the whole grid's, over the planes held), not
//   from its own grid, so that the PML stays at the whole grid's edges;
// - after each update calls `exchange` with the fields it updated (u after the velocity and its
//   sources, rho after the density and its sources, p after the pressure unless the medium is
//   lossless, where p follows pointwise from rho; at step 0 with p0 also u, and p), which replaces
//   their overlap planes with the neighbours' values.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "portacl/kwave.hpp"

namespace portacl::kwave {

struct Subdomain {
    std::size_t below = 0, above = 0;  // overlap planes at the low and the high end of the slowest axis
    // The bell per overlap plane, counted from the subdomain's end inwards: bellBelow[0] is plane 0,
    // bellAbove[0] the last plane.
    std::vector<double> bellBelow, bellAbove;
    // The slowest axis's PML profile over the subdomain's planes, regular and staggered.
    std::vector<double> pml, pmlStaggered;
    // Replaces the overlap planes of `count` fields of `elementBytes` per point with the neighbours'.
    std::function<void(const cl::Buffer* fields, int count, std::size_t elementBytes)> exchange;
};

}  // namespace portacl::kwave

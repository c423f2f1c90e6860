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
// - after each update exchanges the overlap planes of the fields it updated (u after the velocity and
//   its sources, rho after the density and its sources, p after the pressure unless the medium is
//   lossless, where p follows pointwise from rho; at step 0 with p0 also u, and p): it updates the
//   planes the neighbours hold first, `send`s them, updates the rest of its own planes while they
//   move (the overlap planes are not updated: the exchange replaces them), and waits on the device
//   for `receive`'s writes only before the next command that reads the fields.
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
    // The rank's own planes that the neighbours hold as their overlap: its first `sendBelow` and its
    // last `sendAbove`.
    std::size_t sendBelow = 0, sendAbove = 0;
    // The exchange of `count` fields of `elementBytes` per point, in two halves. send: the planes the
    // neighbours need are read to the host once `ready` (an event of the solver's queue) has
    // completed, on a queue of their own, without waiting. receive: waits for those reads, moves the
    // planes and enqueues their writes into the overlap planes; returns the writes' events.
    // `lastWork`: the solver's last command before the writes are needed (null: none ran beside the
    // transfers), for the time the device waits on them.
    std::function<void(const cl::Buffer* fields, int count, std::size_t elementBytes, const cl::Event& ready)> send;
    std::function<std::vector<cl::Event>(const cl::Event* lastWork)> receive;
};

}  // namespace portacl::kwave

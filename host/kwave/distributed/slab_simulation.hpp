// One rank's part of a simulation: its slab of the grid as a Simulation of its own (the medium and p0
// cut to the slab, or taken as they are when the input was read for this slab alone; the sources and sensor points inside it, re-indexed to the slab, their signals and
// delays with them), which the one-device solver's medium coefficients and sensor sampler take as
// they are, and where each of its sensor points goes in the whole sensor's output order.
#pragma once

#include <vector>

#include "portacl/kwave.hpp"
#include "slab_layout.hpp"

namespace portacl::kwave::distributed {

struct SlabSimulation {
    // `below` and `above`: planes of the neighbours' slabs held besides the rank's own (the local
    // Fourier basis decomposition's overlap): the medium, p0 and the sources cover them too, the
    // sensor only the rank's own planes.
    SlabSimulation(const Simulation& whole, const SlabLayout& layout, std::size_t below = 0, std::size_t above = 0);

    Simulation slab;                            // grid nx x ny x (planes) or nx x (rows)
    std::vector<std::size_t> sensorPositions;   // slab sensor point j is point sensorPositions[j] of the whole sensor
    std::size_t wholeSensorPoints = 0;
};

// Rank r's sensor positions (SlabSimulation::sensorPositions) for each rank, from the whole sensor.
std::vector<std::vector<std::size_t>> sensorPositionsByRank(const Simulation& whole, const SlabLayout& layout);

}  // namespace portacl::kwave::distributed

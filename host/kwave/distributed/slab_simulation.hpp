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
    SlabSimulation(const Simulation& whole, const SlabLayout& layout);

    Simulation slab;                            // grid nx x ny x (planes) or nx x (rows)
    std::vector<std::size_t> sensorPositions;   // slab sensor point j is point sensorPositions[j] of the whole sensor
    std::size_t wholeSensorPoints = 0;
};

// Rank r's sensor positions (SlabSimulation::sensorPositions) for each rank, from the whole sensor.
std::vector<std::vector<std::size_t>> sensorPositionsByRank(const Simulation& whole, const SlabLayout& layout);

}  // namespace portacl::kwave::distributed

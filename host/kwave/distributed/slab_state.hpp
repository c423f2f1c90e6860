// The checkpoint state of a run over slab ranks (the global slabs' and the local Fourier basis's):
// every rank's own planes of the fields gathered into the whole grid's on rank 0, as one device's
// checkpoint holds them, and each rank's part of such a state taken back.
#pragma once

#include <string>
#include <vector>

#include "portacl/kwave.hpp"
#include "slab_simulation.hpp"

namespace portacl::kwave::distributed {

// Rank 0's st.fields[name] becomes the whole grid's field from every rank's `mine` (its own planes,
// in rank order); every rank calls it, with the names in the same order.
void gatherStateField(KSpaceSolver::State& st, const std::string& name, const std::vector<double>& mine);

// Points [first, first + count) of the state's whole-grid field `name` (of `gridPoints`); refuses
// (EveryRankError) a state without it.
std::vector<double> stateFieldPart(const KSpaceSolver::State& st, const std::string& name, std::size_t gridPoints, std::size_t first,
                                   std::size_t count);

// A rank's part of a whole run's recording: the series and aggregates of its own sensor points
// (`part`'s), and points [first, first + count) of the whole-grid datasets (`_all`, `_final`).
Recording recordingPart(const Recording& whole, const SlabSimulation& part, std::size_t gridPoints, std::size_t first, std::size_t count);

}  // namespace portacl::kwave::distributed

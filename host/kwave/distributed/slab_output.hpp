// What both distributed solvers (the global slabs, distributed_solver.cpp, and the local Fourier
// basis, lfb_solver.cpp) send rank 0 for the output file: the whole sensor's recording gathered from
// every rank's own points and planes, and the whole-grid datasets streamed a block of planes at a time.
#pragma once

#include <functional>
#include <vector>

#include "kwave/streamed_grid_fields.hpp"
#include "portacl/kwave.hpp"
#include "slab_layout.hpp"

namespace portacl::kwave::distributed {

// `local`: this rank's recording of its sensor points (SlabSimulation's order) and of its slab's
// planes of the whole-grid datasets. The whole recording on rank 0, in the one-device solver's
// layout; empty elsewhere. Collective.
Recording gatherRecording(const Recording& local, const Simulation& whole, const SlabLayout& l, std::size_t wholeSensorPoints);

// One whole-grid dataset to rank 0's `put`, in rounds: in each, every rank sends the next block of
// its slab's planes (`planes(from, to)`: planes [from, to) of the slab as floats), and rank 0 puts
// each rank's block where its planes lie. Rank 0 holds one round, about `roundBytes`. Collective.
void streamGridField(const std::function<std::vector<float>(std::size_t from, std::size_t to)>& planes, const SlabLayout& l,
                     std::size_t roundBytes, const StreamedGridFields::Sink& put);

}  // namespace portacl::kwave::distributed

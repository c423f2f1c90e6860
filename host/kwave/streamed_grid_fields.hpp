// The whole-grid datasets of an output file (*_max_all, *_min_all, *_final) written a block of planes
// at a time instead of from a recording that holds them whole: a distributed run's rank 0 writes each
// one as the ranks send it their slabs' planes, so that no rank holds a whole grid (a 1024^3 p_final
// is 4 GB in float, 8 in the recording's double).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "portacl/kwave.hpp"

namespace portacl::kwave {

struct StreamedGridFields {
    // Receives elements [first, first + count) of the grid (C order, whole planes).
    using Sink = std::function<void(std::size_t first, std::size_t count, const float* values)>;
    std::vector<std::string> names;  // the datasets, each Nz x Ny x Nx, in the order every rank streams them
    // Streams dataset `name` into `put`, which covers the grid once in ranges of whole planes. In a
    // distributed run every rank calls it for each name in turn; only rank 0's `put` is called.
    std::function<void(const std::string& name, const Sink& put)> write;
};

// writeOutputFile (kwave.hpp) with the datasets of `grids` streamed into the file besides the recording's.
void writeOutputFile(const std::string& path, const Simulation& sim, const OutputSelection& outputs, const Recording& recording,
                     const RunInfo& info, int compression, const StreamedGridFields& grids);

}  // namespace portacl::kwave

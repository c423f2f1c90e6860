// The local-memory tile kernels of 8-bit planes shaped for GPUs: rank-1 masks up to 9x9 with both
// passes in one kernel (cl/filter_separable_tile.cl) and the rotating mask up to 9x9
// (cl/filter_rotating_tile.cl). Each is chosen by a [filter] key of the profile (separable_tile,
// rotating_tile; on in NVIDIA's profiles, off elsewhere) before the register path and the tile
// kernels. Their results are the serial reference's bytes.
#pragma once

#include <cstddef>
#include <string>

#include "portacl/filter.hpp"

namespace portacl::filter {

// The separable tile: work-groups of groupX x groupY work-items, each 4 columns by `rows` rows of
// outputs. everyMask: every rank-1 mask, also those whose column sums fit int (box, binomial,
// integer user masks, which the register path runs in 16-bit lanes); else only those whose column
// sums need more (fixed-point Gaussians and decimal masks). doubleSums: those column sums in double
// (exact: every partial sum an integer below 2^51), for GPUs whose double units run at full rate.
struct SeparableTileLayout {
    int groupX = 32, groupY = 8, rows = 4;
    bool everyMask = false, doubleSums = false;
};

// The rotating tile: work-groups of groupX x groupY work-items over a tileX x tileY tile of outputs
// (tileX a multiple of 4); walkRows: output rows each work-item's walk down a column of window
// centres covers, 0 for the fewest that give every walk of the tile a work-item of its own (the
// work-group waits for its longest walk: 11 for tiles of 64 x 32 and 256 work-items). dotsFrom: windows
// at least that wide (0: none) take each staged row's sums as byte dot products of whole words, by
// NVIDIA's dp4a where dp4a.
// smallTileX: the tile width of windows up to 5x5 (0: tileX), whose walks fill a work-group
// better in tiles a little narrower.
struct RotatingTileLayout {
    int groupX = 16, groupY = 16, tileX = 64, tileY = 32, walkRows = 0, dotsFrom = 0, smallTileX = 0;
    bool dp4a = false;
};

// A kernel's defines and its launch, or empty defines when it does not take the operation.
struct TileKernel {
    std::string defines;
    std::size_t globalX = 0, globalY = 0, groupX = 0, groupY = 0;
};

// Both take planes of fewer than 2^31 samples (int offsets).
// Rank-1 masks (Linear, Single, rowFactor set) up to 9x9 on 8-bit planes with 8-bit output whose
// row sums fit int and whose tile fits `localBytes`, the device's local memory.
PORTACL_API TileKernel separableTileKernel(const Operation& op, io::PixelType in, int width, int height, Border border,
                                           const SeparableTileLayout& layout, std::size_t localBytes, bool fp64);

// The rotating mask up to 9x9 on 8-bit planes; the tile's rows are halved until it fits
// `localBytes`.
PORTACL_API TileKernel rotatingTileKernel(const Operation& op, io::PixelType in, int width, int height, Border border,
                                          const RotatingTileLayout& layout, std::size_t localBytes);

}  // namespace portacl::filter

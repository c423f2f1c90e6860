// The selection network of a tile of medians, shared as a tree (Adams 2021; Sugy 2025): the outputs
// of a work-item's tile have windows that overlap, and the median of each is found by merging sorted
// pieces of the overlap once for all the outputs that hold it, discarding at each step the values
// that can no longer be the median of any of them. The network is data-oblivious (min and max only),
// built here and written out as straight-line OpenCL C, appended to cl/filter_median_network.cl.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/export.hpp"
#include "portacl/filter.hpp"

namespace portacl::filter {

// A network over the (tileY + k - 1) x (tileX + k - 1) input patch of a tile of tileX x tileY
// outputs of a k x k median. Wire w < cells() is patch cell (w / patchWidth, w % patchWidth), row
// by row; compare-exchange i writes wire inputs() + 2 i (the smaller) and inputs() + 2 i + 1 (the
// larger). Only what the outputs need is kept: a comparison whose larger value nothing reads keeps
// its min alone (needMax false), and so on.
struct PORTACL_API MedianNetwork {
    struct Compare {
        int a = 0, b = 0;
        bool needMin = true, needMax = true;
    };
    int k = 0, tileX = 0, tileY = 0;
    // With sorted columns: the rows every output row of the tile shares ([tileY - 1, k - 1], of
    // coreLength() cells) of each patch column come in sorted, as inputs (the kernel sorts them once
    // for all the work-items that read them); 0: the network sorts them itself.
    bool sortedColumns = false;
    std::vector<Compare> compares;
    std::vector<int> outputs;  // the median's wire of output (y, x) at y * tileX + x
    // The network that sorts coreLength() values in place (sortedColumns), and its outputs in order.
    std::vector<Compare> coreSort;
    std::vector<int> coreSortOutputs;

    int patchWidth() const { return tileX + k - 1; }
    int patchHeight() const { return tileY + k - 1; }
    int coreLength() const { return k - tileY + 1; }
    int cells() const { return patchWidth() * patchHeight(); }
    // Wires cells() + c * coreLength() + i: column c's shared rows, i-th smallest (sortedColumns).
    int inputs() const { return cells() + (sortedColumns ? patchWidth() * coreLength() : 0); }
    // min and max operations the tile takes (what the kernel executes), and per output.
    std::size_t operations() const;
    double operationsPerOutput() const { return static_cast<double>(operations()) / (tileX * tileY); }

    // The medians of one patch (row by row, patchHeight() x patchWidth() values): tileY x tileX.
    std::vector<std::uint16_t> evaluate(const std::vector<std::uint16_t>& patch) const;
    // The network as the OpenCL C function `void median_network(MEDIAN_NETWORK_PARAMS)`: patch
    // cell (r, c) read as `LANE_T wN = MEDIAN_LOAD(r, c);`, then `LANE_T wN = LANE_MIN(wA, wB);` and
    // `LANE_MAX` in order, then `MEDIAN_STORE(y, x, wN);` for each output. The kernel file defines
    // the four macros and the type (cl/filter_median_network.cl). With sortedColumns, the sorted
    // inputs are read as `MEDIAN_LOAD_SORTED(c, i)`, and a second function
    // `void median_sort_core(LANE_T* v)` sorts coreLength() values in place.
    std::string openclFunction() const;
};

// k odd, at least 3; tileX and tileY at least 1 (with sortedColumns, tileY at most k).
PORTACL_API MedianNetwork buildMedianNetwork(int k, int tileX, int tileY, bool sortedColumns = false);

// The [filter] keys median_network (on), median_network_min and _max (the windows it takes),
// median_network_tile_x and _y (a lane's tile), median_network_tile_x_large (the tile's width for
// windows of 13 x 13 and up; 0: tile_x), median_network_group_x and _y (the work-group),
// median_network_u16x2 (NVIDIA's packed 16-bit min and max, compute capability 9.0) and
// median_network_sorted_columns.
struct PORTACL_API MedianNetworkLayout {
    bool enabled = false;
    int minWindow = 7, maxWindow = 11;
    int tileX = 4, tileY = 2, groupX = 16, groupY = 8;
    int largeTileX = 0;  // the tile's width for windows of 13 x 13 and up (0: tileX)
    bool u16x2 = false;
    bool sortedColumns = false;  // median_network_sorted_columns: each column's shared rows sorted once a work-group
    bool valid() const;
    // The layout of a k x k window: largeTileX wide from 13 x 13 where it is set.
    MedianNetworkLayout forWindow(int k) const;
    // The work-group's patch of the image in local memory, for a k x k window.
    std::uint64_t localBytes(int k) const;
    bool fits(std::size_t maxWorkGroupSize, std::uint64_t localMemBytes) const;
    // Whether op on a plane of type `in` takes the network: an 8-bit square median within the windows.
    bool takes(const Operation& op, io::PixelType in) const;
    // The kernel's defines (cl/filter_median_network.cl) for a k x k median under `border`.
    std::string defines(int k, Border border) const;
    // Outputs a work-group covers: groupX * tileX by groupY * 2 * tileY (two lanes, one tile above the other).
    int groupOutputsX() const { return groupX * tileX; }
    int groupOutputsY() const { return groupY * 2 * tileY; }
};

}  // namespace portacl::filter

// Medians of large windows of 8-bit planes from histograms (cl/filter_median.cl): which medians the
// profile sends there, by which of the three kernels, and their defines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "portacl/filter.hpp"

namespace portacl::filter {

// The [filter] keys median_histogram (method), median_histogram_min (minWindow),
// median_histogram_segment, median_histogram_band and median_histogram_group. (Exported,
// PORTACL_API, for the tests.)
struct PORTACL_API MedianHistogramLayout {
    // 0: off (the networks and the bitwise search keep every median); 1: the CPU kernel, a work-item a
    // band of rows by `segment` columns with a histogram per column (Perreault and Hébert); 2: the
    // portable kernel, a work-item an output column walking down `band` rows, its histogram in local
    // memory; 3: the GPU kernel, a work-group `group` output columns walking down `band` rows with a
    // histogram per column of its tile in local memory. Work-groups of `group` work-items along the
    // row (the pipeline's default: 1 for method 1, 64 for methods 2 and 3). Bands: the pipeline's
    // default is 24 rows, 32 for method 3.
    int method = 0;
    int minWindow = 7;  // windows of at least minWindow x minWindow
    int segment = 256, band = 24, group = 64;
    bool valid() const;
    // The local memory a work-group takes: method 2, 272 bytes (16 coarse and 256 fine byte counts) a
    // work-item; method 3, 272 bytes for each column of its tile and of the largest window's (15x15) 7
    // columns either side, so that one layout serves every window; method 1 and off, none.
    std::uint64_t localBytes() const;
    // valid(), in work-groups of at most maxWorkGroupSize work-items whose localBytes() fit localMemBytes.
    bool fits(std::size_t maxWorkGroupSize, std::uint64_t localMemBytes) const;
    // Method 1: at least `band` rows, as tall as 4 bands per compute unit allow (a band's first rows
    // fill its column histograms, 2 RX rows of work that no output shares). Methods 2 and 3: `band`.
    int bandFor(int imageHeight, unsigned computeUnits) const;
};

// The kernel's name and defines for `op` on a plane of type `in` under `border`, or an empty name
// when the layout does not take it: not a median, not 8-bit, a window under minWindow, method 0.
struct MedianHistogramKernel {
    std::string name, defines;
};
PORTACL_API MedianHistogramKernel medianHistogramKernel(const Operation& op, io::PixelType in, Border border, const MedianHistogramLayout& layout);

}  // namespace portacl::filter

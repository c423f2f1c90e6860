// The row-band path of 8-bit planes, shaped for CPU devices (cl/filter_rows.cl): which operations
// it takes, and the defines that specialise the kernel to one of them.
#pragma once

#include <string>

#include "portacl/filter.hpp"

namespace portacl::filter {

// One work-item's task: `band` output rows (median3Band for the 3x3 median) by `segment` columns,
// walked a vector of 16, 32 or 64 bytes side by side at a time: medianVector for the medians,
// rowVector for rank-1 masks wider than one column (their row pass loads KW unaligned vectors per
// row), doubleVector for those whose column sums are in double, linearVector for the other linear
// masks (2-D masks, 1-D columns). The segment is a multiple of each. (Exported, PORTACL_API, for
// the tests.)
struct PORTACL_API RowsLayout {
    int band = 24, median3Band = 8, segment = 8192, medianVector = 16, linearVector = 16, rowVector = 16, doubleVector = 16;
    // windowBytes > 0: the other operations' bands grow (from `band`) until a walk's rows, the band's
    // and the window's, span windowBytes of the image (the read streams the hardware prefetchers
    // follow), but leave at least 4 bands per compute unit.
    int windowBytes = 0;
    // Rank-1 masks with non-negative weights whose column sums pass 31 bits (fixed-point Gaussians):
    // 1 estimates the column sums in float and takes them exactly (in double) only where the
    // estimate lies near a rounding boundary; 0 takes every one in double; 2 takes the estimate's
    // path with every vector sent to the exact sums (how the tests check that fallback alone).
    int estimate = 1;
    // walkSegment > 0: rank-1 masks walk along the rows instead (HWALK), each work-item a segment of
    // this many columns (a multiple of every vector) by a band of walkBandFor rows.
    int walkSegment = 0;
    // Vectors of 32 and 64 bytes are clang's extended vectors, which only some compilers take
    // (PoCL's, Intel's CPU runtime's: their profiles' cpu_rows_extended_vectors = 1); without them
    // every vector is OpenCL C's 16.
    bool extendedVectors = false;
    bool valid() const;
    int bandFor(const Operation& op, int imageWidth, int imageHeight, unsigned computeUnits) const;
    // The walk along the rows' band: at least `band` rows, as tall as 4 bands per compute unit allow.
    int walkBandFor(int imageHeight, unsigned computeUnits) const;
};

// The kernel's defines for `op` on an imageWidth x imageHeight plane of type `in` under `border`,
// or "" when the path does not take it: other depths or outputs; combine rules other than one mask;
// masks over 9 taps a side; sums that could leave 32 bits (for rank-1 masks: 53 bits with `fp64`
// and a divisor that is a power of two, the column sums then in double); medians other than 3x3
// and 5x5; images narrower than the vector, or not wider and taller than the window's radius.
// (Exported, PORTACL_API, for the tests.)
PORTACL_API std::string rowsDefines(const Operation& op, io::PixelType in, int imageWidth, int imageHeight, Border border,
                                    const RowsLayout& layout, bool fp64);

}  // namespace portacl::filter

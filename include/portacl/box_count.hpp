// Box counting of a binary 3-D volume and the fractal dimension fitted to it.
//
// Conventions. A box of side s (in voxels) belongs to the grid anchored at voxel (0, 0, 0): box
// (i, j, k) covers voxels [i*s, (i+1)*s) along each axis, and boxes cut by the volume's far edges
// are kept (judged on their voxels inside). N(s) counts the boxes that hold at least one object
// voxel (Count::Occupied, the classic count of Hou et al. and of BoneJ) or, with Count::Mixed, the
// boxes that hold both object and background voxels (porespy's metrics.boxcount, which counts the
// boxes an interface crosses). The grid-offset placements shift the grid back by s/2 (integer
// division) along any subset of the three axes: 8 placements {0, s/2}^3 per side, whose mean count
// reduces the bias of one grid's placement. The dimension is D = -slope of the least-squares line
// through (log s, log N(s)) over the sizes of the fit range whose count is positive.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/io/binary_volume.hpp"
#include "portacl/runtime/context.hpp"

namespace portacl::boxcount {

enum class Count { Occupied, Mixed };

struct PORTACL_API Options {
    // Box sides in voxels, increasing; empty: 1, 2, 4, ... up to the first power of two that covers
    // the largest extent (one box). Powers of two use the device's pyramid; other sides a scan per
    // box, or runs along each axis when they have few boxes.
    std::vector<int> sizes;
    Count count = Count::Occupied;
    bool offsetAverage = false;  // also count the 8 placements {0, s/2}^3 of each side and their mean
    int fitMin = 0, fitMax = 0;  // fit over the sizes in [fitMin, fitMax]; 0: no bound
};

// The least-squares line through (log s, log N) over the fit range.
struct PORTACL_API Fit {
    double dimension = 0;  // -slope
    double intercept = 0;  // log N at s = 1 on the line
    double r2 = 0;         // coefficient of determination (1 when only two points)
    int first = 0, last = 0;  // the smallest and largest side fitted
    int points = 0;
};

struct PORTACL_API Result {
    std::vector<int> sizes;
    std::vector<std::uint64_t> counts;  // N(s), grid at the origin
    // With offsetAverage: the mean and the minimum over the 8 placements (side 1: N(1) itself).
    std::vector<double> offsetMean;
    std::vector<std::uint64_t> offsetMin;
    Fit fit;        // on counts
    Fit offsetFit;  // on offsetMean (offsetAverage only)
    // -d log N / d log s between consecutive sizes: localSlopes[i] belongs to sizes i and i + 1.
    std::vector<double> localSlopes;
};

// The sizes used when Options::sizes is empty.
PORTACL_API std::vector<int> defaultSizes(const io::BinaryVolume& v);
// Throws one sentence for what cannot be counted: a malformed mask, an empty object, sides that are
// not positive and increasing, a fit range holding fewer than two sizes, a volume of 2^32 voxels or more.
PORTACL_API void validate(const io::BinaryVolume& v, const Options& opt);

// On the device: the pyramid of box codes for powers of two, a scan per box or runs along each axis
// for other sides.
PORTACL_API Result boxCount(Context& ctx, const io::BinaryVolume& v, const Options& opt);
// The same for a mask already on the device: nz*ny*nx bytes, 0 or 1, C order. Throws when the fit
// finds fewer than two positive counts (an empty object).
PORTACL_API Result boxCount(Context& ctx, const cl::Buffer& mask, int nz, int ny, int nx, const Options& opt);
// Serial C++ reference: every voxel marks its box, for every side and placement.
PORTACL_API Result boxCountReference(const io::BinaryVolume& v, const Options& opt);

// The fit of `counts` over the sizes in [fitMin, fitMax] (0: no bound) with positive counts; throws
// one sentence when fewer than two remain.
PORTACL_API Fit fitDimension(const std::vector<int>& sizes, const std::vector<double>& counts, int fitMin, int fitMax);
PORTACL_API std::vector<double> localSlopes(const std::vector<int>& sizes, const std::vector<double>& counts);

// The log-log plot of N(s) (filled squares, blue) with the fitted line over its range, and with
// offsetAverage the 8-placement mean (hollow squares, orange) and its line; the legend gives each
// dimension, R² and fit range. Any format io::writeImage takes (.png, ...), written atomically.
PORTACL_API void writePlot(const std::string& path, const Result& r);

// The object's surface: object voxels with a background voxel among their 6 face neighbours inside
// the volume (the volume's own faces are not a surface).
PORTACL_API io::BinaryVolume surfaceOf(const io::BinaryVolume& v);

}  // namespace portacl::boxcount

// The lineal path function L of one phase of a 2-D or 3-D image (Lu & Torquato 1992): for a
// displacement d, the fraction of placements p at which the whole digital segment from p to p + d
// lies in the phase. Segments are Bresenham lines (see bresenhamSegment for the tie rule); every
// displacement with |dz|, |dy|, |dx| <= maxLength is evaluated (the full map), and the counts are
// exact integers on every device, so every device gives identical numbers.
//
// Conventions: arrays are C order (z, y, x), x fastest. A 2-D image has nz = 1 and its maps have one
// z layer. Periodic images wrap (the torus of the thesis): every pixel is a placement. Non-periodic
// images count only placements whose whole segment lies inside the image, normalized by their number.
#pragma once

#include "portacl/export.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "portacl/io/volume.hpp"
#include "portacl/runtime/context.hpp"

namespace portacl::lineal {

// A phase indicator on a grid: mask[(z*ny + y)*nx + x] is 1 where the pixel belongs to the phase.
struct PORTACL_API PhaseImage {
    int nz = 1, ny = 0, nx = 0;
    std::vector<std::uint8_t> mask;

    bool is3d() const { return nz > 1; }
    std::size_t size() const { return std::size_t(nz) * std::size_t(ny) * std::size_t(nx); }
    std::uint8_t at(int z, int y, int x) const { return mask[(std::size_t(z) * ny + y) * nx + x]; }
    std::uint64_t phaseCount() const;
};

// The phase of a labelled image: pixels equal to `label`. Throws one sentence when no pixel has it.
PORTACL_API PhaseImage phaseByLabel(const io::Volume& v, double label);
// The phase of a grey image: pixels >= `threshold`. Throws one sentence when the threshold leaves a
// single phase (every pixel above or every pixel below it).
PORTACL_API PhaseImage phaseByThreshold(const io::Volume& v, double threshold);

// A displacement or pixel offset (dz, dy, dx).
using Offset = std::array<int, 3>;

// The Bresenham segment from the origin to d, both end points included, max(|d|) + 1 pixels.
// Rule (the thesis's eqs. 12-13, the same as GooseEYE's path(..., Bresenham)): the major axis is the
// one with the largest |d|; each minor axis keeps an error term e = 2|d_minor| - |d_major| and steps
// whenever e >= 0 before a major step (a tie steps diagonally), then e += 2|d_minor| (- 2|d_major|
// after a minor step). Negative components mirror the first-octant path, so segment(-d) = -segment(d).
PORTACL_API std::vector<Offset> bresenhamSegment(const Offset& d);

struct PORTACL_API Options {
    int maxLength = 0;      // ML: every displacement with all |components| <= ML
    bool periodic = false;
};

// Counts for every displacement of the box [-ML, ML]^D (D = 2: dz = 0 only).
struct PORTACL_API Result {
    int nz = 1, ny = 0, nx = 0;      // the image
    int maxLength = 0;
    bool periodic = false;
    // Map dimensions (2*MLz+1, 2*ML+1, 2*ML+1), MLz = 0 in 2-D; index of d is
    // ((dz+MLz)*(2ML+1) + dy+ML)*(2ML+1) + dx+ML.
    int mz = 1, my = 0, mx = 0;
    std::vector<std::uint64_t> count;  // placements whose whole segment lies in the phase
    std::vector<std::uint64_t> tried;  // placements tried (N when periodic, prod(n_i - |d_i|) otherwise)

    int mlz() const { return (mz - 1) / 2; }
    std::size_t index(int dz, int dy, int dx) const {
        return (std::size_t(dz + mlz()) * my + std::size_t(dy + maxLength)) * mx + std::size_t(dx + maxLength);
    }
    double L(std::size_t i) const { return tried[i] ? double(count[i]) / double(tried[i]) : 0.0; }
    double L(int dz, int dy, int dx) const { return L(index(dz, dy, dx)); }
    std::vector<double> map() const;  // L for every displacement, in map order
};

// Rejects what cannot be evaluated with one sentence: an empty image, a phase absent from it, or ML
// negative or too large (periodic: ML <= every extent; non-periodic: ML < every extent).
PORTACL_API void validate(const PhaseImage& img, const Options& opt);

// On the device: bit-packed rows, per-run AND of precomputed run tables (see cl/lineal_path.cl).
PORTACL_API Result linealPath(Context& ctx, const PhaseImage& img, const Options& opt);
// Serial C++ reference: every displacement, every placement, every pixel of the segment.
PORTACL_API Result linealPathReference(const PhaseImage& img, const Options& opt);

// Exact counts for one segment given as pixel offsets (any set, not only Bresenham), serially: the
// number of placements p (fully inside when not periodic) with every p + o in the phase. Used by the
// reference and by tests that emulate other estimators.
PORTACL_API std::uint64_t countSegment(const PhaseImage& img, const std::vector<Offset>& offsets, bool periodic,
                                       std::uint64_t* tried = nullptr);

// Orientation average: bin k holds the displacements with k - 1/2 <= |d|/binWidth < k + 1/2 and
// |d| <= ML; L(bin) = sum of counts / sum of placements tried over the bin.
struct PORTACL_API RadialProfile {
    double binWidth = 1;
    std::vector<double> radius;        // bin centre
    std::vector<double> L;
    std::vector<std::uint64_t> vectors;  // displacements in the bin
};
PORTACL_API RadialProfile radialProfile(const Result& r, double binWidth = 1.0);

// L along one direction u: L(k*u) for k = 0..ML.
struct PORTACL_API DirectionProfile {
    std::string name;  // "x", "y", "z", "xy", "x-y", "xyz"
    Offset unit;
    std::vector<double> L;
};
// 2-D: x, y, xy, x-y (the two diagonals); 3-D adds z, xz, yz and xyz.
PORTACL_API std::vector<DirectionProfile> directionProfiles(const Result& r);

}  // namespace portacl::lineal

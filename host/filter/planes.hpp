// Channel planes of an image, as the serial reference holds them (one double per sample: integer
// planes hold integers, float planes float-representable values), and the small rules shared by
// the reference and the kernels' host side.
#pragma once

#include <cmath>
#include <vector>

#include "portacl/io/image.hpp"

namespace portacl::filter {

struct Plane {
    int width = 0, height = 0;
    io::PixelType type = io::PixelType::U8;
    std::vector<double> values;
};

inline Plane makePlane(int w, int h, io::PixelType t) { return Plane{w, h, t, std::vector<double>(static_cast<std::size_t>(w) * h)}; }

// The stored value of v in type t: integers clamped to the type's range (v is already integral on
// integer paths), floats rounded to float.
inline double saturate(double v, io::PixelType t) {
    if (t == io::PixelType::F32) return static_cast<double>(static_cast<float>(v));
    const double hi = t == io::PixelType::U16 ? 65535.0 : 255.0;
    if (!(v > 0)) return 0;  // NaN too
    return v >= hi ? hi : std::nearbyint(v);
}

// atan2(gy, gx) in degrees, in [0, 360).
template <typename Real>
double directionDegrees(Real gx, Real gy) {
    Real a = std::atan2(gy, gx) * static_cast<Real>(57.29577951308232);
    if (a < 0) a += static_cast<Real>(360);
    if (a >= static_cast<Real>(360)) a -= static_cast<Real>(360);
    return static_cast<float>(a);
}

// 0.299 R + 0.587 G + 0.114 B: integers exactly, (299R + 587G + 114B + 500) / 1000 (or floor);
// floats in Real.
template <typename Real>
double greyValue(double r, double g, double b, io::PixelType t, bool floorIt) {
    if (t == io::PixelType::F32)
        return static_cast<float>(static_cast<Real>(0.299) * static_cast<Real>(r) + static_cast<Real>(0.587) * static_cast<Real>(g) +
                                  static_cast<Real>(0.114) * static_cast<Real>(b));
    const long long s = 299LL * static_cast<long long>(r) + 587LL * static_cast<long long>(g) + 114LL * static_cast<long long>(b);
    return static_cast<double>(floorIt ? s / 1000 : (s + 500) / 1000);
}

// Splits interleaved channels into planes; colourPlanes = the planes that are filtered (alpha of
// grey+alpha and RGBA passes through).
std::vector<Plane> splitPlanes(const io::Image& img, int& colourPlanes);
io::Image joinPlanes(const std::vector<Plane>& planes);

}  // namespace portacl::filter

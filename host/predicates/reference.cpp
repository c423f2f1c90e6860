// The exact serial predicates: every finite float is an integer multiple of 2^-149, so scaling all
// coordinates by 2^149 (which multiplies orient3d's determinant by 2^447 and insphere's by 2^745,
// both positive) turns them into integers below 2^278, and the determinants are evaluated exactly
// in arbitrary-precision integers (boost::multiprecision::cpp_int). No floating-point error
// analysis is involved, which makes this an independent check of the device's filters.
#include <cmath>

#if defined(__GNUC__) && !defined(__clang__)
// GCC reports a false "may be used uninitialized" inside cpp_int's small-value storage.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/multiprecision/cpp_int.hpp>

#include "portacl/predicates.hpp"

namespace portacl::predicates {

namespace {

using Int = boost::multiprecision::cpp_int;

// x * 2^149 as an exact integer.
Int scaled(float x) {
    if (x == 0.0f) return 0;
    int exponent = 0;
    const double fraction = std::frexp(static_cast<double>(x), &exponent);  // x = fraction * 2^exponent
    const auto mantissa = static_cast<std::int64_t>(std::ldexp(fraction, 53));  // exact: 24 bits used
    Int v = mantissa;
    const int shift = exponent - 53 + 149;  // x * 2^149 = mantissa * 2^shift, an integer
    if (shift >= 0) return v << shift;
    return v >> -shift;  // exact: the dropped bits of mantissa are zero
}

struct P {
    Int x, y, z;
};
P point(const float* p) { return {scaled(p[0]), scaled(p[1]), scaled(p[2])}; }
P minus(const P& a, const P& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

int sign(const Int& v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

}  // namespace

int orient3dExact(const float* pa, const float* pb, const float* pc, const float* pd) {
    const P d = point(pd);
    const P a = minus(point(pa), d), b = minus(point(pb), d), c = minus(point(pc), d);
    const Int det = a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x);
    return sign(det);
}

int insphereExact(const float* pa, const float* pb, const float* pc, const float* pd, const float* pe) {
    const P e = point(pe);
    const P a = minus(point(pa), e), b = minus(point(pb), e), c = minus(point(pc), e), d = minus(point(pd), e);
    // det [a, |a|^2; b, |b|^2; c, |c|^2; d, |d|^2] by cofactors along the lift column:
    // -|a|^2 det[b;c;d] + |b|^2 det[a;c;d] - |c|^2 det[a;b;d] + |d|^2 det[a;b;c].
    auto det3 = [](const P& p, const P& q, const P& r) {
        return p.x * (q.y * r.z - q.z * r.y) - p.y * (q.x * r.z - q.z * r.x) + p.z * (q.x * r.y - q.y * r.x);
    };
    auto lift = [](const P& p) { return p.x * p.x + p.y * p.y + p.z * p.z; };
    const Int det = -lift(a) * det3(b, c, d) + lift(b) * det3(a, c, d) - lift(c) * det3(a, b, d) +
                    lift(d) * det3(a, b, c);
    return sign(det);
}

std::vector<std::int8_t> evaluateReference(Predicate p, const std::vector<float>& points,
                                           const std::vector<std::uint32_t>& queries) {
    const std::size_t k = arity(p), n = queries.size() / k;
    std::vector<std::int8_t> signs(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t* q = &queries[k * i];
        const float* pts = points.data();
        signs[i] = static_cast<std::int8_t>(
            p == Predicate::Orient3d
                ? orient3dExact(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3])
                : insphereExact(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3], pts + 3 * q[4]));
    }
    return signs;
}

}  // namespace portacl::predicates

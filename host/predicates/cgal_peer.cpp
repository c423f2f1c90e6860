// The predicates bench's CPU peer: CGAL's filtered predicates (Epick: interval arithmetic first, exact
// arithmetic where the interval cannot decide), what a geometry user calls, one query after another
// on one core. The engine's signs are Shewchuk's: orient3d positive when d lies below the plane of
// a, b, c (seen from above, they turn counterclockwise), where CGAL's orientation is negative, and
// insphere positive for e inside the sphere of a, b, c, d when orient3d(a, b, c, d) is positive,
// which is CGAL's orientation negative, where side_of_oriented_sphere is negative: both of CGAL's
// signs are negated, and the bench checks them against the exact ones.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>

#include "portacl/predicates.hpp"

namespace portacl::predicates {

std::vector<std::int8_t> evaluateCgal(Predicate p, const std::vector<float>& points, const std::vector<std::uint32_t>& queries) {
    using K = CGAL::Exact_predicates_inexact_constructions_kernel;
    const std::size_t k = arity(p), n = queries.size() / k;
    const auto point = [&](std::uint32_t i) { return K::Point_3(points[3 * i], points[3 * i + 1], points[3 * i + 2]); };
    std::vector<std::int8_t> signs(n);
    for (std::size_t q = 0; q < n; ++q) {
        const std::uint32_t* v = &queries[q * k];
        if (p == Predicate::Orient3d)
            signs[q] = static_cast<std::int8_t>(-CGAL::orientation(point(v[0]), point(v[1]), point(v[2]), point(v[3])));
        else
            signs[q] = static_cast<std::int8_t>(
                -CGAL::side_of_oriented_sphere(point(v[0]), point(v[1]), point(v[2]), point(v[3]), point(v[4])));
    }
    return signs;
}

}  // namespace portacl::predicates

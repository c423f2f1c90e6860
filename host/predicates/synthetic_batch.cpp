#include <random>

#include "portacl/predicates.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::predicates {

Batch syntheticBatch(Predicate p, std::size_t n, std::size_t cloud, double degenerateFraction, unsigned seed) {
    if (!(degenerateFraction >= 0.0 && degenerateFraction <= 1.0))
        throw Error("the degenerate fraction must lie between 0 and 1, but " + std::to_string(degenerateFraction) +
                    " was given");
    if (cloud < arity(p))
        throw Error("a synthetic batch needs a cloud of at least " + std::to_string(arity(p)) + " points");
    Batch b;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> coord(-100.0f, 100.0f);
    b.points.reserve(3 * (cloud + 256 + 18));
    for (std::size_t i = 0; i < cloud; ++i) b.points.insert(b.points.end(), {coord(rng), coord(rng), coord(rng)});
    // Degenerate points: a 16 x 16 integer grid on the plane z = 3x - 2y + 7, and 18 integer points
    // on the sphere of radius 5 about (17, -3, 40).
    const auto plane0 = static_cast<std::uint32_t>(b.points.size() / 3);
    for (int x = -8; x < 8; ++x)
        for (int y = -8; y < 8; ++y) b.points.insert(b.points.end(), {float(x), float(y), float(3 * x - 2 * y + 7)});
    const auto sphere0 = static_cast<std::uint32_t>(b.points.size() / 3);
    const int s[18][3] = {{5, 0, 0}, {-5, 0, 0}, {0, 5, 0}, {0, -5, 0}, {0, 0, 5},  {0, 0, -5},
                          {3, 4, 0}, {-3, 4, 0}, {3, -4, 0}, {4, 0, 3}, {4, 0, -3}, {-4, 0, 3},
                          {0, 3, 4}, {0, -3, 4}, {0, 3, -4}, {4, 3, 0}, {0, 4, -3}, {-3, 0, -4}};
    for (const auto& q : s) b.points.insert(b.points.end(), {17.0f + q[0], -3.0f + q[1], 40.0f + q[2]});

    const std::size_t k = arity(p);
    std::uniform_int_distribution<std::uint32_t> any(0, static_cast<std::uint32_t>(cloud - 1));
    std::uniform_int_distribution<std::uint32_t> onPlane(0, 255), onSphere(0, 17);
    std::bernoulli_distribution degenerate(degenerateFraction);
    b.queries.resize(n * k);
    for (std::size_t i = 0; i < n; ++i) {
        const bool d = degenerate(rng);
        for (std::size_t j = 0; j < k; ++j)
            b.queries[i * k + j] =
                !d ? any(rng) : (p == Predicate::Orient3d ? plane0 + onPlane(rng) : sphere0 + onSphere(rng));
    }
    return b;
}

}  // namespace portacl::predicates

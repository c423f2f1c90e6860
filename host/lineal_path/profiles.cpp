// Reductions of the full map: the orientation average L(r) in radius bins and the profiles along
// the axes and diagonals. Computed on the host from the exact counts, in double.
#include <cmath>

#include "portacl/lineal_path.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::lineal {

RadialProfile radialProfile(const Result& r, double binWidth) {
    if (!(binWidth > 0)) throw Error("the radius bin width must be positive");
    RadialProfile p;
    p.binWidth = binWidth;
    const int ml = r.maxLength, mlz = r.mlz();
    const std::size_t bins = std::size_t(std::floor(ml / binWidth + 0.5)) + 1;
    std::vector<std::uint64_t> c(bins, 0), t(bins, 0);
    p.vectors.assign(bins, 0);
    for (int dz = -mlz; dz <= mlz; ++dz)
        for (int dy = -ml; dy <= ml; ++dy)
            for (int dx = -ml; dx <= ml; ++dx) {
                const double len = std::sqrt(double(dz) * dz + double(dy) * dy + double(dx) * dx);
                if (len > ml) continue;  // the disc (ball) of radius ML: no corner bias
                const std::size_t k = std::size_t(std::floor(len / binWidth + 0.5));
                if (k >= bins) continue;
                const std::size_t i = r.index(dz, dy, dx);
                c[k] += r.count[i];
                t[k] += r.tried[i];
                p.vectors[k] += 1;
            }
    for (std::size_t k = 0; k < bins; ++k) {
        p.radius.push_back(double(k) * binWidth);
        p.L.push_back(t[k] ? double(c[k]) / double(t[k]) : 0.0);
    }
    return p;
}

std::vector<DirectionProfile> directionProfiles(const Result& r) {
    std::vector<DirectionProfile> out = {{"x", {0, 0, 1}, {}}, {"y", {0, 1, 0}, {}}, {"xy", {0, 1, 1}, {}},
                                         {"x-y", {0, -1, 1}, {}}};
    if (r.mz > 1) {
        out.push_back({"z", {1, 0, 0}, {}});
        out.push_back({"xz", {1, 0, 1}, {}});
        out.push_back({"yz", {1, 1, 0}, {}});
        out.push_back({"xyz", {1, 1, 1}, {}});
    }
    for (auto& p : out)
        for (int k = 0; k <= r.maxLength; ++k) p.L.push_back(r.L(k * p.unit[0], k * p.unit[1], k * p.unit[2]));
    return out;
}

}  // namespace portacl::lineal

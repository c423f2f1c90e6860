// Welding vertices at (nearly) the same position, so that adjacency follows position instead of the
// file's indices: a hash grid of cell eps, each vertex compared with those of its 27 cells, clusters
// joined by union-find, every vertex renamed to its cluster's first vertex.
#include <array>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh {
namespace {

struct CellHash {
    std::size_t operator()(const std::array<std::int64_t, 3>& c) const {
        return std::size_t(c[0] * 73856093) ^ std::size_t(c[1] * 19349663) ^ std::size_t(c[2] * 83492791);
    }
};

std::uint32_t findRoot(std::vector<std::uint32_t>& parent, std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

}  // namespace

std::size_t mergeVertices(TriangleMesh& m, double eps) {
    if (!(eps >= 0) || !std::isfinite(eps)) throw Error("--merge-vertices takes a distance of 0 or more, not " + std::to_string(eps));
    const std::size_t nv = m.vertexCount();
    std::vector<std::uint32_t> parent(nv);
    std::iota(parent.begin(), parent.end(), 0u);
    auto pos = [&](std::size_t v, int k) { return double(m.points[3 * v + std::size_t(k)]); };
    auto cellOf = [&](std::size_t v) {
        std::array<std::int64_t, 3> c{};
        for (int k = 0; k < 3; ++k) c[std::size_t(k)] = eps > 0 ? std::int64_t(std::floor(pos(v, k) / eps)) : 0;
        return c;
    };
    auto join = [&](std::uint32_t a, std::uint32_t b) {
        a = findRoot(parent, a), b = findRoot(parent, b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the root is the cluster's first vertex
    };
    if (eps == 0) {
        // Exactly the same position (as floats; +0 and -0 alike).
        struct PosHash {
            std::size_t operator()(const std::array<float, 3>& p) const {
                std::size_t h = 0;
                for (float c : p) h = h * 1000003u ^ std::hash<float>()(c == 0.0f ? 0.0f : c);
                return h;
            }
        };
        std::unordered_map<std::array<float, 3>, std::uint32_t, PosHash> first;
        first.reserve(nv);
        for (std::uint32_t v = 0; v < nv; ++v) {
            const std::array<float, 3> p{m.points[3 * v], m.points[3 * v + 1], m.points[3 * v + 2]};
            const auto it = first.emplace(p, v).first;
            join(it->second, v);
        }
    } else {
        std::unordered_map<std::array<std::int64_t, 3>, std::vector<std::uint32_t>, CellHash> cells;
        cells.reserve(nv);
        for (std::uint32_t v = 0; v < nv; ++v) cells[cellOf(v)].push_back(v);
        const double eps2 = eps * eps;
        for (std::uint32_t v = 0; v < nv; ++v) {
            const auto c = cellOf(v);
            for (std::int64_t dz = -1; dz <= 1; ++dz)
                for (std::int64_t dy = -1; dy <= 1; ++dy)
                    for (std::int64_t dx = -1; dx <= 1; ++dx) {
                        const auto it = cells.find({c[0] + dx, c[1] + dy, c[2] + dz});
                        if (it == cells.end()) continue;
                        for (std::uint32_t w : it->second) {
                            if (w >= v) continue;
                            double d2 = 0;
                            for (int k = 0; k < 3; ++k) d2 += (pos(v, k) - pos(w, k)) * (pos(v, k) - pos(w, k));
                            if (d2 <= eps2) join(v, w);
                        }
                    }
        }
    }
    std::size_t merged = 0;
    for (std::uint32_t v = 0; v < nv; ++v) merged += findRoot(parent, v) != v;
    for (auto& idx : m.triangles) idx = findRoot(parent, idx);
    return merged;
}

}  // namespace portacl::mesh

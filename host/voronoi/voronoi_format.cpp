// Text output of a diagram: vertices in Voronota's format, edges, canonical order.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

#include "portacl/voronoi.hpp"

namespace portacl::voronoi {

void canonicalize(Diagram& d) {
    std::vector<int> order(d.vertices.size());
    std::iota(order.begin(), order.end(), 0);
    auto key = [&](int i) {
        const Vertex& v = d.vertices[i];
        return std::make_tuple(v.q[0], v.q[1], v.q[2], v.q[3], v.x, v.y, v.z, v.r);
    };
    std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
    std::vector<int> newId(order.size());
    std::vector<Vertex> sorted(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) newId[order[i]] = static_cast<int>(i), sorted[i] = d.vertices[order[i]];
    d.vertices.swap(sorted);
    for (Edge& e : d.edges) {
        e.v0 = newId[e.v0];
        if (e.v1 >= 0) e.v1 = newId[e.v1];
        if (e.v1 >= 0 && e.v1 < e.v0) std::swap(e.v0, e.v1);
    }
    std::sort(d.edges.begin(), d.edges.end(), [](const Edge& a, const Edge& b) {
        return std::make_tuple(a.v0, a.v1, a.g[0], a.g[1], a.g[2]) < std::make_tuple(b.v0, b.v1, b.g[0], b.g[1], b.g[2]);
    });
}

std::string formatVertices(const Diagram& d) {
    std::string out;
    out.reserve(d.vertices.size() * 96);
    char line[256];
    for (const Vertex& v : d.vertices) {
        std::snprintf(line, sizeof line, "%d %d %d %d %.15f %.15f %.15f %.15f\n", v.q[0], v.q[1], v.q[2], v.q[3], v.x,
                      v.y, v.z, v.r);
        out += line;
    }
    return out;
}

std::string formatEdges(const Diagram& d) {
    std::string out = "# v0 v1 g1 g2 g3 min_radius (v1 = -1: unbounded)\n";
    char line[160];
    for (const Edge& e : d.edges) {
        std::snprintf(line, sizeof line, "%d %d %d %d %d %.15f\n", e.v0, e.v1, e.g[0], e.g[1], e.g[2], e.minRadius);
        out += line;
    }
    return out;
}

}  // namespace portacl::voronoi

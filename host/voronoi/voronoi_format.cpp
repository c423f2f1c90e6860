// Text output of a diagram: vertices in Voronota's format, edges, canonical order.
#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <string>
#include <tuple>

#include "portacl/voronoi.hpp"
#include "voronoi/canonical_order.hpp"
#include "voronoi/decimal_text.hpp"

namespace portacl::voronoi {

namespace {

// Stable counting sort of [0, n) by key(i) in [0, buckets), then each bucket sorted by less: the
// order of std::sort by (key, less) in linear time plus small sorts (a ball starts a few dozen
// vertices, a vertex a few edges).
template <typename Key, typename Less>
std::vector<int> bucketOrder(std::size_t n, std::size_t buckets, Key key, Less less) {
    std::vector<int> start(buckets + 1, 0), order(n);
    for (std::size_t i = 0; i < n; ++i) ++start[key(i) + 1];
    for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < n; ++i) order[fill[key(i)]++] = static_cast<int>(i);
    for (std::size_t b = 0; b < buckets; ++b)
        if (start[b + 1] - start[b] > 1) std::sort(order.begin() + start[b], order.begin() + start[b + 1], less);
    return order;
}

}  // namespace

CanonicalOrder canonicalOrder(const std::vector<Vertex>& vertices, const std::vector<Edge>& edges) {
    const std::size_t nv = vertices.size();
    int maxBall = 0;
    for (const Vertex& v : vertices) maxBall = std::max(maxBall, v.q[0]);
    // By quadruple, then sphere; a bucket per first ball.
    CanonicalOrder o;
    o.vertices = bucketOrder(
        nv, static_cast<std::size_t>(maxBall) + 1, [&](std::size_t i) { return vertices[i].q[0]; },
        [&](int a, int b) {
            const Vertex &u = vertices[a], &v = vertices[b];
            return std::tie(u.q[1], u.q[2], u.q[3], u.x, u.y, u.z, u.r) < std::tie(v.q[1], v.q[2], v.q[3], v.x, v.y, v.z, v.r);
        });
    std::vector<int> newId(nv);
    for (std::size_t i = 0; i < nv; ++i) newId[o.vertices[i]] = static_cast<int>(i);
    // Each edge's ends in the new numbering, the lower first (an end with no vertex stays negative).
    std::vector<std::array<int, 2>> ends(edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        int a = e.v0 >= 0 ? newId[e.v0] : e.v0, b = e.v1 >= 0 ? newId[e.v1] : e.v1;
        if (b >= 0 && b < a) std::swap(a, b);
        ends[i] = {a, b};
    }
    // Edges by first vertex, the edges with no vertex (v0 < 0) last.
    o.edges = bucketOrder(
        edges.size(), nv + 1, [&](std::size_t i) { return ends[i][0] < 0 ? static_cast<int>(nv) : ends[i][0]; },
        [&](int a, int b) {
            const Edge &x = edges[a], &y = edges[b];
            return std::tie(ends[a][1], x.g[0], x.g[1], x.g[2]) < std::tie(ends[b][1], y.g[0], y.g[1], y.g[2]);
        });
    return o;
}

void applyOrder(Diagram& d, const CanonicalOrder& o) {
    const std::size_t nv = d.vertices.size();
    std::vector<int> newId(nv);
    std::vector<Vertex> sorted(nv);
    for (std::size_t i = 0; i < nv; ++i) newId[o.vertices[i]] = static_cast<int>(i), sorted[i] = d.vertices[o.vertices[i]];
    d.vertices.swap(sorted);
    std::vector<Edge> edges(d.edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i) {
        Edge e = d.edges[o.edges[i]];
        if (e.v0 >= 0) e.v0 = newId[e.v0];
        if (e.v1 >= 0) e.v1 = newId[e.v1];
        if (e.v1 >= 0 && e.v1 < e.v0) std::swap(e.v0, e.v1);
        edges[i] = e;
    }
    d.edges.swap(edges);
}

void canonicalize(Diagram& d) { applyOrder(d, canonicalOrder(d.vertices, d.edges)); }

std::string formatVertices(const Diagram& d) {
    std::string out;
    formatVertices(d, out);
    return out;
}

std::string formatEdges(const Diagram& d) {
    std::string out;
    formatEdges(d, out);
    return out;
}

void formatVertices(const Diagram& d, std::string& out) {
    out.clear();
    out.reserve(d.vertices.size() * 96);
    // "%d %d %d %d %.15f %.15f %.15f %.15f\n", a line at a time
    char line[4 * (kIntChars + 1) + 4 * (kFixed15Chars + 1)];
    for (const Vertex& v : d.vertices) {
        char* p = line;
        for (int k = 0; k < 4; ++k) p = writeInt(p, v.q[k]), *p++ = ' ';
        p = writeFixed15(p, v.x), *p++ = ' ';
        p = writeFixed15(p, v.y), *p++ = ' ';
        p = writeFixed15(p, v.z), *p++ = ' ';
        p = writeFixed15(p, v.r), *p++ = '\n';
        out.append(line, static_cast<std::size_t>(p - line));
    }
}

void formatEdges(const Diagram& d, std::string& out) {
    out = "# v0 v1 g1 g2 g3 min_radius (v1 = -1: unbounded; -2 -2: closed, no vertex; -1 -1: open, no vertex)\n";
    out.reserve(out.size() + d.edges.size() * 48);
    // "%d %d %d %d %d %.15f\n", a line at a time
    char line[5 * (kIntChars + 1) + kFixed15Chars + 1];
    for (const Edge& e : d.edges) {
        char* p = line;
        p = writeInt(p, e.v0), *p++ = ' ';
        p = writeInt(p, e.v1), *p++ = ' ';
        for (int k = 0; k < 3; ++k) p = writeInt(p, e.g[k]), *p++ = ' ';
        p = writeFixed15(p, e.minRadius), *p++ = '\n';
        out.append(line, static_cast<std::size_t>(p - line));
    }
}

}  // namespace portacl::voronoi

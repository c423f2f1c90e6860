// The serial C++ reference of the self-intersection: a sweep over the triangles' boxes sorted by their
// lower x, and the exact decision per overlapping pair (triangle_pair.hpp) with orient3d signs from a
// double filter (Shewchuk's stage A, valid for float inputs) and the big-integer evaluation behind it.
#include <algorithm>
#include <cmath>

#include "mesh_detail.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/predicates.hpp"
#include "triangle_pair.hpp"

namespace portacl::mesh {
namespace detail {

int orient3dHost(const float* a, const float* b, const float* c, const float* d) {
    const double adx = double(a[0]) - d[0], ady = double(a[1]) - d[1], adz = double(a[2]) - d[2];
    const double bdx = double(b[0]) - d[0], bdy = double(b[1]) - d[1], bdz = double(b[2]) - d[2];
    const double cdx = double(c[0]) - d[0], cdy = double(c[1]) - d[1], cdz = double(c[2]) - d[2];
    const double bxcy = bdx * cdy, cxby = cdx * bdy, cxay = cdx * ady, axcy = adx * cdy, axby = adx * bdy, bxay = bdx * ady;
    const double det = adz * (bxcy - cxby) + bdz * (cxay - axcy) + cdz * (axby - bxay);
    const double permanent = (std::abs(bxcy) + std::abs(cxby)) * std::abs(adz) + (std::abs(cxay) + std::abs(axcy)) * std::abs(bdz) +
                             (std::abs(axby) + std::abs(bxay)) * std::abs(cdz);
    const double u = 0x1p-53;
    if (std::abs(det) > (8 * u + 64 * u * u) * permanent) return det > 0 ? 1 : -1;
    return predicates::orient3dExact(a, b, c, d);
}

namespace {

struct ExactOrient {
    int operator()(const float* a, const float* b, const float* c, const float* d) const { return orient3dHost(a, b, c, d); }
};

void corners(const TriangleMesh& m, std::uint32_t t, P3 p[3], std::uint32_t idx[3]) {
    for (int i = 0; i < 3; ++i) {
        idx[i] = m.triangles[3 * std::size_t(t) + std::size_t(i)];
        for (int k = 0; k < 3; ++k) p[i][std::size_t(k)] = m.points[3 * std::size_t(idx[i]) + std::size_t(k)];
    }
}

}  // namespace

std::vector<Box> triangleBoxes(const TriangleMesh& m) {
    std::vector<Box> boxes(m.triangleCount());
    for (std::size_t t = 0; t < boxes.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            float lo = m.points[3 * m.triangles[3 * t] + std::size_t(k)], hi = lo;
            for (int i = 1; i < 3; ++i) {
                const float c = m.points[3 * m.triangles[3 * t + std::size_t(i)] + std::size_t(k)];
                lo = std::min(lo, c), hi = std::max(hi, c);
            }
            boxes[t].lo[std::size_t(k)] = lo, boxes[t].hi[std::size_t(k)] = hi;
        }
    return boxes;
}

}  // namespace detail

const char* touchingName(Touching t) { return t == Touching::Ignore ? "ignore" : "count"; }

const char* methodName(Method m) {
    switch (m) {
        case Method::Auto: return "auto";
        case Method::Hierarchy: return "hierarchy";
        case Method::AtomicList: return "atomic-list";
        case Method::Matrix: return "matrix";
        case Method::Grid: return "grid";
    }
    return "?";
}

std::vector<std::uint32_t> facesInvolved(const std::vector<FacePair>& pairs) {
    std::vector<std::uint32_t> f;
    f.reserve(pairs.size() * 2);
    for (const auto& p : pairs) f.push_back(p.first), f.push_back(p.second);
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    return f;
}

bool isDegenerate(const TriangleMesh& m, std::uint32_t t) {
    detail::P3 p[3];
    std::uint32_t idx[3];
    detail::corners(m, t, p, idx);
    int s = 0;
    return detail::PairTest<detail::ExactOrient>{}.projectionAxis(p[0], p[1], p[2], &s) < 0;
}

bool trianglesIntersect(const TriangleMesh& m, std::uint32_t a, std::uint32_t b, Touching touching) {
    detail::P3 p[3], q[3];
    std::uint32_t ia[3], ib[3];
    detail::corners(m, a, p, ia);
    detail::corners(m, b, q, ib);
    const detail::PairTest<detail::ExactOrient> test{};
    return touching == Touching::Ignore ? test.interiors(p, q) : test.pair(p, ia, q, ib);
}

Result selfIntersectionsReference(const TriangleMesh& m, Touching touching) {
    validate(m);
    Result r;
    const std::size_t n = m.triangleCount();
    const auto boxes = detail::triangleBoxes(m);
    std::vector<std::uint32_t> order;
    for (std::uint32_t t = 0; t < n; ++t) {
        if (isDegenerate(m, t)) r.degenerate.push_back(t);
        else order.push_back(t);
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return boxes[a].lo[0] < boxes[b].lo[0] || (boxes[a].lo[0] == boxes[b].lo[0] && a < b);
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
        const detail::Box& bi = boxes[order[i]];
        for (std::size_t j = i + 1; j < order.size() && boxes[order[j]].lo[0] <= bi.hi[0]; ++j) {
            if (!detail::overlap(bi, boxes[order[j]])) continue;
            ++r.candidates;
            const std::uint32_t a = std::min(order[i], order[j]), b = std::max(order[i], order[j]);
            if (trianglesIntersect(m, a, b, touching)) r.pairs.push_back({a, b});
        }
    }
    std::sort(r.pairs.begin(), r.pairs.end());
    r.report.mode = Precision::Double;
    r.report.items = r.candidates;
    r.report.phase2Items = r.candidates;
    return r;
}

}  // namespace portacl::mesh

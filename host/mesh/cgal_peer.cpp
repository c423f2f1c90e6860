// The CPU peer of the self-intersection, built from CGAL's own parts: box_self_intersection_d for the
// candidate pairs and Epick's exact predicates for each pair, with the adjacency rules of
// Polygon_mesh_processing::self_intersections (its do_faces_intersect) applied to the soup's indices.
// Touching::Ignore keeps the pairs whose intersection, constructed exactly (Epeck), has a point in the
// relative interiors of both triangles: an independent route to the engine's sign-only test.
#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/box_intersection_d.h>
#include <CGAL/intersections.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "portacl/mesh/self_intersection.hpp"

namespace portacl::mesh {
namespace {

using K = CGAL::Exact_predicates_inexact_constructions_kernel;
using Point = K::Point_3;
using Box = CGAL::Box_intersection_d::Box_with_info_d<double, 3, std::uint32_t>;
using E = CGAL::Exact_predicates_exact_constructions_kernel;

// x, a point of triangle t's plane, strictly inside t (in t and on none of its edges).
bool inRelativeInterior(const E::Triangle_3& t, const E::Point_3& x) {
    if (!t.has_on(x)) return false;
    for (int i = 0; i < 3; ++i)
        if (E::Segment_3(t.vertex(i), t.vertex((i + 1) % 3)).has_on(x)) return false;
    return true;
}

// Whether the relative interiors of two non-degenerate triangles meet, from their exact intersection:
// an area (a triangle or a polygon of 4 to 6 corners, coplanar) always; a segment when its midpoint is
// strictly inside both (two open chords on one line overlap in a positive length or not at all); a
// point never (it ends a chord of one of them).
bool interiorsMeet(const E::Triangle_3& t, const E::Triangle_3& u) {
    const auto x = CGAL::intersection(t, u);
    if (!x) return false;
    if (boost::get<E::Triangle_3>(&*x) || boost::get<std::vector<E::Point_3>>(&*x)) return true;
    if (const auto* s = boost::get<E::Segment_3>(&*x)) {
        const E::Point_3 mid = CGAL::midpoint(s->source(), s->target());
        if (CGAL::coplanar(t.vertex(0), t.vertex(1), t.vertex(2), u.vertex(0)) &&
            CGAL::coplanar(t.vertex(0), t.vertex(1), t.vertex(2), u.vertex(1)) &&
            CGAL::coplanar(t.vertex(0), t.vertex(1), t.vertex(2), u.vertex(2)))
            return false;  // coplanar triangles meeting along a segment: edges against edges
        return inRelativeInterior(t, mid) && inRelativeInterior(u, mid);
    }
    return false;
}

struct PairRule {
    const TriangleMesh& m;
    const std::vector<Point>& pts;
    std::vector<FacePair>& out;
    std::atomic<std::size_t>& candidates;
    std::mutex& lock;  // the parallel run's threads append to one list (pairs are few)
    Touching touching;

    const Point& corner(std::uint32_t t, int i) const { return pts[m.triangles[3 * std::size_t(t) + std::size_t(i)]]; }
    std::uint32_t index(std::uint32_t t, int i) const { return m.triangles[3 * std::size_t(t) + std::size_t(i)]; }

    bool intersect(std::uint32_t f, std::uint32_t g) const {
        const K::Triangle_3 tf(corner(f, 0), corner(f, 1), corner(f, 2)), tg(corner(g, 0), corner(g, 1), corner(g, 2));
        int shared = 0, fi = -1, gi = -1, fj = -1, gj = -1;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                if (index(f, i) == index(g, j)) {
                    if (shared == 0) fi = i, gi = j;
                    else fj = i, gj = j;
                    ++shared;
                }
        if (shared == 0) return CGAL::do_intersect(tf, tg);
        if (shared >= 3) return true;
        if (shared == 1)
            return CGAL::do_intersect(tf, K::Segment_3(corner(g, (gi + 1) % 3), corner(g, (gi + 2) % 3))) ||
                   CGAL::do_intersect(tg, K::Segment_3(corner(f, (fi + 1) % 3), corner(f, (fi + 2) % 3)));
        const Point &a = corner(f, fi), &b = corner(f, fj), &wf = corner(f, 3 - fi - fj), &wg = corner(g, 3 - gi - gj);
        return CGAL::coplanar(a, b, wf, wg) && CGAL::coplanar_orientation(a, b, wf, wg) == CGAL::POSITIVE;
    }
    // The interiors only meet where the closed triangles do; that the pair passed `intersect` with
    // adjacency (which leaves out some pairs that meet only at a shared corner or edge) changes
    // nothing: those pairs only touch.
    bool interiorsMeetExactly(std::uint32_t f, std::uint32_t g) const {
        const auto exact = [&](std::uint32_t t) {
            E::Point_3 p[3];
            for (int i = 0; i < 3; ++i) {
                const Point& c = corner(t, i);
                p[i] = E::Point_3(c.x(), c.y(), c.z());
            }
            return E::Triangle_3(p[0], p[1], p[2]);
        };
        return interiorsMeet(exact(f), exact(g));
    }
    void operator()(const Box& a, const Box& b) const {
        ++candidates;
        const std::uint32_t f = std::min(a.info(), b.info()), g = std::max(a.info(), b.info());
        if (intersect(f, g) && (touching == Touching::Count || interiorsMeetExactly(f, g))) {
            const std::lock_guard<std::mutex> hold(lock);
            out.push_back({f, g});
        }
    }
};

}  // namespace

bool cgalParallelAvailable() {
#if defined(CGAL_LINKED_WITH_TBB)
    return true;
#else
    return false;
#endif
}

Result selfIntersectionsCgal(const TriangleMesh& m, bool parallel, Touching touching) {
    validate(m);
    Result r;
    std::vector<Point> pts(m.vertexCount());
    for (std::size_t v = 0; v < pts.size(); ++v) pts[v] = Point(m.points[3 * v], m.points[3 * v + 1], m.points[3 * v + 2]);
    std::vector<Box> boxes;
    boxes.reserve(m.triangleCount());
    for (std::uint32_t t = 0; t < m.triangleCount(); ++t) {
        const Point &p = pts[m.triangles[3 * t]], &q = pts[m.triangles[3 * t + 1]], &s = pts[m.triangles[3 * t + 2]];
        if (CGAL::collinear(p, q, s)) r.degenerate.push_back(t);
        else boxes.push_back(Box(p.bbox() + q.bbox() + s.bbox(), t));
    }
    std::atomic<std::size_t> candidates{0};
    std::mutex lock;
    PairRule rule{m, pts, r.pairs, candidates, lock, touching};
#if defined(CGAL_LINKED_WITH_TBB)
    if (parallel) CGAL::box_self_intersection_d<CGAL::Parallel_tag>(boxes.begin(), boxes.end(), rule);
    else CGAL::box_self_intersection_d(boxes.begin(), boxes.end(), rule);
#else
    (void)parallel;
    CGAL::box_self_intersection_d(boxes.begin(), boxes.end(), rule);
#endif
    r.candidates = candidates;
    std::sort(r.pairs.begin(), r.pairs.end());
    r.report.mode = Precision::Double;
    r.report.items = r.candidates;
    return r;
}

}  // namespace portacl::mesh

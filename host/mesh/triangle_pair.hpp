// The decision for one pair of triangles, on the host, from orient3d signs alone (the same steps as
// cl/common/mesh_triangle_pair.h): segment against triangle, triangle against triangle, and the rules
// for triangles that share vertex indices (include/portacl/mesh/self_intersection.hpp). `Orient` is
// any callable int(const float* a, const float* b, const float* c, const float* d) returning the sign
// of det [a-d; b-d; c-d]; exact signs give the exact answer.
#pragma once

#include <array>
#include <cstdint>

namespace portacl::mesh::detail {

using P3 = std::array<float, 3>;

template <class Orient>
struct PairTest {
    Orient orient;

    int o3(const P3& a, const P3& b, const P3& c, const P3& d) const { return orient(a.data(), b.data(), c.data(), d.data()); }

    // 2-D orientation of the projections that drop axis k: orient3d of the lifted points
    // (u, v, 0) against (0, 0, -1) is det [u v 1] over the three points, exactly.
    int o2(int k, const P3& a, const P3& b, const P3& c) const {
        const int i = k == 0 ? 1 : 0, j = k == 2 ? 1 : 2;
        const P3 A{a[i], a[j], 0.0f}, B{b[i], b[j], 0.0f}, C{c[i], c[j], 0.0f}, D{0.0f, 0.0f, -1.0f};
        return o3(A, B, C, D);
    }
    // An axis along which the triangle's plane projects one to one (its normal's component is not 0);
    // -1 for a degenerate triangle. `sign` gets the projected triangle's orientation.
    int projectionAxis(const P3& a, const P3& b, const P3& c, int* sign) const {
        for (int k = 2; k >= 0; --k) {
            const int s = o2(k, a, b, c);
            if (s != 0) {
                *sign = s;
                return k;
            }
        }
        return -1;
    }
    static bool between(int k, const P3& p, const P3& q, const P3& x) {
        for (int c = 0; c < 3; ++c) {
            if (c == k) continue;
            const float lo = p[c] < q[c] ? p[c] : q[c], hi = p[c] < q[c] ? q[c] : p[c];
            if (x[c] < lo || x[c] > hi) return false;
        }
        return true;
    }
    // Closed segments pq and uv in the plane of projection k.
    bool segments2(int k, const P3& p, const P3& q, const P3& u, const P3& v) const {
        const int d1 = o2(k, p, q, u), d2 = o2(k, p, q, v), d3 = o2(k, u, v, p), d4 = o2(k, u, v, q);
        if (d1 * d2 < 0 && d3 * d4 < 0) return true;
        return (d1 == 0 && between(k, p, q, u)) || (d2 == 0 && between(k, p, q, v)) || (d3 == 0 && between(k, u, v, p)) ||
               (d4 == 0 && between(k, u, v, q));
    }
    bool inside2(int k, int s, const P3& a, const P3& b, const P3& c, const P3& x) const {
        return o2(k, a, b, x) * s >= 0 && o2(k, b, c, x) * s >= 0 && o2(k, c, a, x) * s >= 0;
    }
    // Closed segment pq against the closed (non-degenerate) triangle abc.
    bool segmentTriangle(const P3& p, const P3& q, const P3& a, const P3& b, const P3& c) const {
        const int sp = o3(a, b, c, p), sq = o3(a, b, c, q);
        if (sp * sq > 0) return false;
        if (sp == 0 && sq == 0) {  // in the triangle's plane
            int s = 0;
            const int k = projectionAxis(a, b, c, &s);
            return inside2(k, s, a, b, c, p) || inside2(k, s, a, b, c, q) || segments2(k, p, q, a, b) ||
                   segments2(k, p, q, b, c) || segments2(k, p, q, c, a);
        }
        // pq meets the plane in one point; it lies in the triangle when the line pq passes on no
        // strict side of all three edges at once (the signs are not mixed).
        const int s1 = o3(p, q, a, b), s2 = o3(p, q, b, c), s3 = o3(p, q, c, a);
        const bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
        return !(pos && neg);
    }
    // Closed triangles with no shared vertex: they meet when an edge of one meets the other.
    bool triangles(const P3 t[3], const P3 u[3]) const {
        const int d0 = o3(t[0], t[1], t[2], u[0]), d1 = o3(t[0], t[1], t[2], u[1]), d2 = o3(t[0], t[1], t[2], u[2]);
        if ((d0 > 0 && d1 > 0 && d2 > 0) || (d0 < 0 && d1 < 0 && d2 < 0)) return false;
        const int e0 = o3(u[0], u[1], u[2], t[0]), e1 = o3(u[0], u[1], u[2], t[1]), e2 = o3(u[0], u[1], u[2], t[2]);
        if ((e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0)) return false;
        for (int i = 0; i < 3; ++i) {
            if (segmentTriangle(t[i], t[(i + 1) % 3], u[0], u[1], u[2])) return true;
            if (segmentTriangle(u[i], u[(i + 1) % 3], t[0], t[1], t[2])) return true;
        }
        return false;
    }
    // How the segment qr (r beyond the mesh) meets triangle abc, as cl/common/mesh_ray_side.h says.
    enum Ray { Miss, Cross, On, Degenerate };
    Ray ray(const P3& q, const P3& r, const P3& a, const P3& b, const P3& c) const {
        const int sq = o3(a, b, c, q), sr = o3(a, b, c, r);
        if (sq == 0) {
            int s = 0;
            const int k = projectionAxis(a, b, c, &s);
            if (k < 0) return Miss;
            if (inside2(k, s, a, b, c, q)) return On;
            if (sr != 0) return Miss;
            return segmentTriangle(q, r, a, b, c) ? Degenerate : Miss;
        }
        if (sr == 0 || sq * sr > 0) return Miss;
        const int s1 = o3(q, r, a, b), s2 = o3(q, r, b, c), s3 = o3(q, r, c, a);
        const bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
        if (pos && neg) return Miss;
        return s1 != 0 && s2 != 0 && s3 != 0 ? Cross : Degenerate;
    }
    // x, a point of the plane of the non-degenerate triangle abc, in its relative interior (strictly
    // inside all three edges) when `strict`, else in the closed triangle.
    bool inPlane(const P3& a, const P3& b, const P3& c, const P3& x, bool strict) const {
        int s = 0;
        const int k = projectionAxis(a, b, c, &s);
        const int s1 = s * o2(k, a, b, x), s2 = s * o2(k, b, c, x), s3 = s * o2(k, c, a, x);
        return strict ? s1 > 0 && s2 > 0 && s3 > 0 : s1 >= 0 && s2 >= 0 && s3 >= 0;
    }
    // The points where the plane of u meets the boundary of t, which it crosses (e holds the sides of
    // t's corners against that plane, with both signs present): how many lie in u's relative interior
    // and how many in the closed u. A point is a corner of t in the plane, or where an edge of t whose
    // ends are on opposite sides crosses it (inside u when the line of the edge passes on the same
    // strict side of u's three edges).
    void chordEnds(const P3 t[3], const int e[3], const P3 u[3], int* interior, int* closed) const {
        *interior = *closed = 0;
        for (int i = 0; i < 3; ++i) {
            const int j = (i + 1) % 3;
            if (e[i] == 0) {
                *interior += inPlane(u[0], u[1], u[2], t[i], true);
                *closed += inPlane(u[0], u[1], u[2], t[i], false);
            }
            if (e[i] * e[j] < 0) {
                const int s1 = o3(t[i], t[j], u[0], u[1]), s2 = o3(t[i], t[j], u[1], u[2]), s3 = o3(t[i], t[j], u[2], u[0]);
                const bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
                *interior += (s1 > 0 && s2 > 0 && s3 > 0) || (s1 < 0 && s2 < 0 && s3 < 0);
                *closed += !(pos && neg);
            }
        }
    }
    // Whether the relative interiors of two non-degenerate triangles meet (Touching::Ignore).
    // Coplanar: unless an edge line of one has the whole other triangle on its closed outer side (two
    // convex polygons whose interiors are disjoint are separated by the line of one of their edges).
    // Otherwise each plane must cut through the other triangle's interior, along chords A (of t) and
    // B (of u) on the planes' common line; the open chords overlap exactly when an end of one lies in
    // the other triangle's relative interior, or both ends of A lie in u (then A = B).
    bool interiors(const P3 t[3], const P3 u[3]) const {
        const int d[3] = {o3(t[0], t[1], t[2], u[0]), o3(t[0], t[1], t[2], u[1]), o3(t[0], t[1], t[2], u[2])};
        if (d[0] == 0 && d[1] == 0 && d[2] == 0) {
            int st = 0;
            const int k = projectionAxis(t[0], t[1], t[2], &st);
            const int su = o2(k, u[0], u[1], u[2]);
            for (int side = 0; side < 2; ++side) {
                const P3* p = side == 0 ? t : u;
                const P3* q = side == 0 ? u : t;
                const int s = side == 0 ? st : su;
                for (int i = 0; i < 3; ++i) {
                    bool inner = false;
                    for (int j = 0; j < 3; ++j) inner = inner || s * o2(k, p[i], p[(i + 1) % 3], q[j]) > 0;
                    if (!inner) return false;
                }
            }
            return true;
        }
        const int e[3] = {o3(u[0], u[1], u[2], t[0]), o3(u[0], u[1], u[2], t[1]), o3(u[0], u[1], u[2], t[2])};
        auto crosses = [](const int* s) { return (s[0] > 0 || s[1] > 0 || s[2] > 0) && (s[0] < 0 || s[1] < 0 || s[2] < 0); };
        if (!crosses(d) || !crosses(e)) return false;
        int inU = 0, closedU = 0, inT = 0, closedT = 0;
        chordEnds(t, e, u, &inU, &closedU);
        if (inU > 0 || closedU == 2) return true;
        chordEnds(u, d, t, &inT, &closedT);
        return inT > 0;
    }
    // The pair (t, u) with vertex indices it, iu under the adjacency rules.
    bool pair(const P3 t[3], const std::uint32_t it[3], const P3 u[3], const std::uint32_t iu[3]) const {
        int shared = 0, ti = -1, ui = -1, tj = -1, uj = -1;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                if (it[i] == iu[j]) {
                    if (shared == 0) ti = i, ui = j;
                    else tj = i, uj = j;
                    ++shared;
                }
        if (shared == 0) return triangles(t, u);
        if (shared >= 3) return true;
        if (shared == 1)  // the edge opposite the shared vertex, in either triangle, meets the other
            return segmentTriangle(u[(ui + 1) % 3], u[(ui + 2) % 3], t[0], t[1], t[2]) ||
                   segmentTriangle(t[(ti + 1) % 3], t[(ti + 2) % 3], u[0], u[1], u[2]);
        // A shared edge: coplanar, with the third vertices strictly on the same side of it.
        const P3& a = t[ti];
        const P3& b = t[tj];
        const P3& wt = t[3 - ti - tj];
        const P3& wu = u[3 - ui - uj];
        if (o3(a, b, wt, wu) != 0) return false;
        int s = 0;
        const int k = projectionAxis(a, b, wt, &s);
        return s * o2(k, a, b, wu) > 0;
    }
};

}  // namespace portacl::mesh::detail

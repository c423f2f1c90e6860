// The decision for one pair of mesh triangles from orient3d signs alone (the host's twin is
// host/mesh/triangle_pair.hpp; the rules are in include/portacl/mesh/self_intersection.hpp):
//   mesh_pair(t, it, u, iu, &undecided): t, u the corners, it, iu their vertex indices.
// Float builds (PORTACL_DOUBLE 0) take each sign from orient3d_float and set *undecided when the
// float filter cannot vouch for one of them (the answer is then only a guess); double builds take the
// exact sign (orient3d_exact) and leave *undecided alone. 2-D orientations in a coordinate plane are
// orient3d of the lifted points (u, v, 0) against (0, 0, -1), exactly det [u v 1].
// MESH_IGNORE_TOUCHING 1 (a build option): a pair only when the triangles' relative interiors meet
// (mesh_interiors; Touching::Ignore), whatever their vertex indices.
#ifndef PORTACL_MESH_TRIANGLE_PAIR_H
#define PORTACL_MESH_TRIANGLE_PAIR_H

#include "common/predicates.h"

#ifndef MESH_IGNORE_TOUCHING
#define MESH_IGNORE_TOUCHING 0
#endif

// A triangle's corners and vertex indices; closed boxes overlapping (float4 boxes, w unused).
inline void mesh_corners(__global const float* points, __global const uint* tris, const uint t, float3* p, uint* idx) {
    for (int i = 0; i < 3; ++i) {
        idx[i] = tris[3 * (size_t)t + i];
        p[i] = vload3(idx[i], points);
    }
}

inline bool mesh_overlap(const float4 alo, const float4 ahi, const float4 blo, const float4 bhi) {
    return !(ahi.x < blo.x || bhi.x < alo.x || ahi.y < blo.y || bhi.y < alo.y || ahi.z < blo.z || bhi.z < alo.z);
}

inline int mesh_o3(const float3 a, const float3 b, const float3 c, const float3 d, uchar* undecided) {
#if PORTACL_DOUBLE
    return orient3d_exact(a, b, c, d);
#else
    uchar u;
    const int s = orient3d_float(a, b, c, d, &u);
    *undecided |= u;
    return s;
#endif
}

inline float2 mesh_drop(const int k, const float3 p) { return k == 2 ? p.xy : (k == 1 ? p.xz : p.yz); }

inline int mesh_o2(const int k, const float3 a, const float3 b, const float3 c, uchar* undecided) {
    const float2 a2 = mesh_drop(k, a), b2 = mesh_drop(k, b), c2 = mesh_drop(k, c);
    return mesh_o3((float3)(a2, 0.0f), (float3)(b2, 0.0f), (float3)(c2, 0.0f), (float3)(0.0f, 0.0f, -1.0f), undecided);
}

// An axis along which the triangle projects one to one, -1 when degenerate; *sign: the projection's orientation.
inline int mesh_projection_axis(const float3 a, const float3 b, const float3 c, int* sign, uchar* undecided) {
    for (int k = 2; k >= 0; --k) {
        const int s = mesh_o2(k, a, b, c, undecided);
        if (s != 0) {
            *sign = s;
            return k;
        }
    }
    *sign = 0;
    return -1;
}

inline bool mesh_between(const int k, const float3 p, const float3 q, const float3 x) {
    const float2 p2 = mesh_drop(k, p), q2 = mesh_drop(k, q), x2 = mesh_drop(k, x);
    return x2.x >= fmin(p2.x, q2.x) && x2.x <= fmax(p2.x, q2.x) && x2.y >= fmin(p2.y, q2.y) && x2.y <= fmax(p2.y, q2.y);
}

inline bool mesh_segments2(const int k, const float3 p, const float3 q, const float3 u, const float3 v, uchar* undecided) {
    const int d1 = mesh_o2(k, p, q, u, undecided), d2 = mesh_o2(k, p, q, v, undecided);
    const int d3 = mesh_o2(k, u, v, p, undecided), d4 = mesh_o2(k, u, v, q, undecided);
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    return (d1 == 0 && mesh_between(k, p, q, u)) || (d2 == 0 && mesh_between(k, p, q, v)) ||
           (d3 == 0 && mesh_between(k, u, v, p)) || (d4 == 0 && mesh_between(k, u, v, q));
}

inline bool mesh_inside2(const int k, const int s, const float3 a, const float3 b, const float3 c, const float3 x, uchar* undecided) {
    return mesh_o2(k, a, b, x, undecided) * s >= 0 && mesh_o2(k, b, c, x, undecided) * s >= 0 &&
           mesh_o2(k, c, a, x, undecided) * s >= 0;
}

// Closed segment pq against the closed, non-degenerate triangle abc.
inline bool mesh_segment_triangle(const float3 p, const float3 q, const float3 a, const float3 b, const float3 c, uchar* undecided) {
    const int sp = mesh_o3(a, b, c, p, undecided), sq = mesh_o3(a, b, c, q, undecided);
    if (sp * sq > 0) return false;
    if (sp == 0 && sq == 0) {
        int s;
        const int k = mesh_projection_axis(a, b, c, &s, undecided);
        if (k < 0) return false;  // only where float misjudged a sign (then undecided is set)
        return mesh_inside2(k, s, a, b, c, p, undecided) || mesh_inside2(k, s, a, b, c, q, undecided) ||
               mesh_segments2(k, p, q, a, b, undecided) || mesh_segments2(k, p, q, b, c, undecided) ||
               mesh_segments2(k, p, q, c, a, undecided);
    }
    const int s1 = mesh_o3(p, q, a, b, undecided), s2 = mesh_o3(p, q, b, c, undecided), s3 = mesh_o3(p, q, c, a, undecided);
    const bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
    return !(pos && neg);
}

inline bool mesh_triangles(const float3* t, const float3* u, uchar* undecided) {
    const int d0 = mesh_o3(t[0], t[1], t[2], u[0], undecided), d1 = mesh_o3(t[0], t[1], t[2], u[1], undecided),
              d2 = mesh_o3(t[0], t[1], t[2], u[2], undecided);
    if ((d0 > 0 && d1 > 0 && d2 > 0) || (d0 < 0 && d1 < 0 && d2 < 0)) return false;
    const int e0 = mesh_o3(u[0], u[1], u[2], t[0], undecided), e1 = mesh_o3(u[0], u[1], u[2], t[1], undecided),
              e2 = mesh_o3(u[0], u[1], u[2], t[2], undecided);
    if ((e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0)) return false;
    for (int i = 0; i < 3; ++i) {
        const int n = i == 2 ? 0 : i + 1;
        if (mesh_segment_triangle(t[i], t[n], u[0], u[1], u[2], undecided)) return true;
        if (mesh_segment_triangle(u[i], u[n], t[0], t[1], t[2], undecided)) return true;
    }
    return false;
}

// x, a point of the plane of triangle abc, strictly inside it (strict) or in the closed triangle.
inline bool mesh_in_plane(const float3 a, const float3 b, const float3 c, const float3 x, const bool strict, uchar* undecided) {
    int s;
    const int k = mesh_projection_axis(a, b, c, &s, undecided);
    if (k < 0) return false;  // only where float misjudged a sign (then undecided is set)
    const int s1 = s * mesh_o2(k, a, b, x, undecided), s2 = s * mesh_o2(k, b, c, x, undecided), s3 = s * mesh_o2(k, c, a, x, undecided);
    return strict ? s1 > 0 && s2 > 0 && s3 > 0 : s1 >= 0 && s2 >= 0 && s3 >= 0;
}

// The two points where u's plane meets the boundary of t, which it cuts (e: the sides of t's corners,
// both signs present): how many lie strictly inside u, how many in the closed u.
inline void mesh_chord_ends(const float3* t, const int* e, const float3* u, int* interior, int* closed, uchar* undecided) {
    *interior = 0;
    *closed = 0;
    for (int i = 0; i < 3; ++i) {
        const int j = i == 2 ? 0 : i + 1;
        if (e[i] == 0) {
            *interior += mesh_in_plane(u[0], u[1], u[2], t[i], true, undecided) ? 1 : 0;
            *closed += mesh_in_plane(u[0], u[1], u[2], t[i], false, undecided) ? 1 : 0;
        }
        if (e[i] * e[j] < 0) {
            const int s1 = mesh_o3(t[i], t[j], u[0], u[1], undecided), s2 = mesh_o3(t[i], t[j], u[1], u[2], undecided),
                      s3 = mesh_o3(t[i], t[j], u[2], u[0], undecided);
            const bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
            *interior += ((s1 > 0 && s2 > 0 && s3 > 0) || (s1 < 0 && s2 < 0 && s3 < 0)) ? 1 : 0;
            *closed += !(pos && neg) ? 1 : 0;
        }
    }
}

inline bool mesh_mixed(const int* s) { return (s[0] > 0 || s[1] > 0 || s[2] > 0) && (s[0] < 0 || s[1] < 0 || s[2] < 0); }

// Whether the relative interiors of two non-degenerate triangles meet (the host's PairTest::interiors
// says why): coplanar, unless an edge line of one leaves the other on its closed outer side; else
// each plane cuts the other triangle, and the chords overlap when an end of one is strictly inside
// the other triangle or both ends of t's chord lie in u.
inline bool mesh_interiors(const float3* t, const float3* u, uchar* undecided) {
    int d[3], e[3];
    for (int i = 0; i < 3; ++i) d[i] = mesh_o3(t[0], t[1], t[2], u[i], undecided);
    if (d[0] == 0 && d[1] == 0 && d[2] == 0) {
        int st;
        const int k = mesh_projection_axis(t[0], t[1], t[2], &st, undecided);
        if (k < 0) return false;
        const int su = mesh_o2(k, u[0], u[1], u[2], undecided);
        for (int i = 0; i < 3; ++i) {
            const int n = i == 2 ? 0 : i + 1;
            bool innerT = false, innerU = false;
            for (int j = 0; j < 3; ++j) {
                innerT = innerT || st * mesh_o2(k, t[i], t[n], u[j], undecided) > 0;
                innerU = innerU || su * mesh_o2(k, u[i], u[n], t[j], undecided) > 0;
            }
            if (!innerT || !innerU) return false;
        }
        return true;
    }
    for (int i = 0; i < 3; ++i) e[i] = mesh_o3(u[0], u[1], u[2], t[i], undecided);
    if (!mesh_mixed(d) || !mesh_mixed(e)) return false;
    int inU, closedU, inT, closedT;
    mesh_chord_ends(t, e, u, &inU, &closedU, undecided);
    if (inU > 0 || closedU == 2) return true;
    mesh_chord_ends(u, d, t, &inT, &closedT, undecided);
    return inT > 0;
}

inline bool mesh_pair(const float3* t, const uint* it, const float3* u, const uint* iu, uchar* undecided) {
#if MESH_IGNORE_TOUCHING
    return mesh_interiors(t, u, undecided);
#endif
    int shared = 0, ti = -1, ui = -1, tj = -1, uj = -1;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (it[i] == iu[j]) {
                if (shared == 0) {
                    ti = i;
                    ui = j;
                } else {
                    tj = i;
                    uj = j;
                }
                ++shared;
            }
    if (shared == 0) return mesh_triangles(t, u, undecided);
    if (shared >= 3) return true;
    if (shared == 1)
        return mesh_segment_triangle(u[(ui + 1) % 3], u[(ui + 2) % 3], t[0], t[1], t[2], undecided) ||
               mesh_segment_triangle(t[(ti + 1) % 3], t[(ti + 2) % 3], u[0], u[1], u[2], undecided);
    const float3 a = t[ti], b = t[tj], wt = t[3 - ti - tj], wu = u[3 - ui - uj];
    if (mesh_o3(a, b, wt, wu, undecided) != 0) return false;
    int s;
    const int k = mesh_projection_axis(a, b, wt, &s, undecided);
    if (k < 0) return false;
    return s * mesh_o2(k, a, b, wu, undecided) > 0;
}

#endif

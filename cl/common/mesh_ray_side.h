// Point-in-mesh by ray parity (include/portacl/mesh/point_in_mesh.hpp), one ray at a time: how the
// segment from q to r, a point beyond the mesh's box, meets triangle abc. Signs from mesh_o3 (float
// with the undecided flag, or exact in double builds).
#ifndef PORTACL_MESH_RAY_SIDE_H
#define PORTACL_MESH_RAY_SIDE_H

#include "common/mesh_triangle_pair.h"

#define MESH_RAY_MISS 0
#define MESH_RAY_CROSS 1
#define MESH_RAY_ON 2          // q lies on the triangle
#define MESH_RAY_DEGENERATE 3  // the segment meets an edge or a vertex, or runs in the plane through the triangle

inline int mesh_ray_triangle(const float3 q, const float3 r, const float3 a, const float3 b, const float3 c, uchar* undecided) {
    const int sq = mesh_o3(a, b, c, q, undecided), sr = mesh_o3(a, b, c, r, undecided);
    if (sq == 0) {
        int s;
        const int k = mesh_projection_axis(a, b, c, &s, undecided);
        if (k < 0) return MESH_RAY_MISS;  // only where float misjudged (undecided is set)
        if (mesh_inside2(k, s, a, b, c, q, undecided)) return MESH_RAY_ON;
        if (sr != 0) return MESH_RAY_MISS;  // leaves the plane at q, outside the triangle
        return mesh_segment_triangle(q, r, a, b, c, undecided) ? MESH_RAY_DEGENERATE : MESH_RAY_MISS;
    }
    if (sr == 0 || sq * sr > 0) return MESH_RAY_MISS;  // r, beyond the mesh, is on no triangle
    const int s1 = mesh_o3(q, r, a, b, undecided), s2 = mesh_o3(q, r, b, c, undecided), s3 = mesh_o3(q, r, c, a, undecided);
    const bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
    if (pos && neg) return MESH_RAY_MISS;
    return s1 != 0 && s2 != 0 && s3 != 0 ? MESH_RAY_CROSS : MESH_RAY_DEGENERATE;
}

#endif

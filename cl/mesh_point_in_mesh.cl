// Point-in-mesh by ray parity on the self-intersection's hierarchy (include/portacl/mesh/point_in_mesh.hpp).
// Each point shoots an axis-parallel segment to a point beyond the box of the mesh and the queries,
// along +x, -x, +y, -y, +z, -z in turn, until one meets no edge or vertex of any triangle (common/
// mesh_ray_side.h); the parity of its crossings gives inside or outside, and a point on a triangle is
// on the boundary. Side codes: 0 outside, 1 inside, 2 boundary, 4 unresolved (all six rays met an edge
// or vertex: the host tries other directions). Float builds append the points whose signs float could
// not vouch for to a list (their code is float's guess); double builds are exact (phase 2).
#include "common/real.h"
#include "common/two_phase.h"
#include "common/mesh_ray_side.h"

#ifndef MESH_STACK
#define MESH_STACK 96
#endif

#define MESH_SIDE_UNRESOLVED 4

inline float3 mesh_with_axis(float3 q, const int k, const float v) {
    if (k == 0) q.x = v;
    else if (k == 1) q.y = v;
    else q.z = v;
    return q;
}

inline char mesh_point_side_of(const float3 q, const uint n, __global const uint* sortedTri, __global const uint* left,
                               __global const uint* right, __global const float4* nodeLo, __global const float4* nodeHi,
                               __global const uchar* degenerate, __global const float* points, __global const uint* tris,
                               const float4 farLo, const float4 farHi, uchar* undecided, __global uint* overflow) {
    const float farL[3] = {farLo.x, farLo.y, farLo.z}, farH[3] = {farHi.x, farHi.y, farHi.z};
    for (int dir = 0; dir < 6; ++dir) {
        const int k = dir >> 1;
        const float3 r = mesh_with_axis(q, k, (dir & 1) ? farL[k] : farH[k]);
        const float4 lo = (float4)(fmin(q, r), 0.0f), hi = (float4)(fmax(q, r), 0.0f);
        uint stack[MESH_STACK];
        int top = 0;
        stack[top++] = 0;
        int crossings = 0;
        bool degenerateRay = false;
        while (top > 0 && !degenerateRay) {
            const uint node = stack[--top];
            if (n > 1 && node < n - 1) {
                if (!mesh_overlap(lo, hi, nodeLo[node], nodeHi[node])) continue;
                if (top + 2 > MESH_STACK) {
                    atomic_inc(overflow);
                    continue;
                }
                stack[top++] = left[node];
                stack[top++] = right[node];
                continue;
            }
            const uint s = node - (n - 1);
            if (!mesh_overlap(lo, hi, nodeLo[node], nodeHi[node])) continue;
            const uint t = sortedTri[s];
            if (degenerate[t]) continue;
            float3 c[3];
            uint idx[3];
            mesh_corners(points, tris, t, c, idx);
            const int hit = mesh_ray_triangle(q, r, c[0], c[1], c[2], undecided);
            if (hit == MESH_RAY_ON) return 2;
            if (hit == MESH_RAY_CROSS) crossings ^= 1;
            if (hit == MESH_RAY_DEGENERATE) degenerateRay = true;
        }
        if (!degenerateRay) return (char)crossings;
    }
    return MESH_SIDE_UNRESOLVED;
}

// Every query point (float builds: the points float cannot decide go to the list; double builds: exact).
__kernel void mesh_point_side(const uint count, __global const float* queries, const uint n, __global const uint* sortedTri,
                              __global const uint* left, __global const uint* right, __global const float4* nodeLo,
                              __global const float4* nodeHi, __global const uchar* degenerate, __global const float* points,
                              __global const uint* tris, const float4 farLo, const float4 farHi, __global char* side,
                              __global uint* counters, __global uint* list) {
    const uint i = get_global_id(0);
    if (i >= count) return;
    uchar flag = 0;
    side[i] = mesh_point_side_of(vload3(i, queries), n, sortedTri, left, right, nodeLo, nodeHi, degenerate, points, tris, farLo,
                                 farHi, &flag, &counters[1]);
    if (flag) two_phase_append(&counters[0], list, i);
}

// Phase 2 (double builds): the listed points, exactly. counters: [0] the list's length, [1] stack overflows.
__kernel void mesh_point_side_phase2(__global uint* counters, __global const uint* list, __global const float* queries,
                                     const uint n, __global const uint* sortedTri, __global const uint* left, __global const uint* right,
                                     __global const float4* nodeLo, __global const float4* nodeHi, __global const uchar* degenerate,
                                     __global const float* points, __global const uint* tris, const float4 farLo, const float4 farHi,
                                     __global char* side) {
#if PORTACL_DOUBLE
    const uint count = counters[0];
    for (uint k = get_global_id(0); k < count; k += get_global_size(0)) {
        const uint i = list[k];
        uchar unused = 0;
        side[i] = mesh_point_side_of(vload3(i, queries), n, sortedTri, left, right, nodeLo, nodeHi, degenerate, points, tris, farLo,
                                     farHi, &unused, &counters[1]);
    }
#endif
}

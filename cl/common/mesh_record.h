// Deciding a candidate pair and appending it to the pair list or the undecided list (the lists and
// counters of cl/mesh_self_intersection.cl: counters[0] pairs, [1] undecided; a list longer than its
// capacity is counted, not written). Shared by the hierarchy's traversal, the lecture's kernels and
// the uniform grid (cl/mesh_grid.cl).
#ifndef PORTACL_MESH_RECORD_H
#define PORTACL_MESH_RECORD_H

#include "common/mesh_triangle_pair.h"

// The decision of pair (a, b), a < b, appended where it belongs.
inline void mesh_record(const uint a, const uint b, __global const float* points, __global const uint* tris,
                        __global uint* counters, __global uint2* pairs, const uint pairCapacity, __global uint2* undecided,
                        const uint undecidedCapacity) {
    float3 t[3], u[3];
    uint it[3], iu[3];
    mesh_corners(points, tris, a, t, it);
    mesh_corners(points, tris, b, u, iu);
    uchar flag = 0;
    const bool hit = mesh_pair(t, it, u, iu, &flag);
    if (flag) {  // bit 31 of b keeps float's guess (indices are below 2^31)
        const uint k = atomic_inc(&counters[1]);
        if (k < undecidedCapacity) undecided[k] = (uint2)(a, b | (hit ? 0x80000000u : 0u));
    } else if (hit) {
        const uint k = atomic_inc(&counters[0]);
        if (k < pairCapacity) pairs[k] = (uint2)(a, b);
    }
}

#endif

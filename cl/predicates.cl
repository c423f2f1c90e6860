// Batches of robust predicates (include/portacl/predicates.hpp) in one streaming pass over the queries,
// on the append list of the two-phase dispatch (include/portacl/runtime/two_phase.hpp, TwoPhaseList):
//   *_float_pass (float build): each work-item reads one query's point indices once, gathers its
//       points, writes the float sign, and puts the query on the list when the float filter cannot
//       vouch for it, one global atomic per work-group (two_phase_append_group). No per-query flag.
//   *_exact_pass (double build, or double-float where the device has no fp64): the exact sign of the
//       listed queries (mixed: a bounded grid that reads the list's count on the device, so no host
//       round trip between the passes) or of every query (double).
// The predicates, their sign conventions and error bounds are in common/predicates.h. In double-float
// (PORTACL_DOUBLE_FLOAT) the exact pass writes PRED_DF_HOST where it cannot vouch for the sign: the
// host's exact step decides those (common/predicates_double_float.h).
// Layout: orient3d queries are 4 uint point indices each (one 16-byte load), insphere queries 5; signs
// are one char per query (-1, 0, +1). Points are x, y, z floats: packed (PRED_POINT_STRIDE 3, point p
// at [3p, 3p+2], the caller's layout; three 4-byte loads where the compiler cannot prove 16-byte
// alignment) or padded to 4 floats (PRED_POINT_STRIDE 4: one aligned 16-byte load per gathered point;
// pred_pad_points makes that copy of a packed cloud).
#include "common/real.h"
#include "common/two_phase.h"
#include "common/predicates.h"
#if PORTACL_DOUBLE_FLOAT
#include "common/predicates_double_float.h"
#endif

#ifndef PRED_POINT_STRIDE
#define PRED_POINT_STRIDE 3
#endif

#if PRED_POINT_STRIDE == 4
inline float3 point_at(__global const float* points, const uint p) { return ((__global const float4*)points)[p].xyz; }
#else
inline float3 point_at(__global const float* points, const uint p) { return vload3(p, points); }
#endif

// The padded copy of a packed cloud: point p of `packed` (3 floats) to `padded` (4 floats, w = 0).
__kernel void pred_pad_points(const uint count, __global const float* packed, __global float4* padded) {
    const uint p = get_global_id(0);
    if (p < count) padded[p] = (float4)(vload3(p, packed), 0.0f);
}

__kernel void orient3d_float_pass(const uint n, __global uint* listCount, __global uint* list, const uint keepList,
                                  __global const float* points, __global const uint4* queries,
                                  __global char* signs, __local uint* groupList) {
    const uint i = get_global_id(0);
    uchar undecided = 0;
    if (i < n) {
        const uint4 q = queries[i];
        signs[i] = orient3d_float(point_at(points, q.x), point_at(points, q.y), point_at(points, q.z),
                                  point_at(points, q.w), &undecided);
    }
    two_phase_append_group(listCount, list, keepList, i, undecided, groupList);
}

__kernel void insphere_float_pass(const uint n, __global uint* listCount, __global uint* list, const uint keepList,
                                  __global const float* points, __global const uint* queries,
                                  __global char* signs, __local uint* groupList) {
    const uint i = get_global_id(0);
    uchar undecided = 0;
    if (i < n) {
        __global const uint* q = queries + 5 * (size_t)i;
        signs[i] = insphere_float(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                                  point_at(points, q[3]), point_at(points, q[4]), &undecided);
    }
    two_phase_append_group(listCount, list, keepList, i, undecided, groupList);
}

// The memory floor of the float passes (the bench's "gather floor" rows): a query's indices read and
// its points gathered as the passes gather them, one byte written that depends on every coordinate,
// no predicate and no list.
__kernel void orient3d_gather_floor(const uint n, __global const float* points, __global const uint4* queries,
                                    __global char* out) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint4 q = queries[i];
    const float3 s = point_at(points, q.x) + point_at(points, q.y) + point_at(points, q.z) + point_at(points, q.w);
    out[i] = (char)(s.x + s.y + s.z > 0.0f);
}

__kernel void insphere_gather_floor(const uint n, __global const float* points, __global const uint* queries,
                                    __global char* out) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const uint* q = queries + 5 * (size_t)i;
    const float3 s = point_at(points, q[0]) + point_at(points, q[1]) + point_at(points, q[2]) + point_at(points, q[3]) +
                     point_at(points, q[4]);
    out[i] = (char)(s.x + s.y + s.z > 0.0f);
}

#if PORTACL_DOUBLE || PORTACL_DOUBLE_FLOAT

#if PORTACL_DOUBLE
#define PRED_ORIENT3D_EXACT orient3d_exact
#define PRED_INSPHERE_EXACT insphere_exact
#else
#define PRED_ORIENT3D_EXACT orient3d_double_float
#define PRED_INSPHERE_EXACT insphere_double_float
#endif

__kernel void orient3d_exact_pass(const uint direct, const uint n, __global const uint* listCount,
                                  __global const uint* list, __global const float* points,
                                  __global const uint4* queries, __global char* signs) {
    const uint count = two_phase_list_count(direct, n, listCount);
    for (uint k = get_global_id(0); k < count; k += get_global_size(0)) {
        const uint i = two_phase_list_item(direct, list, k);
        const uint4 q = queries[i];
        signs[i] = PRED_ORIENT3D_EXACT(point_at(points, q.x), point_at(points, q.y), point_at(points, q.z),
                                       point_at(points, q.w));
    }
}

__kernel void insphere_exact_pass(const uint direct, const uint n, __global const uint* listCount,
                                  __global const uint* list, __global const float* points,
                                  __global const uint* queries, __global char* signs) {
    const uint count = two_phase_list_count(direct, n, listCount);
    for (uint k = get_global_id(0); k < count; k += get_global_size(0)) {
        const uint i = two_phase_list_item(direct, list, k);
        __global const uint* q = queries + 5 * (size_t)i;
        signs[i] = PRED_INSPHERE_EXACT(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                                       point_at(points, q[3]), point_at(points, q[4]));
    }
}

#endif

// Batches of robust predicates as a two-phase workload (include/portacl/runtime/two_phase.hpp): phase 1 the
// float filter on every query, phase 2 the exact sign of the flagged ones. The predicates, their sign
// conventions and error bounds are in common/predicates.h. Phase 2 in double-float (a device without
// fp64, PORTACL_DOUBLE_FLOAT) writes PRED_DF_HOST where it cannot vouch for the sign: the host's
// exact step decides those (common/predicates_double_float.h).
// Layout: points are packed float x,y,z (point p at points[3p..3p+2]); orient3d queries are 4 uint
// point indices each, insphere queries 5; signs are one char per query (-1, 0, +1).
#include "common/real.h"
#include "common/two_phase.h"
#include "common/predicates.h"
#if PORTACL_DOUBLE_FLOAT
#include "common/predicates_double_float.h"
#endif

inline float3 point_at(__global const float* points, const uint p) { return vload3(p, points); }

__kernel void orient3d_phase1(const uint n, __global uchar* undecided, __global const float* points,
                              __global const uint* queries, __global char* signs) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const uint* q = queries + 4 * (size_t)i;
    uchar flag;
    signs[i] = orient3d_float(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                              point_at(points, q[3]), &flag);
    undecided[i] = flag;
}

__kernel void insphere_phase1(const uint n, __global uchar* undecided, __global const float* points,
                              __global const uint* queries, __global char* signs) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const uint* q = queries + 5 * (size_t)i;
    uchar flag;
    signs[i] = insphere_float(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                              point_at(points, q[3]), point_at(points, q[4]), &flag);
    undecided[i] = flag;
}

#if PORTACL_DOUBLE

__kernel void orient3d_phase2(const uint count, __global const uint* items, const uint direct,
                              __global const float* points, __global const uint* queries, __global char* signs) {
    const uint k = get_global_id(0);
    if (k >= count) return;
    const uint i = two_phase_item(items, direct, k);
    __global const uint* q = queries + 4 * (size_t)i;
    signs[i] = orient3d_exact(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                              point_at(points, q[3]));
}

__kernel void insphere_phase2(const uint count, __global const uint* items, const uint direct,
                              __global const float* points, __global const uint* queries, __global char* signs) {
    const uint k = get_global_id(0);
    if (k >= count) return;
    const uint i = two_phase_item(items, direct, k);
    __global const uint* q = queries + 5 * (size_t)i;
    signs[i] = insphere_exact(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                              point_at(points, q[3]), point_at(points, q[4]));
}

#endif

#if PORTACL_DOUBLE_FLOAT

__kernel void orient3d_phase2(const uint count, __global const uint* items, const uint direct,
                              __global const float* points, __global const uint* queries, __global char* signs) {
    const uint k = get_global_id(0);
    if (k >= count) return;
    const uint i = two_phase_item(items, direct, k);
    __global const uint* q = queries + 4 * (size_t)i;
    signs[i] = orient3d_double_float(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                                     point_at(points, q[3]));
}

__kernel void insphere_phase2(const uint count, __global const uint* items, const uint direct,
                              __global const float* points, __global const uint* queries, __global char* signs) {
    const uint k = get_global_id(0);
    if (k >= count) return;
    const uint i = two_phase_item(items, direct, k);
    __global const uint* q = queries + 5 * (size_t)i;
    signs[i] = insphere_double_float(point_at(points, q[0]), point_at(points, q[1]), point_at(points, q[2]),
                                     point_at(points, q[3]), point_at(points, q[4]));
}

#endif

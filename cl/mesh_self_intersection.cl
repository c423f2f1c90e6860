// Mesh self-intersection (include/portacl/mesh/self_intersection.hpp, docs/mesh.md).
//
// The hierarchy: each triangle's box and the Morton code of its box centre (10 bits per axis) as a
// 64-bit key with the triangle's index below it (keys are unique), a bitonic sort of the keys, the
// binary radix tree of Karras 2012 over them (internal node k: 0 .. n-2, leaf s: n-1+s), the boxes
// refitted from the leaves up (the second of two children to arrive goes on; an animation's later
// frames refit the same tree), and one traversal per
// leaf that tests its triangle against the later leaves whose boxes overlap. The lecture's two
// kernels go over the same pairs without a hierarchy: every triangle against every later one,
// appending to a list through an atomic counter (mesh_brute_pairs) or filling an n x n byte matrix
// (mesh_matrix).
//
// Each pair is decided as it is found (common/mesh_triangle_pair.h): in float builds a pair float
// can decide is appended to the pair list when it intersects, and one it cannot is appended to the
// undecided list, which mesh_pairs_phase2 (double build) decides exactly; double builds decide every
// pair exactly at once. counters: [0] pairs, [1] undecided, [2] candidates (box overlaps), [3] stack
// overflows of the traversal (never expected: the tree is at most 65 deep); a list
// longer than its capacity is counted but not written (the host grows it and runs again).
#include "common/real.h"
#include "common/two_phase.h"
#include "common/mesh_record.h"

#ifndef MESH_STACK
#define MESH_STACK 96
#endif

inline uint mesh_spread10(uint v) {  // 10 bits to every third bit
    v = (v | (v << 16)) & 0x030000FFu;
    v = (v | (v << 8)) & 0x0300F00Fu;
    v = (v | (v << 4)) & 0x030C30C3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

// Boxes and keys; keys past n (up to the sort's power of two) are the largest key.
__kernel void mesh_boxes_morton(const uint n, const uint padded, __global const float* points, __global const uint* tris,
                                const float4 sceneLo, const float4 sceneScale, __global float4* boxLo, __global float4* boxHi,
                                __global ulong* keys) {
    const uint i = get_global_id(0);
    if (i >= padded) return;
    if (i >= n) {
        keys[i] = ULONG_MAX;
        return;
    }
    const float3 p = vload3(tris[3 * (size_t)i], points), q = vload3(tris[3 * (size_t)i + 1], points),
                 r = vload3(tris[3 * (size_t)i + 2], points);
    const float3 lo = fmin(fmin(p, q), r), hi = fmax(fmax(p, q), r);
    boxLo[i] = (float4)(lo, 0.0f);
    boxHi[i] = (float4)(hi, 0.0f);
    const float3 c = clamp((0.5f * (lo + hi) - sceneLo.xyz) * sceneScale.xyz, 0.0f, 1023.0f);
    const uint code = (mesh_spread10((uint)c.x) << 2) | (mesh_spread10((uint)c.y) << 1) | mesh_spread10((uint)c.z);
    keys[i] = ((ulong)code << 32) | i;
}

// Bitonic sort, ascending, of a power-of-two count of keys. The local kernels work on blocks of the
// work-group's size: the whole sort of each block, or the steps j < block size of a merge of size k.
inline void mesh_compare_local(__local ulong* s, const uint lid, const uint gid, const uint j, const uint k) {
    const uint l = lid ^ j;
    if (l > lid) {
        const ulong x = s[lid], y = s[l];
        const bool ascending = (gid & k) == 0;
        if ((x > y) == ascending) {
            s[lid] = y;
            s[l] = x;
        }
    }
}

__kernel void mesh_sort_local(__global ulong* keys, __local ulong* s) {
    const uint lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);
    s[lid] = keys[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 2; k <= size; k <<= 1)
        for (uint j = k >> 1; j > 0; j >>= 1) {
            mesh_compare_local(s, lid, gid, j, k);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    keys[gid] = s[lid];
}

__kernel void mesh_sort_merge_local(__global ulong* keys, const uint k, __local ulong* s) {
    const uint lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);
    s[lid] = keys[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = size >> 1; j > 0; j >>= 1) {
        mesh_compare_local(s, lid, gid, j, k);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    keys[gid] = s[lid];
}

__kernel void mesh_sort_step(__global ulong* keys, const uint j, const uint k) {
    const uint i = get_global_id(0), l = i ^ j;
    if (l <= i) return;
    const ulong x = keys[i], y = keys[l];
    if ((x > y) == ((i & k) == 0)) {
        keys[i] = y;
        keys[l] = x;
    }
}

// Leaves in key order: their triangle and box, their refit flags cleared.
__kernel void mesh_bvh_leaves(const uint n, __global const ulong* keys, __global const float4* boxLo, __global const float4* boxHi,
                              __global uint* sortedTri, __global float4* nodeLo, __global float4* nodeHi, __global uint* done) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    done[n - 1 + s] = 0;
    const uint t = (uint)(keys[s] & 0xffffffffu);
    sortedTri[s] = t;
    nodeLo[n - 1 + s] = boxLo[t];
    nodeHi[n - 1 + s] = boxHi[t];
}

// A frame of an animation: the leaves' boxes from the moved vertices, in the tree's leaf order (the
// tree itself is kept; mesh_bvh_refit then fits the internal boxes).
__kernel void mesh_bvh_leaf_boxes(const uint n, __global const uint* sortedTri, __global const float* points, __global const uint* tris,
                                  __global float4* boxLo, __global float4* boxHi, __global float4* nodeLo, __global float4* nodeHi,
                                  __global uint* done) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    done[n - 1 + s] = 0;
    if (s + 1 < n) done[s] = 0;  // internal node s
    const uint t = sortedTri[s];
    const float3 p = vload3(tris[3 * (size_t)t], points), q = vload3(tris[3 * (size_t)t + 1], points), r = vload3(tris[3 * (size_t)t + 2], points);
    const float4 lo = (float4)(fmin(fmin(p, q), r), 0.0f), hi = (float4)(fmax(fmax(p, q), r), 0.0f);
    boxLo[t] = lo;
    boxHi[t] = hi;
    nodeLo[n - 1 + s] = lo;
    nodeHi[n - 1 + s] = hi;
}

inline int mesh_delta(__global const ulong* keys, const uint n, const int i, const int j) {
    if (j < 0 || j >= (int)n) return -1;
    return (int)clz(keys[i] ^ keys[j]);
}

// Karras 2012, algorithm 2: internal node i's children, its range's last leaf, and the parents; the
// refit's flags of the internal nodes cleared.
__kernel void mesh_bvh_build(const uint n, __global const ulong* keys, __global uint* left, __global uint* right,
                             __global uint* last, __global uint* parent, __global uint* done) {
    const int i = (int)get_global_id(0);
    if (i >= (int)n - 1) return;
    done[i] = 0;  // for the refit
    const int d = mesh_delta(keys, n, i, i + 1) - mesh_delta(keys, n, i, i - 1) > 0 ? 1 : -1;
    const int dmin = mesh_delta(keys, n, i, i - d);
    int lmax = 2;
    while (mesh_delta(keys, n, i, i + lmax * d) > dmin) lmax <<= 1;
    int l = 0;
    for (int t = lmax >> 1; t >= 1; t >>= 1)
        if (mesh_delta(keys, n, i, i + (l + t) * d) > dmin) l += t;
    const int j = i + l * d;
    const int dnode = mesh_delta(keys, n, i, j);
    int s = 0, t = l;
    do {
        t = (t + 1) >> 1;
        if (mesh_delta(keys, n, i, i + (s + t) * d) > dnode) s += t;
    } while (t > 1);
    const int gamma = i + s * d + min(d, 0);
    const uint lo = (uint)min(i, j), hi = (uint)max(i, j);
    const uint a = lo == (uint)gamma ? n - 1 + (uint)gamma : (uint)gamma;
    const uint b = hi == (uint)gamma + 1 ? n - 1 + (uint)gamma + 1 : (uint)gamma + 1;
    left[i] = a;
    right[i] = b;
    last[i] = hi;
    parent[a] = (uint)i;
    parent[b] = (uint)i;
}

// Boxes from the leaves up. A walk that reaches a parent counts its arrival there; the first of the
// two children's walks stops, the second computes the parent's box and goes on. One counter per
// parent, not a flag per child: two walks that each mark their own flag and then look at the
// sibling's may both see it unset on a GPU whose atomics to different words are not ordered with
// each other (NVIDIA's; both walks stop and the box above them is never made), whereas the two
// increments of one word are ordered. Boxes are read and written through atomics (lo, hi: the x, y,
// z words of nodeLo, nodeHi) with a fence on each side of the count, so that the box a walk wrote
// before its count is the one the other reads after its own. done: the counters of the internal
// nodes, cleared by the build.
inline float mesh_atomic_load(__global uint* w) { return as_float(atomic_or(w, 0u)); }

__kernel void mesh_bvh_refit(const uint n, __global const uint* parent, __global const uint* left, __global const uint* right,
                             __global uint* done, __global uint* lo, __global uint* hi) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    uint node = n - 1 + s;
    while (node != 0) {
        const uint p = parent[node];
        const uint a = left[p], b = right[p];
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        if (atomic_inc(&done[p]) == 0u) return;  // the sibling's walk goes on
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        for (uint k = 0; k < 3; ++k) {
            atomic_xchg(&lo[4 * p + k], as_uint(fmin(mesh_atomic_load(&lo[4 * a + k]), mesh_atomic_load(&lo[4 * b + k]))));
            atomic_xchg(&hi[4 * p + k], as_uint(fmax(mesh_atomic_load(&hi[4 * a + k]), mesh_atomic_load(&hi[4 * b + k]))));
        }
        node = p;
    }
}

// The same boxes in passes, without atomics, for a device whose atomics do not order the hand-over
// above (the profile's [mesh] refit = levels: Mesa's llvmpipe): in each pass, an internal node
// whose children were both ready after the previous pass computes its box and becomes ready. A box
// written in a pass is read only in later ones (its node was not ready before), so no two work-items
// of a pass touch the same box. ready: flags of the internal nodes (leaves are always ready).
__kernel void mesh_bvh_refit_level(const uint n, __global const uint* left, __global const uint* right, __global const uint* readyIn,
                                   __global uint* readyOut, __global float4* nodeLo, __global float4* nodeHi) {
    const uint i = get_global_id(0);
    if (i + 1 >= n) return;
    if (readyIn[i]) {
        readyOut[i] = 1;
        return;
    }
    const uint a = left[i], b = right[i];
    const bool ra = a >= n - 1 || readyIn[a], rb = b >= n - 1 || readyIn[b];
    if (ra && rb) {
        nodeLo[i] = fmin(nodeLo[a], nodeLo[b]);
        nodeHi[i] = fmax(nodeHi[a], nodeHi[b]);
    }
    readyOut[i] = ra && rb ? 1 : 0;
}

// One work-item per leaf s: its triangle against the leaves t > s whose boxes overlap.
__kernel void mesh_bvh_pairs(const uint n, __global const uint* sortedTri, __global const uint* left, __global const uint* right,
                             __global const uint* last, __global const float4* nodeLo, __global const float4* nodeHi,
                             __global const uchar* degenerate, __global const float* points, __global const uint* tris,
                             __global uint* counters, __global uint2* pairs, const uint pairCapacity, __global uint2* undecided,
                             const uint undecidedCapacity) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    const uint a = sortedTri[s];
    if (degenerate[a]) return;
    const float4 lo = nodeLo[n - 1 + s], hi = nodeHi[n - 1 + s];
    uint stack[MESH_STACK];
    int top = 0;
    stack[top++] = 0;
    uint candidates = 0;
    while (top > 0) {
        const uint node = stack[--top];
        if (node < n - 1) {
            if (last[node] <= s || !mesh_overlap(lo, hi, nodeLo[node], nodeHi[node])) continue;
            if (top + 2 > MESH_STACK) {  // deeper than any tree of 64-bit keys: said, never silent
                atomic_inc(&counters[3]);
                continue;
            }
            stack[top++] = left[node];
            stack[top++] = right[node];
            continue;
        }
        const uint t = node - (n - 1);
        if (t <= s || !mesh_overlap(lo, hi, nodeLo[node], nodeHi[node])) continue;
        const uint b = sortedTri[t];
        if (degenerate[b]) continue;
        ++candidates;
        mesh_record(min(a, b), max(a, b), points, tris, counters, pairs, pairCapacity, undecided, undecidedCapacity);
    }
    if (candidates) atomic_add(&counters[2], candidates);
}

// The lecture's second kernel: triangle i against every j > i, pairs appended through atomics.
__kernel void mesh_brute_pairs(const uint n, __global const float4* boxLo, __global const float4* boxHi,
                               __global const uchar* degenerate, __global const float* points, __global const uint* tris,
                               __global uint* counters, __global uint2* pairs, const uint pairCapacity, __global uint2* undecided,
                               const uint undecidedCapacity) {
    const uint i = get_global_id(0);
    if (i >= n || degenerate[i]) return;
    const float4 lo = boxLo[i], hi = boxHi[i];
    uint candidates = 0;
    for (uint j = i + 1; j < n; ++j) {
        if (degenerate[j] || !mesh_overlap(lo, hi, boxLo[j], boxHi[j])) continue;
        ++candidates;
        mesh_record(i, j, points, tris, counters, pairs, pairCapacity, undecided, undecidedCapacity);
    }
    if (candidates) atomic_add(&counters[2], candidates);
}

// The lecture's first kernel: row i of the n x n matrix, entry j > i: 0 no contact, 1 intersecting,
// 2 or 3 undecided, float's guess no or yes (float builds only).
__kernel void mesh_matrix(const uint n, __global const float4* boxLo, __global const float4* boxHi, __global const uchar* degenerate,
                          __global const float* points, __global const uint* tris, __global uchar* matrix, __global uint* counters) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global uchar* row = matrix + (size_t)i * n;
    const float4 lo = boxLo[i], hi = boxHi[i];
    float3 t[3];
    uint it[3];
    mesh_corners(points, tris, i, t, it);
    uint candidates = 0;
    for (uint j = i + 1; j < n; ++j) {
        uchar code = 0;
        if (!degenerate[i] && !degenerate[j] && mesh_overlap(lo, hi, boxLo[j], boxHi[j])) {
            ++candidates;
            float3 u[3];
            uint iu[3];
            mesh_corners(points, tris, j, u, iu);
            uchar flag = 0;
            const bool hit = mesh_pair(t, it, u, iu, &flag);
            code = flag ? (hit ? 3 : 2) : (hit ? 1 : 0);
        }
        row[j] = code;
    }
    if (candidates) atomic_add(&counters[2], candidates);
}

// Phase 2 (double builds): the exact decision of each undecided pair; result[k] for undecided[k].
__kernel void mesh_pairs_phase2(__global const uint* counters, __global const uint2* undecided, __global const float* points,
                                __global const uint* tris, __global uchar* result) {
#if PORTACL_DOUBLE
    const uint count = counters[1];
    for (uint k = get_global_id(0); k < count; k += get_global_size(0)) {
        const uint2 ab = (uint2)(undecided[k].x, undecided[k].y & 0x7fffffffu);
        float3 t[3], u[3];
        uint it[3], iu[3];
        mesh_corners(points, tris, ab.x, t, it);
        mesh_corners(points, tris, ab.y, u, iu);
        uchar unused = 0;
        result[k] = mesh_pair(t, it, u, iu, &unused) ? 1 : 0;
    }
#endif
}

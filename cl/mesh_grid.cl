// The uniform-grid broad phase of the mesh self-intersection (host/mesh/grid.cpp, docs/mesh.md): the
// scene's box cut into cells of about one triangle's extent; each triangle binned into every cell
// its box touches by a counting sort (counts per cell, an exclusive scan of the counts, then each
// triangle writes itself at its cells' cursors); then one work-item per (triangle, cell) entry pairs
// it with the later entries of its cell. A pair of overlapping boxes shares several cells; it is
// decided only in the first of them, the cell of the low corner of the two boxes' intersection
// (per axis the larger of the two low cell indices), so that each pair is decided once.
//
// cellLo, cellHi: each triangle's range of cells (uint4, w unused), written once by
// mesh_grid_count and read by every later kernel, so that all agree on it; a degenerate triangle
// takes no cell. Cells are numbered x-major: (x * dims.y + y) * dims.z + z.
#include "common/real.h"
#include "common/two_phase.h"
#include "common/mesh_record.h"

#ifndef MESH_SCAN_ITEMS
#define MESH_SCAN_ITEMS 8
#endif
#define GROUP_SCAN_ITEMS MESH_SCAN_ITEMS
#include "common/group_scan.h"

inline uint mesh_cell_index(const uint4 c, const uint4 dims) { return (c.x * dims.y + c.y) * dims.z + c.z; }

inline uint4 mesh_cell_of(const float3 p, const float4 sceneLo, const float4 inverseCell, const uint4 dims) {
    const float3 f = fmax((p - sceneLo.xyz) * inverseCell.xyz, (float3)(0.0f));
    const uint4 c = (uint4)(convert_uint3_rtz(fmin(f, (float3)(16777216.0f))), 0u);
    return min(c, dims - (uint4)(1u));
}

// Boxes, cell ranges, and the count of triangles per cell.
__kernel void mesh_grid_count(const uint n, __global const float* points, __global const uint* tris, __global const uchar* degenerate,
                              const float4 sceneLo, const float4 inverseCell, const uint4 dims, __global float4* boxLo,
                              __global float4* boxHi, __global uint4* cellLo, __global uint4* cellHi, __global uint* counts) {
    const uint t = get_global_id(0);
    if (t >= n) return;
    const float3 p = vload3(tris[3 * (size_t)t], points), q = vload3(tris[3 * (size_t)t + 1], points),
                 r = vload3(tris[3 * (size_t)t + 2], points);
    const float3 lo = fmin(fmin(p, q), r), hi = fmax(fmax(p, q), r);
    boxLo[t] = (float4)(lo, 0.0f);
    boxHi[t] = (float4)(hi, 0.0f);
    if (degenerate[t]) {  // an empty range: hi below lo
        cellLo[t] = (uint4)(1u);
        cellHi[t] = (uint4)(0u);
        return;
    }
    const uint4 a = mesh_cell_of(lo, sceneLo, inverseCell, dims), b = mesh_cell_of(hi, sceneLo, inverseCell, dims);
    cellLo[t] = a;
    cellHi[t] = b;
    for (uint x = a.x; x <= b.x; ++x)
        for (uint y = a.y; y <= b.y; ++y)
            for (uint z = a.z; z <= b.z; ++z) atomic_inc(&counts[mesh_cell_index((uint4)(x, y, z, 0u), dims)]);
}

// The scan of the counts in three launches. A tile is local size * MESH_SCAN_ITEMS counts; work-item
// l of tile g owns the MESH_SCAN_ITEMS consecutive counts from (g * local size + l) * MESH_SCAN_ITEMS.
inline uint mesh_own_sum(__global const uint* counts, const uint cells, const uint first) {
    uint s = 0;
    for (uint j = 0; j < MESH_SCAN_ITEMS; ++j)
        if (first + j < cells) s += counts[first + j];
    return s;
}

__kernel void mesh_grid_scan_tiles(__global const uint* counts, const uint cells, __global uint* tileSums, __local uint* scratch) {
    uint total;
    group_exclusive_scan(mesh_own_sum(counts, cells, (uint)get_global_id(0) * MESH_SCAN_ITEMS), scratch, &total);
    if (get_local_id(0) == 0) tileSums[get_group_id(0)] = total;
}

// ONE work-group: tileSums[g] becomes the sum of the tiles before g; starts[cells] the total.
__kernel void mesh_grid_scan_sums(__global uint* tileSums, const uint tiles, __global uint* starts, const uint cells,
                                  __local uint* scratch) {
    const uint total = group_scan_in_place(tileSums, tiles, scratch);
    if (get_local_id(0) == 0) starts[cells] = total;
}

// starts[c]: the entries before cell c; the counts become the cells' cursors, which start there (in
// place: each work-item reads and writes only its own counts).
__kernel void mesh_grid_scan_apply(__global uint* counts, const uint cells, __global const uint* tileSums, __global uint* starts,
                                   __local uint* scratch) {
    const uint first = (uint)get_global_id(0) * MESH_SCAN_ITEMS;
    uint total;
    uint running = tileSums[get_group_id(0)] + group_exclusive_scan(mesh_own_sum(counts, cells, first), scratch, &total);
    for (uint j = 0; j < MESH_SCAN_ITEMS; ++j)
        if (first + j < cells) {
            const uint c = counts[first + j];
            starts[first + j] = running;
            counts[first + j] = running;
            running += c;
        }
}

// Each triangle into its cells: entries[k] = (triangle, cell), grouped by cell.
__kernel void mesh_grid_fill(const uint n, __global const uint4* cellLo, __global const uint4* cellHi, const uint4 dims,
                             __global uint* cursors, __global uint2* entries) {
    const uint t = get_global_id(0);
    if (t >= n) return;
    const uint4 a = cellLo[t], b = cellHi[t];
    for (uint x = a.x; x <= b.x; ++x)
        for (uint y = a.y; y <= b.y; ++y)
            for (uint z = a.z; z <= b.z; ++z) {
                const uint c = mesh_cell_index((uint4)(x, y, z, 0u), dims);
                entries[atomic_inc(&cursors[c])] = (uint2)(t, c);
            }
}

// Entry k against the later entries of its cell: a pair whose boxes overlap, decided in the first
// cell the two share.
__kernel void mesh_grid_pairs(const uint entryCount, __global const uint2* entries, __global const uint* starts, const uint4 dims,
                              __global const uint4* cellLo, __global const float4* boxLo, __global const float4* boxHi,
                              __global const float* points, __global const uint* tris, __global uint* counters, __global uint2* pairs,
                              const uint pairCapacity, __global uint2* undecided, const uint undecidedCapacity) {
    const uint k = get_global_id(0);
    if (k >= entryCount) return;
    const uint2 e = entries[k];
    const uint a = e.x, cell = e.y, end = starts[cell + 1];
    const float4 lo = boxLo[a], hi = boxHi[a];
    const uint4 ca = cellLo[a];
    uint candidates = 0;
    for (uint j = k + 1; j < end; ++j) {
        const uint b = entries[j].x;
        if (!mesh_overlap(lo, hi, boxLo[b], boxHi[b])) continue;
        if (mesh_cell_index(max(ca, cellLo[b]), dims) != cell) continue;  // decided in an earlier shared cell
        ++candidates;
        mesh_record(min(a, b), max(a, b), points, tris, counters, pairs, pairCapacity, undecided, undecidedCapacity);
    }
    if (candidates) atomic_add(&counters[2], candidates);
}

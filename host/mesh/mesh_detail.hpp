// What the mesh workload's files share (private to host/mesh/; the tests may include it).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "portacl/export.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/two_phase.hpp"

namespace portacl::mesh::detail {

struct Box {
    std::array<float, 3> lo, hi;
};
inline bool overlap(const Box& a, const Box& b) {
    for (int k = 0; k < 3; ++k)
        if (a.hi[std::size_t(k)] < b.lo[std::size_t(k)] || b.hi[std::size_t(k)] < a.lo[std::size_t(k)]) return false;
    return true;
}
// Each triangle's closed bounding box.
std::vector<Box> triangleBoxes(const TriangleMesh& m);
// The exact orient3d sign of float points: a double filter, then big integers.
PORTACL_API int orient3dHost(const float* a, const float* b, const float* c, const float* d);


// Walks a PLY file's header and items as CGAL's reader will, throwing one sentence for a declared
// count or list length that the file cannot hold (before that reader sizes anything by it).
void checkPlyLayout(const std::string& path);
// An OFF file's vertices (x, y, z each) and faces, ASCII or binary; throws one sentence for a
// malformed or truncated file.
void readOff(const std::string& path, std::vector<double>& xyz, std::vector<std::vector<std::size_t>>& faces);

constexpr const char* kSource = "mesh_self_intersection.cl";
// A mesh kernel, built with the profile's [mesh] build_options (a vendor compiler that miscompiles it)
// and `extra`.
inline cl::Kernel& meshKernel(Context& ctx, const std::string& source, const char* name, Precision element, const std::string& extra = "") {
    return ctx.kernel(source, name, element, ctx.tuning().withBuildOptions("mesh", extra));
}
// The build option of the kernels that decide pairs under a touching convention.
inline std::string touchingOption(Touching t) { return t == Touching::Ignore ? "-DMESH_IGNORE_TOUCHING=1" : ""; }
std::size_t pow2AtLeast(std::size_t n);

// The device's hierarchy over the triangles: the triangles in key order (leaf s holds sortedTri[s])
// and Karras's tree (internal node k: children left[k], right[k], its leaves' range ends at last[k];
// leaf s is node n - 1 + s), each node's box in nodeLo, nodeHi (float4, w unused).
struct Hierarchy {
    cl::Buffer sortedTri, left, right, last, nodeLo, nodeHi;
    cl::Buffer parent, arrivals;  // for refitting
};
// Builds it; boxLo, boxHi receive each triangle's box in the triangles' own order (room for
// pow2AtLeast(n) float4 each). The launches' events are appended to `events`.
Hierarchy buildHierarchy(Context& ctx, const TriangleMesh& m, const cl::Buffer& points, const cl::Buffer& tris,
                         const cl::Buffer& boxLo, const cl::Buffer& boxHi, std::vector<cl::Event>& events);
// Side of one point by rays over every triangle whose box meets them (exact): the six axis
// directions towards farLo / farHi, then random directions; `boxes` from triangleBoxes,
// `degenerate` one flag per triangle. Returns 0 outside, 1 inside, 2 boundary.
int pointSideHost(const TriangleMesh& m, const std::vector<Box>& boxes, const std::vector<std::uint8_t>& degenerate, const float* q,
                  const float* farLo, const float* farHi, bool axisFirst);
// The box of the mesh and the query points, pushed out by its extent plus one: where rays end.
void rayEnds(const TriangleMesh& m, const std::vector<float>& queries, float farLo[3], float farHi[3]);
// The boxes of the same tree from new positions (an animation's frame): leaves, then the refit.
void refitHierarchy(Context& ctx, const Hierarchy& h, std::size_t n, const cl::Buffer& points, const cl::Buffer& tris,
                    const cl::Buffer& boxLo, const cl::Buffer& boxHi, std::vector<cl::Event>& events);
// A mesh on the device: positions, triangles, degenerate flags, each triangle's box, the counters.
struct DeviceMesh {
    cl::Buffer points, tris, degen, boxLo, boxHi, counters;
};
// The uniform grid (cl/mesh_grid.cl): cubic cells of the mean over the triangles of their boxes'
// largest side, over the box of the vertices, at most kCellsPerTriangle cells per triangle (larger
// cells where the scene is much larger than its triangles).
constexpr std::size_t kCellsPerTriangle = 8;
struct GridShape {
    float lo[3] = {0, 0, 0};
    float inverseCell = 0;
    std::uint32_t dims[3] = {1, 1, 1};
    std::size_t cells = 1;
    double entryBound = 0;  // at most this many (triangle, cell) entries
};
PORTACL_API GridShape gridShape(const TriangleMesh& m, const std::vector<std::uint8_t>& degenerate);
// The triangles binned into the cells (a counting sort on the device): entries (triangle, cell)
// grouped by cell, starts[c] the first entry of cell c (starts[cells]: their count), each
// triangle's lowest cell. Boxes are written into d.boxLo, d.boxHi.
struct Grid {
    GridShape shape;
    cl_uint4 dims{{1, 1, 1, 1}};
    cl::Buffer entries, starts, cellLo;
    std::size_t entryCount = 0;
};
Grid buildGrid(Context& ctx, const TriangleMesh& m, const std::vector<std::uint8_t>& degenerate, const DeviceMesh& d,
               std::vector<cl::Event>& events);
DeviceMesh uploadMesh(Context& ctx, const TriangleMesh& m, const std::vector<std::uint8_t>& degenerate);
// Refuses, in one sentence, a mesh whose working set does not fit the device.
void checkFitsFor(Context& ctx, const TriangleMesh& m, Method method);
// The pairs of a mesh on the device whose boxes (and, for the hierarchy, tree) are up to date: the
// finder kernel, then phase 2 or the host's exact step for the pairs float left undecided. `r`
// arrives with its degenerate list.
// `grid` for Method::Grid, `h` for Method::Hierarchy.
Result findPairs(Context& ctx, const TriangleMesh& m, const Options& opt, const TwoPhaseList& plan, const DeviceMesh& d,
                 const Hierarchy& h, std::vector<cl::Event>& events, Result r, const Grid& grid = Grid{});
// f(begin, end) on consecutive chunks of [0, n), at least `grain` items each, on the calling thread
// and up to the host's hardware threads less one; returns when all are done. f must not throw.
void onHostThreads(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f);
// The exact decision of each pair on the host (trianglesIntersect), over the host's threads for a
// long list: 1 where the pair intersects.
std::vector<std::uint8_t> decideOnHost(const TriangleMesh& m, const std::vector<FacePair>& pairs, Touching touching);
// The summed device time of events (0 where the queue has no profiling).
double eventSeconds(const std::vector<cl::Event>& events);

}  // namespace portacl::mesh::detail

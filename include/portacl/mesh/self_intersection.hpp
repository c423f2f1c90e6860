// Self-intersection of a triangle mesh: every pair of triangles that meet, with adjacency by vertex
// index, as CGAL's Polygon_mesh_processing::self_intersections decides it for a mesh (docs/mesh.md):
//   - triangles that share no vertex index: they intersect when the closed triangles have a point
//     in common (touching counts);
//   - that share one vertex index: when the edge opposite that vertex in either triangle meets the
//     other triangle (they meet somewhere besides the shared vertex);
//   - that share two (an edge): when they are coplanar and their third vertices lie strictly on the
//     same side of that edge (a fold onto itself);
//   - that share all three (the same triangle twice): always.
// That is Touching::Count. Touching::Ignore counts a pair only when the relative interiors of the two
// triangles have a point in common (the open triangles, without their edges and corners, meet): a
// contact only along edges or at corners, whatever the vertex indices, is a touch and is left out.
// A degenerate triangle (its three positions collinear, a repeated index among them) takes part in
// no pair; it is listed in Result::degenerate (CGAL reports it as the pair (f, f)).
// Every decision is exact for the float positions: orient3d signs, in float with an error bound where
// that can vouch for them, else exactly (the engine's predicates, cl/common/predicates.h).
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"
#include "portacl/runtime/two_phase.hpp"

namespace portacl::mesh {

// How the device finds the candidate pairs (every method finds the same pairs).
enum class Method {
    Auto,        // the device profile's [mesh] broad_phase, grid or hierarchy (hierarchy where it names none)
    Hierarchy,   // a bounding-volume hierarchy built on the device from sorted Morton codes (Karras 2012)
    AtomicList,  // the lecture's second kernel: each triangle against every later one, pairs appended through an atomic counter
    Matrix,      // the lecture's first kernel: an n x n byte matrix (n^2 bytes of device memory)
    Grid,        // a uniform grid of cells about one triangle wide, the triangles binned by a counting sort on the device
};
PORTACL_API const char* methodName(Method m);  // "auto", "hierarchy", "atomic-list", "matrix", "grid"
// The method Auto stands for on this context's device (any other method is itself).
PORTACL_API Method resolvedMethod(Context& ctx, Method m);

// Whether two triangles that only touch (their closed triangles meet, their relative interiors do not)
// are a pair. Count: as CGAL's do_intersect on closed triangles, under the adjacency rules above.
// Ignore: a pair only when the relative interiors meet (docs/mesh.md).
enum class Touching { Count, Ignore };
PORTACL_API const char* touchingName(Touching t);  // "count", "ignore"

using FacePair = std::pair<std::uint32_t, std::uint32_t>;  // first < second

struct PORTACL_API Options {
    Method method = Method::Auto;
    // Every mode gives the same, exact pairs. Float: float where its error bound vouches for the
    // answer, and the pairs it cannot decide (report.undecided) decided exactly on the host, without
    // the device's fp64. Mixed: the same, those pairs decided on the device in double (on the host
    // where the device has no fp64). Double: the exact decision of every candidate on the device.
    Precision precision = Precision::Mixed;
    Touching touching = Touching::Count;
};

struct PORTACL_API Result {
    std::vector<FacePair> pairs;             // sorted
    std::vector<std::uint32_t> degenerate;   // degenerate triangles, increasing
    std::size_t candidates = 0;              // pairs whose bounding boxes overlap (pairs tested exactly or in float)
    TwoPhaseReport report;                   // items: candidates; undecided: what float could not decide
    // Of those undecided pairs (Float and Mixed), how many float's own guess had wrong: the pairs that
    // float alone would have added or left out.
    std::size_t floatGuessesWrong = 0;
    double deviceSeconds = 0;                // device time of every kernel of the call (0 for the references)
    Method method = Method::Auto;            // the method that ran (Auto for the references)
};

// The faces that take part in at least one pair, increasing.
PORTACL_API std::vector<std::uint32_t> facesInvolved(const std::vector<FacePair>& pairs);

// On the device. Throws portacl::Error for an invalid mesh (validate), for Double on a device without
// fp64, and for the Matrix method when n^2 bytes do not fit the device.
PORTACL_API Result selfIntersections(Context& ctx, const TriangleMesh& m, const Options& opt = {});

// The serial C++ reference: a sweep over the boxes' x-extents and the same exact decision per pair
// (a double filter, then big-integer orient3d).
PORTACL_API Result selfIntersectionsReference(const TriangleMesh& m, Touching touching = Touching::Count);

// The CPU peer: CGAL's box_self_intersection_d broad phase and CGAL's exact predicates (Epick's
// do_intersect, coplanar, coplanar_orientation) under the rules above, sequential: what
// Polygon_mesh_processing::self_intersections does, on the soup with adjacency by index. `parallel`:
// CGAL's box intersection over TBB's threads (every core), where CGAL was built with TBB
// (cgalParallelAvailable(); otherwise it runs sequentially). Touching::Ignore: of the pairs CGAL's
// do_intersect finds, those whose intersection, constructed exactly (Epeck's triangle-triangle
// intersection), has a point in both relative interiors.
PORTACL_API Result selfIntersectionsCgal(const TriangleMesh& m, bool parallel = false, Touching touching = Touching::Count);
PORTACL_API bool cgalParallelAvailable();

// The exact decision for one pair of triangles (indices into m), under the rules above; both must be
// non-degenerate. What the references and the device's fallback on the host use.
PORTACL_API bool trianglesIntersect(const TriangleMesh& m, std::uint32_t a, std::uint32_t b, Touching touching = Touching::Count);
PORTACL_API bool isDegenerate(const TriangleMesh& m, std::uint32_t t);

}  // namespace portacl::mesh

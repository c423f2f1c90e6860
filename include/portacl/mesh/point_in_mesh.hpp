// Point-in-mesh, the other algorithm of Rueda and Ortega's paper: each query point inside, outside or
// on the boundary of a closed triangle mesh, by the parity of the crossings of a ray from the point,
// on the device hierarchy of the self-intersection. Exact: the crossings are orient3d signs (float
// where its filter vouches for them, else exact), a point on a triangle is on the boundary, and a ray
// that meets an edge or a vertex, or runs in a triangle's plane, is given up for the next of the six
// axis directions (then, rarely, random directions on the host).
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"

namespace portacl::mesh {

enum class Side : std::int8_t { Outside = 0, Inside = 1, Boundary = 2 };
PORTACL_API const char* sideName(Side s);  // "outside", "inside", "boundary"

struct PORTACL_API SideResult {
    std::vector<Side> sides;     // one per query point
    std::size_t undecided = 0;   // points float could not classify (decided in double, or on the host)
    std::size_t hostPoints = 0;  // points classified on the host (every axis ray degenerate, Float mode's undecided, or no fp64)
    // Of the undecided points the host classified, how many float's own answer had wrong.
    std::size_t floatGuessesWrong = 0;
    double hostSeconds = 0;      // wall time of the host's classification of its points
    double deviceSeconds = 0;
};

// Throws portacl::Error in one sentence unless every edge of the mesh (by vertex index) borders an
// even number of triangles (a closed mesh; --merge-vertices may close one whose seams repeat vertices).
PORTACL_API void requireClosed(const TriangleMesh& m);

// `points`: x, y, z per point. Finite coordinates (else one sentence). Degenerate triangles are
// ignored (they bound nothing). Every mode is exact: Float classifies the points float could not
// decide on the host (without the device's fp64), Mixed in double on the device (on the host without
// fp64), Double every point in double on the device.
PORTACL_API SideResult classifyPoints(Context& ctx, const TriangleMesh& m, const std::vector<float>& points,
                                      Precision mode = Precision::Mixed);
// The serial reference: the same rays over every triangle, exact signs.
PORTACL_API SideResult classifyPointsReference(const TriangleMesh& m, const std::vector<float>& points);
// The peer: CGAL's Side_of_triangle_mesh (an AABB tree and exact predicates) on the mesh made from
// the soup.
PORTACL_API SideResult classifyPointsCgal(const TriangleMesh& m, const std::vector<float>& points);

// A text file of points, three numbers per line ('#' starts a comment). One sentence for a missing
// file, a malformed line (with its number), a coordinate that is not finite, or no points.
PORTACL_API std::vector<float> readPoints(const std::string& path);

}  // namespace portacl::mesh

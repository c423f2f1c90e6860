// A triangle mesh as the mesh workload holds it: float vertex positions and vertex-index triples (a
// polygon soup fanned into triangles), read from OBJ, PLY or STL (ASCII and binary) through CGAL's
// polygon-soup reader, or from OFF (ASCII and binary) by the engine's own reader. Positions are
// rounded to float on reading: every geometric answer of the workload is exact for the float positions.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace portacl::mesh {

struct PORTACL_API TriangleMesh {
    std::vector<float> points;            // x, y, z of vertex v at [3v, 3v + 2]
    std::vector<std::uint32_t> triangles;  // vertex indices of triangle t at [3t, 3t + 2]
    std::size_t polygons = 0;              // faces in the file (a polygon of k corners gives k - 2 triangles)
    std::string path;                      // where it was read from ("" when made in memory)

    std::size_t vertexCount() const { return points.size() / 3; }
    std::size_t triangleCount() const { return triangles.size() / 3; }
};

// Reads a mesh; the format comes from the extension (.obj, .off, .ply, .stl; PLY and STL in ASCII or
// binary). Polygons of k > 3 corners are fanned from their first corner into k - 2 triangles.
// Throws portacl::Error in one sentence for a missing or unreadable file, an unknown extension, a file
// the reader rejects (malformed or truncated), a count or list length the file cannot hold, an empty
// mesh, a face of fewer than 3 corners, a vertex index out of range, or a coordinate that is not
// finite (or too large for float).
PORTACL_API TriangleMesh readMesh(const std::string& path);

// The same checks on a mesh made in memory (index range, finite coordinates, at least one triangle).
PORTACL_API void validate(const TriangleMesh& m);

// Welds vertices at most `eps` apart (Euclidean distance; 0: the same position): each vertex takes the
// index of the first vertex of its cluster (clusters are the connected components of "at most
// eps apart", so a chain may span more than eps). Positions and the triangle count are kept; only indices
// change. Returns how many vertices took another's index.
PORTACL_API std::size_t mergeVertices(TriangleMesh& m, double eps);

}  // namespace portacl::mesh

namespace portacl::mesh {

// Generated meshes for the tests and the benchmark. crossingGrids(k): three grids of k x k squares
// (two triangles each): one in the plane z = 0 over [0, k]^2, a second in the same plane moved by
// (0.5, 0.25) (coplanar overlaps, whose orient3d signs are exactly 0, which float cannot decide),
// and a third tilted one, z = (x - k/2) / 4, that crosses both.
PORTACL_API TriangleMesh crossingGrids(int k);
// `copies` copies of m, copy c moved by c * shift along x (overlapping one another where the shift is
// smaller than the mesh): what the benchmark scales a real mesh with.
PORTACL_API TriangleMesh overlappingCopies(const TriangleMesh& m, int copies, float shift);

}  // namespace portacl::mesh

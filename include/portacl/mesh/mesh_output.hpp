// What `portacl mesh-intersect` writes besides its pair list: a copy of the mesh with the faces of the
// answer coloured, as a binary little-endian PLY that MeshLab, Blender and CGAL read. Written
// atomically (complete or absent).
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/mesh/triangle_mesh.hpp"

namespace portacl::mesh {

// Faces in `involved` red (220, 40, 40), those in `degenerate` yellow (240, 200, 0), the others light
// grey (190, 190, 190); both lists increasing. One PLY face per triangle (polygons stay fanned).
PORTACL_API void writeColouredPly(const std::string& path, const TriangleMesh& m, const std::vector<std::uint32_t>& involved,
                                  const std::vector<std::uint32_t>& degenerate);

}  // namespace portacl::mesh

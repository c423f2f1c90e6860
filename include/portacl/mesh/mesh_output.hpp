// What `portacl mesh-intersect` writes besides its pair list: a copy of the mesh with the faces of the
// answer coloured, as a binary little-endian PLY that MeshLab, Blender and CGAL read (written
// atomically: complete or absent), and a picture of the mesh from three directions.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/io/image.hpp"
#include "portacl/mesh/triangle_mesh.hpp"

namespace portacl::mesh {

// Faces in `involved` red (220, 40, 40), those in `degenerate` yellow (240, 200, 0), the others light
// grey (190, 190, 190); both lists increasing. One PLY face per triangle (polygons stay fanned).
PORTACL_API void writeColouredPly(const std::string& path, const TriangleMesh& m, const std::vector<std::uint32_t>& involved,
                                  const std::vector<std::uint32_t>& degenerate);

// The mesh from the front (looking down -z), the side (down -x) and the top (down -y), side by side,
// each `panel` pixels square, orthographic, flat-shaded grey; the faces in `involved` red, and where
// another face hides them, shown through it in a paler red (so that crossings inside the mesh are
// seen); degenerate faces yellow. RGB, 8 bits.
PORTACL_API io::Image meshPicture(const TriangleMesh& m, const std::vector<std::uint32_t>& involved,
                                  const std::vector<std::uint32_t>& degenerate, int panel = 400);

}  // namespace portacl::mesh

// What the mesh workload's files share (private to host/mesh/; the tests may include it).
#pragma once

#include <array>
#include <vector>

#include "portacl/export.hpp"
#include "portacl/mesh/triangle_mesh.hpp"

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

}  // namespace portacl::mesh::detail

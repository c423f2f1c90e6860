// The coloured copy of a mesh (include/portacl/mesh/mesh_output.hpp): binary little-endian PLY with a
// colour per face.
#include <algorithm>
#include <cstring>
#include <ostream>

#include "portacl/mesh/mesh_output.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::mesh {
namespace {

template <typename T>
void put(std::ostream& os, T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // the hosts the engine builds on are little-endian
    os.write(b, sizeof(T));
}

}  // namespace

void writeColouredPly(const std::string& path, const TriangleMesh& m, const std::vector<std::uint32_t>& involved,
                      const std::vector<std::uint32_t>& degenerate) {
    writeFileAtomically(
        path,
        [&](std::ostream& os) {
            os << "ply\nformat binary_little_endian 1.0\ncomment portacl mesh-intersect: red faces intersect another, yellow are degenerate\n"
               << "element vertex " << m.vertexCount() << "\nproperty float x\nproperty float y\nproperty float z\n"
               << "element face " << m.triangleCount() << "\nproperty list uchar int vertex_indices\n"
               << "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n";
            for (float c : m.points) put(os, c);
            for (std::uint32_t t = 0; t < m.triangleCount(); ++t) {
                put(os, std::uint8_t(3));
                for (int i = 0; i < 3; ++i) put(os, std::int32_t(m.triangles[3 * std::size_t(t) + std::size_t(i)]));
                const bool hit = std::binary_search(involved.begin(), involved.end(), t);
                const bool bad = std::binary_search(degenerate.begin(), degenerate.end(), t);
                const std::uint8_t rgb[3] = {std::uint8_t(hit ? 220 : bad ? 240 : 190), std::uint8_t(hit ? 40 : bad ? 200 : 190),
                                             std::uint8_t(hit ? 40 : bad ? 0 : 190)};
                for (std::uint8_t c : rgb) put(os, c);
            }
        },
        true);
}

}  // namespace portacl::mesh

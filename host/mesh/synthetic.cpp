// Generated meshes for the tests and the benchmark (include/portacl/mesh/triangle_mesh.hpp).
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh {
namespace {

void addGrid(TriangleMesh& m, int k, float dx, float dy, float tilt) {
    const std::uint32_t base = std::uint32_t(m.vertexCount());
    for (int y = 0; y <= k; ++y)
        for (int x = 0; x <= k; ++x) {
            m.points.push_back(float(x) + dx);
            m.points.push_back(float(y) + dy);
            m.points.push_back(tilt * (float(x) - 0.5f * float(k)));
        }
    auto at = [&](int x, int y) { return base + std::uint32_t(y * (k + 1) + x); };
    for (int y = 0; y < k; ++y)
        for (int x = 0; x < k; ++x) {
            for (std::uint32_t v : {at(x, y), at(x + 1, y), at(x + 1, y + 1)}) m.triangles.push_back(v);
            for (std::uint32_t v : {at(x, y), at(x + 1, y + 1), at(x, y + 1)}) m.triangles.push_back(v);
        }
    m.polygons += std::size_t(2 * k * k);
}

}  // namespace

TriangleMesh crossingGrids(int k) {
    if (k < 1) throw Error("crossingGrids needs at least one square per side");
    TriangleMesh m;
    addGrid(m, k, 0, 0, 0);
    addGrid(m, k, 0.5f, 0.25f, 0);
    addGrid(m, k, 0, 0, 0.25f);
    return m;
}

TriangleMesh overlappingCopies(const TriangleMesh& m, int copies, float shift) {
    if (copies < 1) throw Error("overlappingCopies needs at least one copy");
    TriangleMesh out;
    out.points.reserve(m.points.size() * std::size_t(copies));
    out.triangles.reserve(m.triangles.size() * std::size_t(copies));
    for (int c = 0; c < copies; ++c) {
        const std::uint32_t base = std::uint32_t(out.vertexCount());
        for (std::size_t i = 0; i < m.points.size(); ++i) out.points.push_back(m.points[i] + (i % 3 == 0 ? float(c) * shift : 0.0f));
        for (std::uint32_t v : m.triangles) out.triangles.push_back(v + base);
    }
    out.polygons = m.polygons * std::size_t(copies);
    return out;
}

}  // namespace portacl::mesh

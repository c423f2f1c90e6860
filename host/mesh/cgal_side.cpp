// The point-in-mesh peer: CGAL's Side_of_triangle_mesh (an AABB tree over the faces, exact
// predicates) on a Surface_mesh made from the soup.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/polygon_soup_to_polygon_mesh.h>
#include <CGAL/Side_of_triangle_mesh.h>
#include <CGAL/Surface_mesh.h>

#include "portacl/mesh/point_in_mesh.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh {

SideResult classifyPointsCgal(const TriangleMesh& m, const std::vector<float>& points) {
    using K = CGAL::Exact_predicates_inexact_constructions_kernel;
    using Mesh = CGAL::Surface_mesh<K::Point_3>;
    validate(m);
    std::vector<K::Point_3> pts;
    for (std::size_t v = 0; v < m.vertexCount(); ++v) pts.emplace_back(m.points[3 * v], m.points[3 * v + 1], m.points[3 * v + 2]);
    std::vector<std::vector<std::size_t>> faces;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) faces.push_back({m.triangles[3 * t], m.triangles[3 * t + 1], m.triangles[3 * t + 2]});
    if (!CGAL::Polygon_mesh_processing::is_polygon_soup_a_polygon_mesh(faces))
        throw Error("CGAL's point-in-mesh needs a soup that is a polygon mesh (manifold, consistently oriented)");
    Mesh mesh;
    CGAL::Polygon_mesh_processing::polygon_soup_to_polygon_mesh(pts, faces, mesh);
    CGAL::Side_of_triangle_mesh<Mesh, K> side(mesh);
    SideResult r;
    for (std::size_t i = 0; i + 2 < points.size(); i += 3) {
        const auto s = side(K::Point_3(points[i], points[i + 1], points[i + 2]));
        r.sides.push_back(s == CGAL::ON_BOUNDED_SIDE ? Side::Inside : s == CGAL::ON_BOUNDARY ? Side::Boundary : Side::Outside);
    }
    return r;
}

}  // namespace portacl::mesh

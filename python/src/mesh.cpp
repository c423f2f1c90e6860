// Self-intersection of a triangle mesh given as NumPy arrays: vertices (V, 3) and faces (F, 3) in,
// the pairs of faces that meet out, as `portacl mesh-intersect` decides them (docs/mesh.md).
#include "common.hpp"

#include <cmath>
#include <limits>

#include "portacl/mesh/self_intersection.hpp"
#include "portacl/mesh/triangle_mesh.hpp"

namespace portacl::python {

namespace {

// The library holds positions as float and decides exactly on them: float32 vertices are taken as
// they are, float64 ones rounded to float once (as the mesh reader does). Faces: any integer dtype.
mesh::TriangleMesh meshOf(const py::object& vertices, const py::object& faces) {
    for (const auto& [obj, name] : {std::pair{vertices, "vertices"}, std::pair{faces, "faces"}})
        if (!py::isinstance<py::array>(obj))
            throw py::type_error(std::string(name) + " must be a NumPy array, not " + std::string(py::str(py::type::of(obj).attr("__name__"))));
    const auto va = py::reinterpret_borrow<py::array>(vertices), fa = py::reinterpret_borrow<py::array>(faces);
    if (va.dtype().kind() != 'f') throw py::type_error("vertices must have dtype float32 or float64, not " + std::string(py::str(py::object(va.dtype()))));
    if (fa.dtype().kind() != 'i' && fa.dtype().kind() != 'u')
        throw py::type_error("faces must have an integer dtype, not " + std::string(py::str(py::object(fa.dtype()))));
    if (va.ndim() != 2 || va.shape(1) != 3)
        throw py::value_error("vertices must be a (V, 3) array of x, y, z, not shape " + std::string(py::str(vertices.attr("shape"))));
    if (fa.ndim() != 2 || fa.shape(1) != 3)
        throw py::value_error("faces must be an (F, 3) array of vertex indices, not shape " + std::string(py::str(faces.attr("shape"))));
    if (va.shape(0) > std::numeric_limits<std::uint32_t>::max() || fa.shape(0) > std::numeric_limits<std::uint32_t>::max() / 3)
        throw py::value_error("the mesh has more than 2^32 - 1 vertices or triangles");
    mesh::TriangleMesh m;
    auto v = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(vertices);
    m.points.assign(v.data(), v.data() + v.size());
    auto f = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(faces);
    m.triangles.resize(f.size());
    for (py::ssize_t i = 0; i < f.size(); ++i) {
        const std::int64_t idx = f.data()[i];
        if (idx < 0 || idx >= va.shape(0))
            throw py::value_error("face " + std::to_string(i / 3) + " names vertex " + std::to_string(idx) + ", outside [0, " +
                                  std::to_string(va.shape(0)) + ")");
        m.triangles[i] = static_cast<std::uint32_t>(idx);
    }
    m.polygons = m.triangleCount();
    // Finite float coordinates (a float64 beyond float's range rounds to infinity), at least one face.
    checkArgument([&] { mesh::validate(m); });
    return m;
}

mesh::Method methodOf(const std::string& s) {
    for (mesh::Method m : {mesh::Method::Auto, mesh::Method::Grid, mesh::Method::Hierarchy, mesh::Method::AtomicList, mesh::Method::Matrix})
        if (s == mesh::methodName(m)) return m;
    throw py::value_error("method takes auto, grid, hierarchy, atomic-list or matrix, not '" + s + "'");
}

mesh::Touching touchingOf(const std::string& s) {
    for (mesh::Touching t : {mesh::Touching::Count, mesh::Touching::Ignore})
        if (s == mesh::touchingName(t)) return t;
    throw py::value_error("touching takes count or ignore, not '" + s + "'");
}

py::dict resultDict(mesh::Result&& r) {
    std::vector<std::uint32_t> flat(2 * r.pairs.size());
    for (std::size_t i = 0; i < r.pairs.size(); ++i) {
        flat[2 * i] = r.pairs[i].first;
        flat[2 * i + 1] = r.pairs[i].second;
    }
    const py::ssize_t n = r.pairs.size(), nd = r.degenerate.size();
    py::dict d;
    std::vector<std::uint32_t> faces = mesh::facesInvolved(r.pairs);
    const py::ssize_t nf = faces.size();
    d["faces"] = toArray(std::move(faces), {nf});
    d["pairs"] = toArray(std::move(flat), {n, 2});
    d["degenerate"] = toArray(std::move(r.degenerate), {nd});
    d["candidates"] = r.candidates;
    d["undecided"] = r.report.undecided;
    d["float_guesses_wrong"] = r.floatGuessesWrong;
    d["device_seconds"] = r.deviceSeconds;
    return d;
}

}  // namespace

void bindMesh(py::module_& m, py::module_& ref) {
    m.def("mesh_intersect",
          [](const py::object& vertices, const py::object& faces, const std::string& method, const py::object& precision,
             const std::string& touching, const py::object& ctx) {
              mesh::TriangleMesh tm = meshOf(vertices, faces);
              const mesh::Method how = methodOf(method);
              const mesh::Touching t = touchingOf(touching);
              PyContext& pc = contextArg(ctx);
              const Precision p = precisionArg(precision, pc, Precision::Mixed);
              return resultDict(onDevice(pc, [&](Context& c) { return mesh::selfIntersections(c, tm, {how, p, t}); }));
          },
          py::arg("vertices"), py::arg("faces"), py::kw_only(), py::arg("method") = "auto", py::arg("precision") = py::none(),
          py::arg("touching") = "count", py::arg("ctx") = py::none(),
          "The pairs of triangles of a mesh that meet, adjacency by vertex index, as CGAL's\n"
          "self_intersections decides them (docs/mesh.md). vertices: (V, 3) float32 (float64 is rounded to\n"
          "float once: the answer is exact for the float positions); faces: (F, 3) vertex indices of any\n"
          "integer dtype. method: 'auto' (default: the device profile's\n"
          "choice of 'grid' or 'hierarchy'), 'grid', 'hierarchy', 'atomic-list' or 'matrix'. precision: 'mixed'\n"
          "(default: exact; what float cannot decide in double on the device), 'double' (exact, needs fp64)\n"
          "or 'float' (exact too: what float cannot decide is decided on the host, without the device's\n"
          "fp64). touching: 'count' (default: triangles whose closed sets meet, as CGAL) or 'ignore'\n"
          "(only triangles whose relative interiors meet). Returns a dict: 'pairs' (P, 2) uint32 sorted with i < j, 'faces' the faces in a pair,\n"
          "'degenerate' the degenerate faces, 'candidates' (pairs of overlapping boxes), 'undecided'\n"
          "(candidates float could not decide), 'float_guesses_wrong' (of those, the ones float's own\n"
          "guess had wrong) and 'device_seconds'.");
    ref.def("mesh_intersect",
            [](const py::object& vertices, const py::object& faces, bool cgal, const std::string& touching) {
                mesh::TriangleMesh tm = meshOf(vertices, faces);
                const mesh::Touching t = touchingOf(touching);
                return resultDict(withoutGil([&] {
                    return cgal ? mesh::selfIntersectionsCgal(tm, false, t) : mesh::selfIntersectionsReference(tm, t);
                }));
            },
            py::arg("vertices"), py::arg("faces"), py::kw_only(), py::arg("cgal") = false, py::arg("touching") = "count",
            "The serial C++ reference of mesh_intersect (a sweep and exact predicates); cgal=True: CGAL's\n"
            "box intersection and exact predicates instead.");
    m.def("read_mesh",
          [](const std::string& path) {
              mesh::TriangleMesh tm = checkArgument([&] { return withoutGil([&] { return mesh::readMesh(path); }); });
              const py::ssize_t nv = tm.vertexCount(), nt = tm.triangleCount();
              return py::make_tuple(toArray(std::move(tm.points), {nv, 3}), toArray(std::move(tm.triangles), {nt, 3}));
          },
          py::arg("path"),
          "Reads a mesh file (.obj, .off, .ply, .stl; ASCII or binary) as the library does: (vertices (V, 3)\n"
          "float32, faces (F, 3) uint32), polygons fanned into triangles from their first corner.");
}

}  // namespace portacl::python

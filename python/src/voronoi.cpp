// The additively weighted Voronoi diagram of balls: an (N, 4) array of x, y, z, r, or a structure
// file, in; vertices and edges out as NumPy structured arrays laid over the library's own records.
#include "common.hpp"

#include <cmath>
#include <cstddef>

#include "portacl/io/molecule.hpp"
#include "portacl/voronoi.hpp"

namespace portacl::python {

using namespace pybind11::literals;

namespace {

py::dtype vertexDtype() {
    using voronoi::Vertex;
    return py::dtype::from_args(py::dict(
        "names"_a = py::make_tuple("balls", "x", "y", "z", "r"),
        "formats"_a = py::make_tuple("(4,)i4", "f8", "f8", "f8", "f8"),
        "offsets"_a = py::make_tuple(offsetof(Vertex, q), offsetof(Vertex, x), offsetof(Vertex, y), offsetof(Vertex, z),
                                     offsetof(Vertex, r)),
        "itemsize"_a = sizeof(Vertex)));
}

py::dtype edgeDtype() {
    using voronoi::Edge;
    return py::dtype::from_args(py::dict(
        "names"_a = py::make_tuple("v0", "v1", "balls", "min_radius"),
        "formats"_a = py::make_tuple("i4", "i4", "(3,)i4", "f8"),
        "offsets"_a = py::make_tuple(offsetof(Edge, v0), offsetof(Edge, v1), offsetof(Edge, g), offsetof(Edge, minRadius)),
        "itemsize"_a = sizeof(Edge)));
}

template <typename T>
py::array recordsOf(std::vector<T>&& v, const py::dtype& dtype) {
    auto* owner = new std::vector<T>(std::move(v));
    py::capsule free(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array(dtype, {py::ssize_t(owner->size())}, {py::ssize_t(sizeof(T))}, owner->data(), free);
}

std::vector<io::Ball> ballsOf(const py::object& balls, const py::dict& readOptions) {
    if (py::isinstance<py::str>(balls) || py::hasattr(balls, "__fspath__")) {
        const std::string path = py::str(py::module_::import("os").attr("fspath")(balls));
        io::MoleculeOptions o;
        if (readOptions.contains("radii")) o.radiiFile = readOptions["radii"].cast<std::string>();
        if (readOptions.contains("hydrogens")) o.hydrogens = readOptions["hydrogens"].cast<bool>();
        if (readOptions.contains("hetero")) o.hetero = readOptions["hetero"].cast<bool>();
        o.allModels = false;
        auto frames = checkArgument([&] { return withoutGil([&] { return io::readMolecule(path, o); }); });
        return frames.front().balls;
    }
    auto a = numericArray(balls, "balls");
    if (a.ndim() != 2 || a.shape(1) != 4)
        throw py::value_error("balls must be an (N, 4) array of x, y, z, r, not shape " + std::string(py::str(balls.attr("shape"))));
    if (a.shape(0) < 4) throw py::value_error("balls holds " + std::to_string(a.shape(0)) + " balls; a diagram needs at least 4");
    std::vector<io::Ball> out(a.shape(0));
    auto r = a.unchecked<2>();
    for (py::ssize_t i = 0; i < a.shape(0); ++i) {
        out[i] = {r(i, 0), r(i, 1), r(i, 2), r(i, 3)};
        if (!std::isfinite(out[i].x) || !std::isfinite(out[i].y) || !std::isfinite(out[i].z) || !std::isfinite(out[i].r))
            throw py::value_error("ball " + std::to_string(i) + " has a coordinate or radius that is not finite");
        if (out[i].r < 0) throw py::value_error("ball " + std::to_string(i) + " has a negative radius");
    }
    return out;
}

py::tuple diagramOf(const py::object& balls, const py::object& precision, const py::dict& readOptions, const py::object& ctx,
                    bool reference) {
    std::vector<io::Ball> b = ballsOf(balls, readOptions);
    voronoi::Diagram d;
    if (reference) {
        d = withoutGil([&] { return voronoi::computeReference(b); });
    } else {
        PyContext& pc = contextArg(ctx);
        voronoi::Options o;
        o.precision = precisionArg(precision, pc, Precision::Mixed);
        d = onDevice(pc, [&](Context& c) { return voronoi::compute(c, b, o); });
    }
    voronoi::canonicalize(d);
    return py::make_tuple(recordsOf(std::move(d.vertices), vertexDtype()), recordsOf(std::move(d.edges), edgeDtype()));
}

}  // namespace

void bindVoronoi(py::module_& m, py::module_& ref) {
    m.def("_voronoi", [](const py::object& balls, const py::object& precision, const py::dict& readOptions, const py::object& ctx) {
              return diagramOf(balls, precision, readOptions, ctx, false);
          },
          py::arg("balls"), py::arg("precision"), py::arg("read_options"), py::arg("ctx"));
    ref.def("_voronoi", [](const py::object& balls, const py::dict& readOptions) {
                return diagramOf(balls, py::none(), readOptions, py::none(), true);
            },
            py::arg("balls"), py::arg("read_options"));
}

}  // namespace portacl::python

// 3-D thinning of binary volumes: a 2-D or 3-D array (non-zero voxels are the object) in, a boolean
// skeleton of the same shape out, voxel for voxel scikit-image's skeletonize_3d.
#include "common.hpp"

#include "portacl/skeleton.hpp"

namespace portacl::python {

// Shared with the box counts (box_count.cpp).
io::BinaryVolume binaryVolumeOf(const py::object& volume) {
    // One-byte volumes (bool, uint8, int8: what masks and segmentations usually are) are read as
    // bytes; others go through numericArray's float64 copy.
    if (py::isinstance<py::array>(volume)) {
        const auto raw = py::reinterpret_borrow<py::array>(volume);
        const char kind = raw.dtype().kind();
        if (raw.itemsize() == 1 && (kind == 'b' || kind == 'u' || kind == 'i') && (raw.ndim() == 2 || raw.ndim() == 3)) {
            const py::array bytes = py::array::ensure(raw, py::array::c_style);
            const auto shape = shapeOf(bytes, "volume");
            io::BinaryVolume v;
            v.nz = bytes.ndim() == 3 ? shape[0] : 1;
            v.ny = shape[bytes.ndim() - 2];
            v.nx = shape[bytes.ndim() - 1];
            v.mask.resize(v.size());
            const auto* d = static_cast<const std::uint8_t*>(bytes.data());
            for (std::size_t i = 0; i < v.mask.size(); ++i) v.mask[i] = d[i] != 0;
            return v;
        }
    }
    auto a = numericArray(volume, "volume");
    if (a.ndim() != 2 && a.ndim() != 3)
        throw py::value_error("volume must be 2-D or 3-D, not " + std::to_string(a.ndim()) + "-D");
    const auto shape = shapeOf(a, "volume");
    io::BinaryVolume v;
    v.nz = a.ndim() == 3 ? shape[0] : 1;
    v.ny = shape[a.ndim() - 2];
    v.nx = shape[a.ndim() - 1];
    v.mask.resize(v.size());
    const double* d = a.data();
    for (std::size_t i = 0; i < v.mask.size(); ++i) v.mask[i] = d[i] != 0;
    return v;
}

namespace {

// method: "lee", "subfields" or "psimple" (checked by the caller).
py::array skeletonOf(const py::object& volume, const std::string& method, const py::object& ctx, bool reference) {
    io::BinaryVolume v = binaryVolumeOf(volume);
    const auto ndim = py::reinterpret_borrow<py::array>(volume).ndim();
    checkArgument([&] { skeleton::validate(v); });
    io::BinaryVolume s;
    if (reference)
        s = withoutGil([&] {
            return method == "subfields" ? skeleton::thinSubfieldsReference(v)
                   : method == "psimple" ? skeleton::thinPSimpleReference(v)
                                         : skeleton::thinReference(v);
        });
    else
        s = onDevice(contextArg(ctx), [&](Context& c) {
            return method == "subfields" ? skeleton::thinSubfields(c, v) : method == "psimple" ? skeleton::thinPSimple(c, v) : skeleton::thin(c, v);
        });
    std::vector<py::ssize_t> shape{s.ny, s.nx};
    if (ndim == 3) shape.insert(shape.begin(), s.nz);
    py::array out = toArray(std::move(s.mask), shape);
    return out.attr("view")(py::dtype("bool"));  // the mask's bytes are 0 and 1
}

}  // namespace

void bindSkeleton(py::module_& m, py::module_& ref) {
    const char* doc =
        "The skeleton of a binary volume (non-zero voxels are the object; 2-D arrays are one slice):\n"
        "Lee, Kashyap and Chu's thinning, voxel for voxel scikit-image's skeletonize_3d, as a boolean\n"
        "array of the input's shape. method='subfields': a fully parallel topology-preserving thinning\n"
        "of its own (close to Lee's, with more side branches); method='psimple': a fully parallel\n"
        "topology-preserving thinning removing each border direction's P-simple voxels at once.";
    auto bind = [](bool reference) {
        return [reference](const py::object& volume, const std::string& method, const py::object& ctx) {
            if (method != "lee" && method != "subfields" && method != "psimple")
                throw py::value_error("method must be 'lee', 'subfields' or 'psimple', not '" + method + "'");
            return skeletonOf(volume, method, ctx, reference);
        };
    };
    m.def("skeleton", bind(false), py::arg("volume"), py::kw_only(), py::arg("method") = "lee", py::arg("ctx") = py::none(), doc);
    ref.def("skeleton", bind(true), py::arg("volume"), py::kw_only(), py::arg("method") = "lee", py::arg("ctx") = py::none(),
            "The serial C++ reference of skeleton.");
}

}  // namespace portacl::python

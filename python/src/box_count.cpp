// Box counts and the fractal dimension of a binary volume (non-zero voxels are the object).
#include "common.hpp"

#include "portacl/box_count.hpp"

namespace portacl::python {

io::BinaryVolume binaryVolumeOf(const py::object& volume);  // skeleton.cpp

namespace {

py::dict fitOf(const boxcount::Fit& f) {
    py::dict d;
    d["dimension"] = f.dimension;
    d["intercept"] = f.intercept;
    d["r2"] = f.r2;
    d["sizes"] = py::make_tuple(f.first, f.last);
    d["points"] = f.points;
    return d;
}

py::dict boxCountOf(const py::object& volume, const py::object& sizes, const std::string& count, bool offsetAverage,
                    const py::object& fitRange, const py::object& ctx, bool reference) {
    io::BinaryVolume v = binaryVolumeOf(volume);
    boxcount::Options o;
    if (!sizes.is_none()) o.sizes = sizes.cast<std::vector<int>>();
    if (count == "occupied") o.count = boxcount::Count::Occupied;
    else if (count == "mixed") o.count = boxcount::Count::Mixed;
    else throw py::value_error("count must be 'occupied' (boxes holding object) or 'mixed' (boxes holding both phases), not '" + count + "'");
    o.offsetAverage = offsetAverage;
    if (!fitRange.is_none()) {
        auto r = fitRange.cast<std::pair<int, int>>();
        o.fitMin = r.first;
        o.fitMax = r.second;
    }
    checkArgument([&] { boxcount::validate(v, o); });
    boxcount::Result r = reference ? withoutGil([&] { return boxcount::boxCountReference(v, o); })
                                   : onDevice(contextArg(ctx), [&](Context& c) { return boxcount::boxCount(c, v, o); });
    py::dict d;
    const py::ssize_t n = py::ssize_t(r.sizes.size());
    d["sizes"] = toArray(std::move(r.sizes), {n});
    d["counts"] = toArray(std::move(r.counts), {n});
    d["fit"] = fitOf(r.fit);
    d["dimension"] = r.fit.dimension;
    d["local_slopes"] = toArray(std::move(r.localSlopes), {n - 1});
    if (offsetAverage) {
        d["offset_mean"] = toArray(std::move(r.offsetMean), {n});
        d["offset_min"] = toArray(std::move(r.offsetMin), {n});
        d["offset_fit"] = fitOf(r.offsetFit);
    }
    return d;
}

}  // namespace

void bindBoxCount(py::module_& m, py::module_& ref) {
    auto bind = [](bool reference) {
        return [reference](const py::object& volume, const py::object& sizes, const std::string& count, bool offsetAverage,
                           const py::object& fit, const py::object& ctx) {
            return boxCountOf(volume, sizes, count, offsetAverage, fit, ctx, reference);
        };
    };
    m.def("box_count", bind(false), py::arg("volume"), py::kw_only(), py::arg("sizes") = py::none(), py::arg("count") = "occupied",
          py::arg("offset_average") = false, py::arg("fit") = py::none(), py::arg("ctx") = py::none(),
          "Box counts N(s) of a binary volume (2-D arrays are one slice) and its fractal dimension.\n\n"
          "sizes: box sides in voxels, increasing (default 1, 2, 4, ... up to one box). count='occupied'\n"
          "counts boxes holding object voxels; 'mixed' boxes holding both (porespy's boxcount). Boxes lie\n"
          "on the grid anchored at voxel 0; offset_average also counts the 8 placements {0, s/2}^3.\n"
          "fit=(smallest, largest) limits the sides fitted. Returns {'sizes', 'counts', 'dimension' (minus\n"
          "the slope of log N over log s), 'fit': {'dimension', 'intercept', 'r2', 'sizes', 'points'},\n"
          "'local_slopes', and with offset_average 'offset_mean', 'offset_min', 'offset_fit'}.");
    ref.def("box_count", bind(true), py::arg("volume"), py::kw_only(), py::arg("sizes") = py::none(), py::arg("count") = "occupied",
            py::arg("offset_average") = false, py::arg("fit") = py::none(), py::arg("ctx") = py::none(),
            "The serial C++ reference of box_count.");
}

}  // namespace portacl::python

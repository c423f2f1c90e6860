// Image filters on NumPy images: (H, W) or (H, W, C) arrays of uint8, uint16 or float32, channels
// interleaved as OpenCV holds them.
#include "common.hpp"

#include "portacl/filter.hpp"

namespace portacl::python {

namespace {

io::Image imageOf(const py::object& obj) {
    if (!py::isinstance<py::array>(obj))
        throw py::type_error("image must be a NumPy array, not " + std::string(py::str(py::type::of(obj).attr("__name__"))));
    auto arr = py::reinterpret_borrow<py::array>(obj);
    io::Image img;
    if (arr.dtype().equal(py::dtype::of<std::uint8_t>())) img.type = io::PixelType::U8;
    else if (arr.dtype().equal(py::dtype::of<std::uint16_t>())) img.type = io::PixelType::U16;
    else if (arr.dtype().equal(py::dtype::of<float>())) img.type = io::PixelType::F32;
    else throw py::type_error("image must have dtype uint8, uint16 or float32, not " + std::string(py::str(py::object(arr.dtype()))));
    if (arr.ndim() != 2 && arr.ndim() != 3)
        throw py::value_error("image must be (height, width) or (height, width, channels), not shape " + std::string(py::str(obj.attr("shape"))));
    const auto shape = shapeOf(arr, "image");
    img.height = shape[0];
    img.width = shape[1];
    img.channels = arr.ndim() == 3 ? shape[2] : 1;
    if (img.channels > 4) throw py::value_error("image has " + std::to_string(img.channels) + " channels; 1 to 4 are accepted");
    py::array c = py::array::ensure(arr, py::array::c_style);
    img.data.resize(img.byteCount());
    std::memcpy(img.data.data(), c.data(), img.data.size());
    return img;
}

py::array arrayOf(io::Image&& img, bool threeDims) {
    std::vector<py::ssize_t> shape{img.height, img.width};
    if (threeDims || img.channels > 1) shape.push_back(img.channels);
    switch (img.type) {
        case io::PixelType::U8: return toArray(std::move(img.data), shape);
        case io::PixelType::U16: {
            std::vector<std::uint16_t> v(img.sampleCount());
            std::memcpy(v.data(), img.data.data(), img.byteCount());
            return toArray(std::move(v), shape);
        }
        case io::PixelType::F32: {
            std::vector<float> v(img.sampleCount());
            std::memcpy(v.data(), img.data.data(), img.byteCount());
            return toArray(std::move(v), shape);
        }
    }
    return py::array();
}

std::vector<filter::Operation> operationsOf(const py::object& ops) {
    std::vector<std::string> specs;
    if (py::isinstance<py::str>(ops)) specs.push_back(ops.cast<std::string>());
    else if (py::isinstance<py::sequence>(ops)) {
        for (const auto& item : ops) {
            if (!py::isinstance<py::str>(item)) throw py::type_error("ops must be a string or a list of strings");
            specs.push_back(item.cast<std::string>());
        }
    } else {
        throw py::type_error("ops must be a string or a list of strings");
    }
    if (specs.empty()) throw py::value_error("ops is empty: name at least one operation (portacl.filter_operations() lists them)");
    std::vector<filter::Operation> out;
    for (const auto& s : specs) out.push_back(checkArgument([&] { return filter::parseOperation(s); }));
    return out;
}

py::array run(const py::object& image, const py::object& ops, const std::string& border, double borderValue,
              const py::object& precision, const py::object& ctx, bool reference) {
    io::Image img = imageOf(image);
    const bool threeDims = py::reinterpret_borrow<py::array>(image).ndim() == 3;
    std::vector<filter::Operation> operations = operationsOf(ops);
    filter::Options o;
    o.border = checkArgument([&] { return filter::parseBorder(border); });
    o.borderValue = borderValue;
    checkArgument([&] { filter::validate(img, operations); });
    io::Image out;
    if (reference) {
        o.precision = precision.is_none() ? Precision::Float : checkArgument([&] { return parsePrecision(precision.cast<std::string>()); });
        if (o.precision == Precision::Mixed) o.precision = Precision::Double;
        out = withoutGil([&] { return filter::filterReference(img, operations, o); });
    } else {
        PyContext& pc = contextArg(ctx);
        o.precision = precisionArg(precision, pc, Precision::Float);
        if (o.precision == Precision::Mixed) o.precision = Precision::Double;
        out = onDevice(pc, [&](Context& c) { return filter::Pipeline(c, operations, o).run(img); });
    }
    return arrayOf(std::move(out), threeDims);
}

}  // namespace

void bindFilter(py::module_& m, py::module_& ref) {
    m.def("_filter", [](const py::object& image, const py::object& ops, const std::string& border, double value,
                        const py::object& precision, const py::object& ctx) {
              return run(image, ops, border, value, precision, ctx, false);
          },
          py::arg("image"), py::arg("ops"), py::arg("border"), py::arg("border_value"), py::arg("precision"), py::arg("ctx"));
    ref.def("_filter", [](const py::object& image, const py::object& ops, const std::string& border, double value,
                          const py::object& precision) { return run(image, ops, border, value, precision, py::none(), true); },
            py::arg("image"), py::arg("ops"), py::arg("border"), py::arg("border_value"), py::arg("precision"));
    m.def("filter_operations", [] {
              py::list out;
              for (const auto& h : filter::operationList()) out.append(py::make_tuple(h.syntax, h.description));
              return out;
          },
          "The operations filter() takes, as (syntax, description) pairs.");
}

}  // namespace portacl::python

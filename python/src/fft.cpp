// The FFT interface on NumPy arrays (portacl/fft.py gives it numpy.fft's names): the transforms of
// the last 1 to 3 axes of an array, batched over the leading ones, out of place. The device reads the
// array's own memory and writes into the result's.
#include "common.hpp"

#include <complex>

#include <pybind11/complex.h>

#include "fft/reference_dft.hpp"
#include "portacl/fft.hpp"

namespace portacl::python {

namespace {

using fft::Kind;

Kind kindOf(const std::string& name) {
    if (name == "c2c") return Kind::C2C;
    if (name == "r2c") return Kind::R2C;
    if (name == "c2r") return Kind::C2R;
    throw py::value_error("unknown transform kind '" + name + "'; use c2c, r2c or c2r");
}

// What one call transforms: the plan's description and the result's shape.
struct Layout {
    fft::PlanDesc desc;
    std::vector<py::ssize_t> outShape;
};

// x's last `ndim` axes are transformed, the leading ones are the batch. nLast: C2R's real length of
// the last axis (its input holds nLast / 2 + 1 points there).
Layout layoutOf(const py::array& x, int ndim, Kind kind, long nLast, Precision precision, fft::Backend backend) {
    if (ndim < 1 || ndim > 3) throw py::value_error("the FFT transforms 1, 2 or 3 axes, not " + std::to_string(ndim));
    if (x.ndim() < ndim)
        throw py::value_error("a " + std::to_string(x.ndim()) + "-D array has no " + std::to_string(ndim) + " axes to transform");
    shapeOf(x, "the FFT's input");
    Layout l;
    l.desc.kind = kind;
    l.desc.precision = precision;
    l.desc.backend = backend;
    const int lead = static_cast<int>(x.ndim()) - ndim;
    for (int i = 0; i < lead; ++i) {
        l.desc.batch *= x.shape(i);
        l.outShape.push_back(x.shape(i));
    }
    for (int i = lead; i < x.ndim(); ++i) l.desc.shape.push_back(x.shape(i));
    std::size_t& last = l.desc.shape.back();
    if (kind == Kind::C2R) {
        if (nLast < 1) throw py::value_error("the inverse real FFT's length n must be positive, not " + std::to_string(nLast));
        if (last != std::size_t(nLast) / 2 + 1)
            throw py::value_error("the inverse real FFT of length " + std::to_string(nLast) + " takes " +
                                  std::to_string(nLast / 2 + 1) + " points along the last axis, not " + std::to_string(last));
        last = nLast;
    }
    for (std::size_t i = 0; i < l.desc.shape.size(); ++i)
        l.outShape.push_back(py::ssize_t(i + 1 == l.desc.shape.size() && kind == Kind::R2C ? last / 2 + 1 : l.desc.shape[i]));
    return l;
}

template <typename T>
py::array transformOf(const py::array& xAny, int ndim, Kind kind, bool inverse, long nLast, const std::string& backendName,
                      const py::object& ctx) {
    using C = std::complex<T>;
    const bool realIn = kind == Kind::R2C;
    const char* dtypes = realIn ? "float32 or float64" : "complex64 or complex128";
    py::array x = realIn ? py::array(requireArray<T>(xAny, "x", dtypes)) : py::array(requireArray<C>(xAny, "x", dtypes));
    const fft::Backend backend = checkArgument([&] { return fft::parseBackend(backendName); });
    if (kind == Kind::R2C && inverse) throw py::value_error("a real-to-complex transform runs forward only");
    if (kind == Kind::C2R && !inverse) throw py::value_error("a complex-to-real transform runs inverse only");
    const Layout l = layoutOf(x, ndim, kind, nLast, precisionOf<T>(), backend);
    const fft::Direction dir = inverse ? fft::Direction::Inverse : fft::Direction::Forward;
    const std::size_t inBytes = checkArgument([&] { return fft::inputBytes(l.desc, dir); });
    const std::size_t outBytes = fft::outputBytes(l.desc, dir);
    py::array out = kind == Kind::C2R ? py::array(py::array_t<T>(l.outShape)) : py::array(py::array_t<C>(l.outShape));
    const void* in = x.data();
    void* dst = out.mutable_data();
    onDevice(contextArg(ctx), [&](Context& c) {
        c.requirePrecision(l.desc.precision);
        c.checkFits(inBytes + outBytes, "the FFT");
        fft::Plan& p = fft::plan(c, l.desc);
        cl::Buffer dIn = c.buffer(inBytes, "FFT input", CL_MEM_READ_WRITE), dOut = c.buffer(outBytes, "FFT output", CL_MEM_READ_WRITE);
        c.write(dIn, in, inBytes, "upload FFT input");
        p.execute(dIn, dOut, dir);
        c.read(dOut, dst, outBytes, "download FFT output");
    });
    return out;
}

py::array transform(const py::object& x, int ndim, const std::string& kindName, bool inverse, long nLast, const std::string& backend,
                    const py::object& ctx) {
    const Kind kind = kindOf(kindName);
    if (!py::isinstance<py::array>(x))
        throw py::type_error("x must be a NumPy array, not " + std::string(py::str(py::type::of(x).attr("__name__"))));
    const py::array a = py::reinterpret_borrow<py::array>(x);
    const py::dtype dt = a.dtype();
    const bool isDouble = kind == Kind::R2C ? dt.equal(py::dtype::of<double>()) : dt.equal(py::dtype::of<std::complex<double>>());
    return isDouble ? transformOf<double>(a, ndim, kind, inverse, nLast, backend, ctx)
                    : transformOf<float>(a, ndim, kind, inverse, nLast, backend, ctx);
}

// The serial reference, a direct DFT in long double, of each batch item, in complex128 or float64.
py::array referenceTransform(const py::object& x, int ndim, const std::string& kindName, bool inverse, long nLast) {
    using C = std::complex<double>;
    const Kind kind = kindOf(kindName);
    py::array a = kind == Kind::R2C ? py::array(py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(x))
                                    : py::array(py::array_t<C, py::array::c_style | py::array::forcecast>::ensure(x));
    if (!a) throw py::type_error("x must be a numeric NumPy array");
    if (kind == Kind::R2C && inverse) throw py::value_error("a real-to-complex transform runs forward only");
    if (kind == Kind::C2R && !inverse) throw py::value_error("a complex-to-real transform runs inverse only");
    const Layout l = layoutOf(a, ndim, kind, nLast, Precision::Double, fft::Backend::Auto);
    const fft::Direction dir = inverse ? fft::Direction::Inverse : fft::Direction::Forward;
    std::size_t points = 1;
    for (std::size_t s : l.desc.shape) points *= s;
    const std::size_t half = points / l.desc.shape.back() * (l.desc.shape.back() / 2 + 1);
    const std::size_t inN = kind == Kind::C2R ? half : points, outN = kind == Kind::R2C ? half : points;
    py::array out = kind == Kind::C2R ? py::array(py::array_t<double>(l.outShape)) : py::array(py::array_t<C>(l.outShape));
    const char* src = static_cast<const char*>(a.data());
    char* dst = static_cast<char*>(out.mutable_data());
    withoutGil([&] {
        for (std::size_t b = 0; b < l.desc.batch; ++b) {
            if (kind == Kind::C2C) {
                const C* in = reinterpret_cast<const C*>(src) + b * inN;
                const auto y = fft::reference::dft(std::vector<C>(in, in + inN), l.desc.shape, dir);
                std::copy(y.begin(), y.end(), reinterpret_cast<C*>(dst) + b * outN);
            } else if (kind == Kind::R2C) {
                const double* in = reinterpret_cast<const double*>(src) + b * inN;
                const auto y = fft::reference::dftRealForward(std::vector<double>(in, in + inN), l.desc.shape);
                std::copy(y.begin(), y.end(), reinterpret_cast<C*>(dst) + b * outN);
            } else {
                const C* in = reinterpret_cast<const C*>(src) + b * inN;
                const auto y = fft::reference::dftRealInverse(std::vector<C>(in, in + inN), l.desc.shape);
                std::copy(y.begin(), y.end(), reinterpret_cast<double*>(dst) + b * outN);
            }
        }
    });
    return out;
}

}  // namespace

void bindFft(py::module_& m, py::module_& ref) {
    m.def("_fft", &transform, py::arg("x"), py::arg("ndim"), py::arg("kind"), py::arg("inverse"), py::arg("n_last"),
          py::arg("backend"), py::arg("ctx"),
          "The transform of x's last ndim axes (portacl.fft wraps it with numpy.fft's names).");
    ref.def("_fft", &referenceTransform, py::arg("x"), py::arg("ndim"), py::arg("kind"), py::arg("inverse"), py::arg("n_last"),
            "The serial reference of portacl.fft: a direct DFT in long double (portacl.reference.fft wraps it).");
}

}  // namespace portacl::python

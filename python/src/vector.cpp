// The vector sum on NumPy arrays: float32 in float, float64 in double.
#include "common.hpp"
#include "fast_call.hpp"

#include "portacl/vector_ops.hpp"

namespace portacl::python {

namespace {

// reference: the serial reference, else the device of ctx (resolved after the arguments are checked).
template <typename T>
py::array_t<T> vectorSumOf(const py::object& a, const py::object& b, const py::object& ctx, bool reference) {
    auto A = requireArray<T>(a, "a", "float32 or float64");
    auto B = requireArray<T>(b, "b", "float32 or float64");
    if (A.ndim() != 1 || B.ndim() != 1 || A.shape(0) != B.shape(0))
        throw py::value_error("vector_sum takes two 1-D arrays of one length, not shapes " +
                              std::string(py::str(a.attr("shape"))) + " and " + std::string(py::str(b.attr("shape"))));
    const py::ssize_t n = A.shape(0);
    if (reference) {
        std::vector<T> va(A.data(), A.data() + n), vb(B.data(), B.data() + n);
        return toArray(withoutGil([&] { return vectorSumReference(va, vb); }), {n});
    }
    // The device reads the arrays' memory and writes the result's: no host copy.
    py::array_t<T> C = emptyArray<T>({n});
    const T *pa = A.data(), *pb = B.data();
    T* out = C.mutable_data();
    onDevice(contextArg(ctx), [&](Context& c) {
        const std::size_t bytes = std::size_t(n) * sizeof(T);
        c.checkFits(3 * bytes, "the vector sum of " + std::to_string(n) + " elements");
        if (n == 0) return;
        cl::Buffer da = c.buffer(bytes, "a", CL_MEM_READ_ONLY), db = c.buffer(bytes, "b", CL_MEM_READ_ONLY);
        cl::Buffer dc = c.buffer(bytes, "c", CL_MEM_WRITE_ONLY);
        c.write(da, pa, bytes, "upload a");
        c.write(db, pb, bytes, "upload b");
        vectorSum(c, precisionOf<T>(), da, db, dc, std::size_t(n));
        c.read(dc, out, bytes, "download c");
    });
    return C;
}

py::array vectorSumAny(const py::object& a, const py::object& b, const py::object& ctx, bool reference) {
    sameDtype(a, b);
    const bool isDouble = py::isinstance<py::array>(a) && py::reinterpret_borrow<py::array>(a).dtype().equal(py::dtype::of<double>());
    return isDouble ? py::array(vectorSumOf<double>(a, b, ctx, reference)) : py::array(vectorSumOf<float>(a, b, ctx, reference));
}

PyObject* vectorSumFast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    PyObject* v[3];
    if (!parseFastArgs("vector_sum", args, nargs, kwnames, {{"a", false, nullptr}, {"b", false, nullptr}, {"ctx", true, Py_None}}, v))
        return nullptr;
    return fastBody([&] {
        return py::object(vectorSumAny(py::reinterpret_borrow<py::object>(v[0]), py::reinterpret_borrow<py::object>(v[1]),
                                       py::reinterpret_borrow<py::object>(v[2]), false));
    });
}

}  // namespace

void bindVector(py::module_& m, py::module_& ref) {
    addFastFunction(m, "vector_sum", vectorSumFast,
                    "vector_sum(a: object, b: object, *, ctx: object = None) -> numpy.ndarray\n\n"
                    "c = a + b on the device: two 1-D arrays of one length and one dtype (float32 or float64).");
    ref.def("vector_sum", [](const py::object& a, const py::object& b) { return vectorSumAny(a, b, py::none(), true); },
            py::arg("a"), py::arg("b"), "The serial C++ reference of vector_sum.");
}

}  // namespace portacl::python

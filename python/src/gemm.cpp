// The matrix product on NumPy arrays: float32 in float, float64 in double. The device reads the
// arrays' own memory and writes into the result's (no host copy of a C-ordered array).
#include "common.hpp"
#include "fast_call.hpp"

#include "portacl/gemm.hpp"

namespace portacl::python {

namespace {

// The kernel a name asks for on this context: "fast" (the default) is the profile's choice,
// defaultGemmKernel: the tensor-core kernel where the profile asks for it and the device runs it.
GemmKernel kernelFor(const std::string& name, const Context& ctx, Precision element) {
    return name == "fast" ? defaultGemmKernel(ctx, element) : parseGemmKernel(name);
}

template <typename T>
py::array_t<T> gemmOf(const py::object& a, const py::object& b, const std::string& kernelName, const py::object& ctx,
                      bool reference) {
    auto A = requireArray<T>(a, "a", "float32 or float64 (both arrays the same)");
    auto B = requireArray<T>(b, "b", "float32 or float64 (both arrays the same)");
    if (A.ndim() != 2 || B.ndim() != 2 || A.shape(1) != B.shape(0))
        throw py::value_error("gemm takes a (M, K) and b (K, N) matrices, not shapes " + std::string(py::str(a.attr("shape"))) +
                              " and " + std::string(py::str(b.attr("shape"))));
    const std::size_t M = A.shape(0), K = A.shape(1), N = B.shape(1);
    checkArgument([&] { if (kernelName != "fast") parseGemmKernel(kernelName); });
    checkArgument([&] { checkGemmSizes(M, N, K, sizeof(T)); });
    if (reference) {
        std::vector<T> va(A.data(), A.data() + A.size()), vb(B.data(), B.data() + B.size());
        return toArray(withoutGil([&] { return gemmReference(M, N, K, va, vb); }), {py::ssize_t(M), py::ssize_t(N)});
    }
    PyContext& pc = contextArg(ctx);
    const Precision element = precisionOf<T>();
    const GemmKernel kernel = kernelFor(kernelName, pc.get(), element);
    if (const std::string why = gemmKernelRefusal(pc.device(), kernel, element); !why.empty()) throw py::value_error(why);
    py::array_t<T> C = emptyArray<T>({py::ssize_t(M), py::ssize_t(N)});
    const T *pa = A.data(), *pb = B.data();
    T* pcOut = C.mutable_data();
    onDevice(pc, [&](Context& x) {
        if (M == 0 || N == 0) return;
        if (K == 0) {
            std::fill(pcOut, pcOut + M * N, T(0));
            return;
        }
        x.checkFits((M * K + K * N + M * N) * sizeof(T), "the matrix product");
        cl::Buffer dA = x.buffer(M * K * sizeof(T), "A", CL_MEM_READ_ONLY), dB = x.buffer(K * N * sizeof(T), "B", CL_MEM_READ_ONLY);
        cl::Buffer dC = x.buffer(M * N * sizeof(T), "C", CL_MEM_WRITE_ONLY);
        x.write(dA, pa, M * K * sizeof(T), "upload A");
        x.write(dB, pb, K * N * sizeof(T), "upload B");
        gemm(x, element, kernel, M, N, K, dA, dB, dC);
        x.read(dC, pcOut, M * N * sizeof(T), "download C");
    });
    return C;
}

py::array gemmAny(const py::object& a, const py::object& b, const std::string& kernel, const py::object& ctx, bool reference) {
    sameDtype(a, b);
    const bool isDouble = py::isinstance<py::array>(a) && py::reinterpret_borrow<py::array>(a).dtype().equal(py::dtype::of<double>());
    return isDouble ? py::array(gemmOf<double>(a, b, kernel, ctx, reference)) : py::array(gemmOf<float>(a, b, kernel, ctx, reference));
}

// "fast", the kernel argument's default.
PyObject* fastName = nullptr;

PyObject* gemmFast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    PyObject* v[4];
    if (!parseFastArgs("gemm", args, nargs, kwnames,
                       {{"a", false, nullptr}, {"b", false, nullptr}, {"kernel", true, fastName}, {"ctx", true, Py_None}}, v))
        return nullptr;
    if (!PyUnicode_Check(v[2])) {
        PyErr_Format(PyExc_TypeError, "gemm's kernel must be a str, not %s", Py_TYPE(v[2])->tp_name);
        return nullptr;
    }
    return fastBody([&] {
        return py::object(gemmAny(py::reinterpret_borrow<py::object>(v[0]), py::reinterpret_borrow<py::object>(v[1]),
                                  py::reinterpret_borrow<py::str>(v[2]).cast<std::string>(),
                                  py::reinterpret_borrow<py::object>(v[3]), false));
    });
}

}  // namespace

void bindGemm(py::module_& m, py::module_& ref) {
    fastName = py::str("fast").release().ptr();
    addFastFunction(m, "gemm", gemmFast,
                    "gemm(a: object, b: object, *, kernel: str = 'fast', ctx: object = None) -> numpy.ndarray\n\n"
                    "C = A @ B on the device. a: (M, K), b: (K, N), both float32 (computed in float) or both float64\n"
                    "(in double; the device needs fp64). kernel: 'fast' (the default: the device profile's choice,\n"
                    "'tensor' where the profile asks for tensor cores and the device has them, else\n"
                    "'register-blocked'), 'register-blocked', 'tiled', 'direct', 'tensor' (double on NVIDIA's FP64\n"
                    "tensor cores, compute capability 8.0 and up; ValueError elsewhere) or 'tensor-3xtf32' (float on\n"
                    "NVIDIA's TF32 tensor cores, error-compensated; the same GPUs). C-ordered arrays are read in\n"
                    "place; others are copied into C order once.");
    ref.def("gemm", [](const py::object& a, const py::object& b) { return gemmAny(a, b, "direct", py::none(), true); },
            py::arg("a"), py::arg("b"), "The serial C++ reference of gemm (i-k-j loops, accumulating in the arrays' dtype).");
}

}  // namespace portacl::python

// The matrix product on NumPy arrays: float32 in float, float64 in double.
#include "common.hpp"

#include "portacl/gemm.hpp"

namespace portacl::python {

namespace {

template <typename T>
py::array_t<T> gemmOf(const py::object& a, const py::object& b, const std::string& kernelName, const py::object& ctx,
                      bool reference) {
    auto A = requireArray<T>(a, "a", "float32 or float64 (both arrays the same)");
    auto B = requireArray<T>(b, "b", "float32 or float64 (both arrays the same)");
    if (A.ndim() != 2 || B.ndim() != 2 || A.shape(1) != B.shape(0))
        throw py::value_error("gemm takes a (M, K) and b (K, N) matrices, not shapes " + std::string(py::str(a.attr("shape"))) +
                              " and " + std::string(py::str(b.attr("shape"))));
    const std::size_t M = A.shape(0), K = A.shape(1), N = B.shape(1);
    const GemmKernel kernel = checkArgument([&] { return parseGemmKernel(kernelName); });
    checkArgument([&] { checkGemmSizes(M, N, K, sizeof(T)); });
    std::vector<T> va(A.data(), A.data() + A.size()), vb(B.data(), B.data() + B.size());
    std::vector<T> c = reference ? withoutGil([&] { return gemmReference(M, N, K, va, vb); })
                                 : onDevice(contextArg(ctx), [&](Context& x) { return gemm(x, kernel, M, N, K, va, vb); });
    return toArray(std::move(c), {py::ssize_t(M), py::ssize_t(N)});
}

py::array gemmAny(const py::object& a, const py::object& b, const std::string& kernel, const py::object& ctx, bool reference) {
    sameDtype(a, b);
    const bool isDouble = py::isinstance<py::array>(a) && py::reinterpret_borrow<py::array>(a).dtype().equal(py::dtype::of<double>());
    return isDouble ? py::array(gemmOf<double>(a, b, kernel, ctx, reference)) : py::array(gemmOf<float>(a, b, kernel, ctx, reference));
}

}  // namespace

void bindGemm(py::module_& m, py::module_& ref) {
    m.def("gemm", [](const py::object& a, const py::object& b, const std::string& kernel, const py::object& ctx) {
              return gemmAny(a, b, kernel, ctx, false);
          },
          py::arg("a"), py::arg("b"), py::kw_only(), py::arg("kernel") = "register-blocked", py::arg("ctx") = py::none(),
          "C = A @ B on the device. a: (M, K), b: (K, N), both float32 (computed in float) or both float64\n"
          "(in double; the device needs fp64). kernel: 'direct', 'tiled' or 'register-blocked' (the fast one).");
    ref.def("gemm", [](const py::object& a, const py::object& b) { return gemmAny(a, b, "direct", py::none(), true); },
            py::arg("a"), py::arg("b"), "The serial C++ reference of gemm (i-k-j loops, accumulating in the arrays' dtype).");
}

}  // namespace portacl::python

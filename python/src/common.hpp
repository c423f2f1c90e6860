// What every binding file of the extension module shares: the Python-side context, the translation
// of the library's errors, and NumPy arrays in and out.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/precision.hpp"

namespace py = pybind11;

namespace portacl::python {

// A portacl::Context owned by Python. The library's Context is not thread-safe and the GIL is
// released while the device works, so every use holds the context's mutex.
class PyContext {
public:
    // precision: the one of workloads called without one; none: each workload's own default.
    PyContext(const DeviceInfo& device, std::optional<Precision> precision, ContextOptions options);
    Context& get();  // throws ValueError once closed
    std::mutex& mutex() { return mutex_; }
    std::optional<Precision> precision() const { return precision_; }
    bool profiling() const { return profiling_; }
    bool closed() const { return !ctx_; }
    void close();
    const DeviceInfo& device() const { return device_; }

private:
    DeviceInfo device_;
    std::optional<Precision> precision_;
    bool profiling_;
    std::unique_ptr<Context> ctx_;
    std::mutex mutex_;
};

// Runs device work on `pc` with the GIL released and the context locked.
template <typename F>
auto onDevice(PyContext& pc, F&& f) -> decltype(f(pc.get())) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(pc.mutex());
    return f(pc.get());
}

// Host work (a serial reference) with the GIL released.
template <typename F>
auto withoutGil(F&& f) -> decltype(f()) {
    py::gil_scoped_release release;
    return f();
}

// The library's checks of arguments (parsers, validate functions) raise ValueError in Python, with
// the library's sentence; the same exception during device work would be a DeviceError. An OpenCL
// failure stays a DeviceError.
template <typename F>
auto checkArgument(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const ClError&) {
        throw;
    } catch (const Error& e) {
        throw py::value_error(e.what());
    }
}

// A precision word; with None the context's precision, else the workload's default.
Precision precisionArg(const py::object& precision, const PyContext& pc, Precision workloadDefault);

// NumPy arrays in: C-contiguous arrays of exactly T (a Fortran-ordered or strided array is copied
// into C order once by forcecast-free conversion; another dtype is refused with `what` named).
template <typename T>
py::array_t<T, py::array::c_style> requireArray(const py::handle& obj, const char* what, const char* dtypes) {
    if (!py::isinstance<py::array>(obj))
        throw py::type_error(std::string(what) + " must be a NumPy array, not " + std::string(py::str(py::type::of(obj).attr("__name__"))));
    auto arr = py::reinterpret_borrow<py::array>(obj);
    if (!arr.dtype().equal(py::dtype::of<T>()))
        throw py::type_error(std::string(what) + " must have dtype " + dtypes + ", not " +
                             std::string(py::str(py::object(arr.dtype()))));
    using CArray = py::array_t<T, py::array::c_style>;
    if (arr.flags() & py::array::c_style) return py::reinterpret_borrow<CArray>(arr);  // already C-ordered T: no conversion call
    return CArray::ensure(arr);
}

// A new uninitialised C-ordered array, made by NumPy without the shape and stride vectors that
// py::array_t's constructor allocates on the heap.
template <typename T>
py::array_t<T> emptyArray(std::initializer_list<py::ssize_t> shape) {
    auto& api = py::detail::npy_api::get();
    PyObject* a = api.PyArray_NewFromDescr_(api.PyArray_Type_, py::dtype::of<T>().release().ptr(), static_cast<int>(shape.size()),
                                            const_cast<Py_intptr_t*>(shape.begin()), nullptr, nullptr, 0, nullptr);
    if (!a) throw py::error_already_set();
    return py::reinterpret_steal<py::array_t<T>>(a);
}

// Two arrays of one float dtype (float32 or float64), refused with TypeError otherwise.
void sameDtype(const py::handle& a, const py::handle& b);

// Any numeric or boolean array as C-ordered doubles (labels, heights, masks): converted once.
py::array_t<double, py::array::c_style> numericArray(const py::handle& obj, const char* what);

// The dimensions of an array as ints, refusing empty arrays and sides beyond 2^31 - 1.
std::vector<int> shapeOf(const py::array& a, const char* what);

// NumPy arrays out without a copy: the array owns the vector's memory.
template <typename T>
py::array_t<T> toArray(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
    auto* owner = new std::vector<T>(std::move(v));
    py::capsule free(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(shape, owner->data(), free);
}

// The context a workload runs in: the one given, else the innermost `with portacl.Context(...)`,
// else the default context (PORTACL_DEVICE, else auto). Implemented in Python (portacl/_context.py).
PyContext& contextArg(const py::object& ctx);

// Binders of the module's parts, one per file.
void bindEngine(py::module_& m);
void bindVector(py::module_& m, py::module_& ref);
void bindFilter(py::module_& m, py::module_& ref);
void bindGemm(py::module_& m, py::module_& ref);
void bindPredicates(py::module_& m, py::module_& ref);
void bindLinealPath(py::module_& m, py::module_& ref);
void bindVoronoi(py::module_& m, py::module_& ref);
void bindSkeleton(py::module_& m, py::module_& ref);
void bindBoxCount(py::module_& m, py::module_& ref);
void bindDrainage(py::module_& m, py::module_& ref);
void bindKwave(py::module_& m, py::module_& ref);
void bindFft(py::module_& m, py::module_& ref);
void bindMesh(py::module_& m, py::module_& ref);

}  // namespace portacl::python

// The engine in Python: devices and their selection, the context, the profiler's table, and the
// library's errors as Python exceptions.
#include "common.hpp"

#include <cmath>
#include <limits>

#include "portacl/runtime/device.hpp"
#include "portacl/runtime/log.hpp"
#include "portacl/runtime/tuning.hpp"
#include "portacl/version.hpp"

namespace portacl::python {

PyContext::PyContext(const DeviceInfo& device, std::optional<Precision> precision, ContextOptions options)
    : device_(device), precision_(precision), profiling_(options.profile) {
    py::gil_scoped_release release;  // compiling nothing yet, but creating a context may take a while
    ctx_ = std::make_unique<Context>(device_, options);
}

Context& PyContext::get() {
    if (!ctx_) throw py::value_error("this portacl.Context is closed");
    return *ctx_;
}

void PyContext::close() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    ctx_.reset();  // waits for the queue
}

Precision precisionArg(const py::object& precision, const PyContext& pc, Precision workloadDefault) {
    if (precision.is_none()) return pc.precision().value_or(workloadDefault);
    return checkArgument([&] { return parsePrecision(py::cast<std::string>(precision)); });
}

py::array_t<double, py::array::c_style> numericArray(const py::handle& obj, const char* what) {
    if (!py::isinstance<py::array>(obj))
        throw py::type_error(std::string(what) + " must be a NumPy array, not " + std::string(py::str(py::type::of(obj).attr("__name__"))));
    auto arr = py::reinterpret_borrow<py::array>(obj);
    const char kind = arr.dtype().kind();
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
        throw py::type_error(std::string(what) + " must hold booleans, integers or floats, not " + std::string(py::str(py::object(arr.dtype()))));
    return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(arr);
}

void sameDtype(const py::handle& a, const py::handle& b) {
    for (const auto& [arr, name] : {std::pair{a, "a"}, std::pair{b, "b"}})
        if (!py::isinstance<py::array>(arr))
            throw py::type_error(std::string(name) + " must be a NumPy array, not " + std::string(py::str(py::type::of(arr).attr("__name__"))));
    const py::dtype da = py::reinterpret_borrow<py::array>(a).dtype(), db = py::reinterpret_borrow<py::array>(b).dtype();
    const bool ok = (da.equal(py::dtype::of<float>()) || da.equal(py::dtype::of<double>())) && da.equal(db);
    if (!ok)
        throw py::type_error("a and b must have one dtype, float32 or float64, not " + std::string(py::str(py::object(da))) + " and " +
                             std::string(py::str(py::object(db))));
}

std::vector<int> shapeOf(const py::array& a, const char* what) {
    std::vector<int> shape;
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
        if (a.shape(i) <= 0) throw py::value_error(std::string(what) + " is empty (a side of length 0)");
        if (a.shape(i) > std::numeric_limits<int>::max())
            throw py::value_error(std::string(what) + " has a side longer than 2^31 - 1");
        shape.push_back(static_cast<int>(a.shape(i)));
    }
    return shape;
}

namespace {
PyTypeObject* contextType = nullptr;  // portacl._Context, set by bindEngine
}  // namespace

PyContext& contextArg(const py::object& ctx) {
    // A context passed as ctx= is used as it is; the Python lookup (the thread's innermost `with`
    // block, else the default context) runs only without one. Its function is looked up once per
    // interpreter (a plain pointer rather than a function-local static: the import may release the
    // GIL, and a second thread would then wait on the static's guard while holding it).
    if (!ctx.is_none() && contextType && PyObject_TypeCheck(ctx.ptr(), contextType)) {
        // The instance's own value, as pybind11's cast would find it, without its two lookups of the
        // type by name.
        auto v = reinterpret_cast<py::detail::instance*>(ctx.ptr())->get_value_and_holder();
        if (v.holder_constructed() && v.value_ptr()) return *v.value_ptr<PyContext>();
    }
    if (!ctx.is_none() && py::isinstance<PyContext>(ctx)) return ctx.cast<PyContext&>();
    static PyObject* resolve = nullptr;
    if (!resolve) resolve = py::object(py::module_::import("portacl._context").attr("resolve")).release().ptr();
    py::object resolved = py::reinterpret_borrow<py::object>(resolve)(ctx);
    return resolved.cast<PyContext&>();
}

namespace {

// The Python exception types, made once by bindEngine.
PyObject* deviceError = nullptr;
PyObject* buildError = nullptr;

py::dict deviceDict(const DeviceInfo& d) {
    py::dict o;
    o["index"] = std::to_string(d.platformIndex) + ":" + std::to_string(d.deviceIndex);
    o["platform"] = d.platformName;
    o["platform_version"] = d.platformVersion;
    o["name"] = d.name;
    o["vendor"] = d.vendor;
    o["type"] = d.type;
    o["compute_units"] = d.computeUnits;
    o["clock_mhz"] = d.clockMHz;
    o["global_memory_bytes"] = d.globalMemBytes;
    o["max_alloc_bytes"] = d.maxAllocBytes;
    o["local_memory_bytes"] = d.localMemBytes;
    o["max_work_group_size"] = d.maxWorkGroupSize;
    o["fp64"] = d.fp64;
    o["fp16"] = d.fp16;
    o["opencl_c_version"] = d.openclCVersion;
    o["device_version"] = d.deviceVersion;
    o["driver_version"] = d.driverVersion;
    if (d.isNvidia()) {
        o["compute_capability"] = std::to_string(d.nvComputeMajor) + "." + std::to_string(d.nvComputeMinor);
        o["warp_size"] = d.warpSize;
    }
    o["profile"] = tuningFor(d).name;
    o["simulator"] = d.isSimulator();
    return o;
}

// Selection: a spec that matches nothing among existing devices is a bad argument (ValueError, the
// library's sentence lists the devices); no OpenCL device at all is a DeviceError.
std::vector<DeviceInfo> select(const std::string& spec) {
    std::vector<DeviceInfo> all;
    {
        py::gil_scoped_release release;
        all = listDevices();
    }
    if (all.empty())
        throw Error("no OpenCL device found (install an ICD, e.g. pocl-opencl-icd for the CPU)");
    return checkArgument([&] {
        py::gil_scoped_release release;
        return spec == "all" ? all : selectDevices(spec);
    });
}

const char* eventKindName(EventKind k) {
    switch (k) {
        case EventKind::Kernel: return "kernel";
        case EventKind::Transfer: return "transfer";
        case EventKind::Marker: return "marker";
        case EventKind::Host: return "host";
    }
    return "other";
}

}  // namespace

void bindEngine(py::module_& m) {
    m.attr("__version__") = kVersion;

    deviceError = PyErr_NewExceptionWithDoc(
        "portacl.DeviceError",
        "The device could not do the work: an OpenCL failure (status names the OpenCL status, e.g.\n"
        "'CL_OUT_OF_RESOURCES'), no fp64 for a double run, not enough device memory, a device that\n"
        "hung past PORTACL_DEVICE_TIMEOUT. The message is the library's sentence.",
        PyExc_RuntimeError, nullptr);
    buildError = PyErr_NewExceptionWithDoc(
        "portacl.BuildError",
        "A kernel failed to compile: log holds the OpenCL compiler's log, options the build options.",
        deviceError, nullptr);
    m.add_object("DeviceError", py::handle(deviceError));
    m.add_object("BuildError", py::handle(buildError));

    py::register_exception_translator([](std::exception_ptr p) {
        if (!p) return;
        try {
            std::rethrow_exception(p);
        } catch (const BuildError& e) {
            py::object exc = py::reinterpret_borrow<py::object>(buildError)(e.what());
            exc.attr("log") = e.log();
            exc.attr("options") = e.options();
            exc.attr("status") = e.statusName();
            PyErr_SetObject(buildError, exc.ptr());
        } catch (const ClError& e) {
            py::object exc = py::reinterpret_borrow<py::object>(deviceError)(e.what());
            exc.attr("status") = e.statusName();
            PyErr_SetObject(deviceError, exc.ptr());
        } catch (const Error& e) {
            py::object exc = py::reinterpret_borrow<py::object>(deviceError)(e.what());
            exc.attr("status") = py::none();
            PyErr_SetObject(deviceError, exc.ptr());
        }
    });

    py::class_<DeviceInfo>(m, "Device", "One OpenCL device and the facts that matter about it (as `portacl devices --json`).")
        .def_property_readonly("index", [](const DeviceInfo& d) { return std::to_string(d.platformIndex) + ":" + std::to_string(d.deviceIndex); },
                               "'P:D', platform and device as `portacl devices` numbers them (a selection spec)")
        .def_readonly("platform", &DeviceInfo::platformName)
        .def_readonly("platform_version", &DeviceInfo::platformVersion)
        .def_readonly("name", &DeviceInfo::name)
        .def_readonly("vendor", &DeviceInfo::vendor)
        .def_readonly("type", &DeviceInfo::type, "'GPU', 'CPU', 'accelerator' or 'other'")
        .def_readonly("compute_units", &DeviceInfo::computeUnits)
        .def_readonly("clock_mhz", &DeviceInfo::clockMHz)
        .def_readonly("global_memory_bytes", &DeviceInfo::globalMemBytes)
        .def_readonly("max_alloc_bytes", &DeviceInfo::maxAllocBytes)
        .def_readonly("local_memory_bytes", &DeviceInfo::localMemBytes)
        .def_readonly("max_work_group_size", &DeviceInfo::maxWorkGroupSize)
        .def_readonly("fp64", &DeviceInfo::fp64)
        .def_readonly("fp16", &DeviceInfo::fp16)
        .def_readonly("opencl_c_version", &DeviceInfo::openclCVersion)
        .def_readonly("device_version", &DeviceInfo::deviceVersion)
        .def_readonly("driver_version", &DeviceInfo::driverVersion)
        .def_property_readonly("compute_capability", [](const DeviceInfo& d) -> py::object {
            if (!d.isNvidia()) return py::none();
            return py::str(std::to_string(d.nvComputeMajor) + "." + std::to_string(d.nvComputeMinor));
        }, "NVIDIA's compute capability ('9.0'), None on other devices")
        .def_property_readonly("warp_size", [](const DeviceInfo& d) -> py::object {
            if (!d.isNvidia()) return py::none();
            return py::int_(d.warpSize);
        })
        .def_property_readonly("profile", [](const DeviceInfo& d) { return tuningFor(d).name; }, "the vendor tuning profile it gets")
        .def_property_readonly("simulator", &DeviceInfo::isSimulator, "a simulator (oclgrind), chosen only by a spec that names it")
        .def("as_dict", &deviceDict, "The facts as a dict with the keys of `portacl devices --json`.")
        .def("__repr__", [](const DeviceInfo& d) { return "<portacl.Device " + d.label() + ">"; })
        .def("__str__", &DeviceInfo::label);

    m.def("devices", &select, py::arg("spec") = "all",
          "The devices a selection spec picks (default 'all': every device of every platform).\n\n"
          "The grammar of --device and PORTACL_DEVICE: 'auto' (the first GPU, else the first CPU), 'gpu',\n"
          "'cpu', 'all', 'P:D', any other text matching a platform, name or vendor (case-insensitive), and\n"
          "specs joined with commas. '' means PORTACL_DEVICE, else 'auto'. Raises ValueError listing the\n"
          "devices when the spec matches none, DeviceError when the machine has no OpenCL device.");

    py::class_<PyContext> contextClass(m, "_Context");
    contextType = reinterpret_cast<PyTypeObject*>(contextClass.ptr());
    contextClass
        .def(py::init([](const py::object& device, const py::object& precision, bool profile, bool cache) {
                 DeviceInfo d;
                 if (py::isinstance<DeviceInfo>(device)) {
                     d = device.cast<DeviceInfo>();
                 } else {
                     const std::string spec = device.is_none() ? std::string() : py::cast<std::string>(device);
                     d = select(spec).front();
                 }
                 std::optional<Precision> p;
                 if (!precision.is_none()) p = checkArgument([&] { return parsePrecision(py::cast<std::string>(precision)); });
                 ContextOptions o = defaultContextOptions();
                 o.profile = profile;
                 if (!cache) o.useDiskCache = false;
                 return std::make_unique<PyContext>(d, p, o);
             }),
             py::arg("device") = py::none(), py::arg("precision") = py::none(), py::arg("profile") = false,
             py::arg("cache") = true)
        .def_property_readonly("device", &PyContext::device, "the Device this context runs on")
        .def_property_readonly("precision", [](const PyContext& c) -> py::object {
                                   if (!c.precision()) return py::none();
                                   return py::str(precisionName(*c.precision()));
                               },
                               "the precision of workloads called without one ('float', 'double' or 'mixed'), or None:\n"
                               "each workload's own default")
        .def_property_readonly("closed", &PyContext::closed)
        .def("close", &PyContext::close, "Waits for the device and releases the context; further use raises ValueError.")
        .def("finish", [](PyContext& c) { onDevice(c, [](Context& ctx) { ctx.finish(); }); },
             "Waits until the device has finished everything enqueued.")
        .def("profile", [](PyContext& c) {
                 if (!c.profiling())
                     throw py::value_error("the profiler is off: open the context with portacl.Context(..., profile=True)");
                 std::vector<Profiler::Row> rows = onDevice(c, [](Context& ctx) {
                     ctx.finish();
                     return ctx.profiler().summary();
                 });
                 py::dict table;  // largest total first, as `--profile` prints it
                 for (const auto& r : rows) {
                     py::dict row;
                     row["kind"] = eventKindName(r.kind);
                     row["count"] = r.count;
                     row["seconds"] = r.totalSeconds;
                     table[py::str(r.name)] = row;
                 }
                 return table;
             },
             "The profiler's table (`--profile`): {event name: {'kind': 'kernel' or 'transfer', 'count': n,\n"
             "'seconds': total device time}}, largest total first, over every call since the context\n"
             "opened or clear_profile(). Needs profile=True.")
        .def("clear_profile", [](PyContext& c) { onDevice(c, [](Context& ctx) { ctx.finish(); ctx.profiler().clear(); }); },
             "Empties the profiler's table.");

    m.def("_set_logger", [](py::object callback) {
        if (callback.is_none()) {
            setLogger({});
            return;
        }
        // The library may log from a thread without the GIL; messages after the interpreter began
        // to shut down are dropped.
        auto shared = std::make_shared<py::object>(std::move(callback));
        setLogger([shared](LogLevel level, const std::string& message) {
            if (!Py_IsInitialized()) return;
            py::gil_scoped_acquire gil;
            try {
                (*shared)(level == LogLevel::Debug ? 10 : level == LogLevel::Info ? 20 : 30, message);
            } catch (py::error_already_set& e) {
                e.discard_as_unraisable("portacl logger");
            }
        });
    });
}

}  // namespace portacl::python

// k-Wave's first-order k-space solver from Python: a k-Wave input file in, what the sensor recorded
// out as NumPy arrays by k-Wave's dataset names, optionally k-Wave's output file too. The time loop
// checks for Ctrl-C and calls the progress callback between steps.
#include "common.hpp"

#include <chrono>

#include "portacl/kwave.hpp"

namespace portacl::python {

namespace {

kwave::OutputSelection outputsOf(const std::vector<std::string>& names, std::size_t startIndex) {
    kwave::OutputSelection o;
    o.pRaw = false;
    const std::map<std::string, bool kwave::OutputSelection::*> flags = {
        {"p", &kwave::OutputSelection::pRaw},          {"p_rms", &kwave::OutputSelection::pRms},
        {"p_max", &kwave::OutputSelection::pMax},      {"p_min", &kwave::OutputSelection::pMin},
        {"p_max_all", &kwave::OutputSelection::pMaxAll}, {"p_min_all", &kwave::OutputSelection::pMinAll},
        {"p_final", &kwave::OutputSelection::pFinal},  {"u", &kwave::OutputSelection::uRaw},
        {"u_non_staggered", &kwave::OutputSelection::uNonStaggeredRaw}, {"u_rms", &kwave::OutputSelection::uRms},
        {"u_max", &kwave::OutputSelection::uMax},      {"u_min", &kwave::OutputSelection::uMin},
        {"u_max_all", &kwave::OutputSelection::uMaxAll}, {"u_min_all", &kwave::OutputSelection::uMinAll},
        {"u_final", &kwave::OutputSelection::uFinal}};
    if (names.empty()) throw py::value_error("record names nothing: give at least one of k-Wave's outputs ('p', 'p_max', ...)");
    for (const auto& n : names) {
        auto it = flags.find(n);
        if (it == flags.end()) {
            std::string known;
            for (const auto& [k, f] : flags) known += (known.empty() ? "" : ", ") + k;
            throw py::value_error("unknown output '" + n + "'; k-Wave's outputs are " + known);
        }
        o.*(it->second) = true;
    }
    o.startIndex = startIndex;
    return o;
}

// Raw series are (samples, sensor points), aggregates (sensor points,), *_all and *_final the grid
// (Nz, Ny, Nx): the layout of k-Wave's output file, x fastest.
py::dict arraysOf(kwave::Recording&& rec, const kwave::Grid& g) {
    py::dict out;
    auto endsWith = [](const std::string& s, const std::string& tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    for (auto& [name, values] : rec.data) {
        std::vector<py::ssize_t> shape;
        const py::ssize_t n = py::ssize_t(values.size());
        if (endsWith(name, "_all") || endsWith(name, "_final")) shape = {py::ssize_t(g.nz), py::ssize_t(g.ny), py::ssize_t(g.nx)};
        else if (endsWith(name, "_rms") || endsWith(name, "_max") || endsWith(name, "_min")) shape = {n};
        else if (rec.samples > 0 && values.size() % rec.samples == 0) shape = {py::ssize_t(rec.samples), n / py::ssize_t(rec.samples)};
        else shape = {n};
        out[py::str(name)] = toArray(std::move(values), shape);
    }
    return out;
}

kwave::RunOptions runOptionsOf(const std::vector<std::string>& record, const std::string& precision, const std::string& storage,
                               std::size_t startIndex) {
    kwave::RunOptions options;
    options.outputs = outputsOf(record, startIndex);
    options.precision = checkArgument([&] { return kwave::parseArithmetic(precision); });
    options.storage = checkArgument([&] { return kwave::parseStorage(storage); });
    if (options.storage != kwave::Storage::Full && options.precision != Precision::Float)
        throw py::value_error("the reduced storage modes compute in single precision: use precision='single'");
    return options;
}

// Runs a validated description (from a file or from k-wave-python's objects) on the device of ctx,
// or on the serial reference.
py::dict run(const kwave::Simulation& sim, const kwave::RunOptions& options, std::size_t steps, const py::object& outputFile,
             const py::object& progress, const py::object& ctx, bool reference) {
    if (steps > sim.nt) throw py::value_error("steps " + std::to_string(steps) + " exceeds the input's Nt " + std::to_string(sim.nt));
    const std::size_t end = steps ? steps : sim.nt;
    const auto t0 = std::chrono::steady_clock::now();
    kwave::Recording rec;
    if (reference) {
        rec = withoutGil([&] { return kwave::referenceRun(sim, options.outputs, end); });
    } else {
        PyContext& pc = contextArg(ctx);
        bool interrupted = false;
        rec = onDevice(pc, [&](Context& c) {
            kwave::KSpaceSolver solver(c, sim, options);
            // Between steps: every 16 steps (and at the end) the GIL is taken to look for Ctrl-C and to
            // report progress; the device keeps the queued steps running meanwhile.
            solver.run(end, [&](std::size_t t) {
                if (t % 16 != 0 && t != end) return false;
                py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {
                    interrupted = true;
                    return true;
                }
                if (!progress.is_none()) {
                    try {
                        progress(t, end);
                    } catch (py::error_already_set&) {
                        interrupted = true;  // the callback's exception ends the run and is raised
                        throw;
                    }
                }
                return false;
            });
            kwave::Recording r = solver.recording();
            r.finalize();
            return r;
        });
        if (interrupted) throw py::error_already_set();
    }
    if (!rec.finalized) rec.finalize();
    if (!outputFile.is_none()) {
        kwave::RunInfo info;
        info.timeIndex = end;
        info.simulationSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        info.totalSeconds = info.simulationSeconds;
        const std::string path = py::str(py::module_::import("os").attr("fspath")(outputFile));
        withoutGil([&] { kwave::writeOutputFile(path, sim, options.outputs, rec, info); });
    }
    return arraysOf(std::move(rec), sim.grid);
}

py::dict simulateFile(const std::string& input, const kwave::RunOptions& options, std::size_t steps, const py::object& outputFile,
                      const py::object& progress, const py::object& ctx, bool reference) {
    const kwave::Simulation sim = checkArgument([&] {
        return withoutGil([&] {
            kwave::Simulation s = kwave::readInputFile(input);
            kwave::validate(s, input);
            return s;
        });
    });
    return run(sim, options, steps, outputFile, progress, ctx, reference);
}

// A description given as a dict of k-Wave's input datasets (portacl/_kwave_objects.py makes it from
// k-wave-python's objects): the file's names, indices 0-based, grid arrays flattened x fastest.
template <typename T>
T scalarOf(const py::dict& d, const char* key) {
    if (!d.contains(key)) throw py::value_error(std::string("the k-Wave description has no '") + key + "'");
    return py::cast<T>(d[key]);
}

std::vector<float> floatsOf(const py::dict& d, const char* key) {
    if (!d.contains(key)) return {};
    auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(d[key]);
    if (!a) throw py::type_error(std::string("the k-Wave description's '") + key + "' is not numeric");
    return std::vector<float>(a.data(), a.data() + a.size());
}

std::vector<std::uint64_t> indicesOf(const py::dict& d, const char* key) {
    if (!d.contains(key)) return {};
    auto a = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(d[key]);
    if (!a) throw py::type_error(std::string("the k-Wave description's '") + key + "' is not an index array");
    return std::vector<std::uint64_t>(a.data(), a.data() + a.size());
}

kwave::Simulation simulationOf(const py::dict& d) {
    kwave::Simulation s;
    s.header.createdBy = "portacl.kwave (k-wave-python objects)";
    s.header.fileDescription = "from k-wave-python's kWaveGrid, kWaveMedium, kSource and kSensor";
    kwave::Grid& g = s.grid;
    g.nx = scalarOf<std::size_t>(d, "Nx");
    g.ny = scalarOf<std::size_t>(d, "Ny");
    g.nz = scalarOf<std::size_t>(d, "Nz");
    s.nt = scalarOf<std::size_t>(d, "Nt");
    g.dx = scalarOf<double>(d, "dx");
    g.dy = scalarOf<double>(d, "dy");
    g.dz = scalarOf<double>(d, "dz");
    s.dt = scalarOf<double>(d, "dt");
    s.cRef = scalarOf<double>(d, "c_ref");
    checkArgument([&] { kwave::checkGridSize(g, s.nt, "the k-wave-python grid"); });
    const auto pmlSize = py::cast<std::vector<std::size_t>>(d["pml_size"]);
    const auto pmlAlpha = py::cast<std::vector<double>>(d["pml_alpha"]);
    for (int a = 0; a < 3; ++a) {
        s.pml.size[a] = pmlSize.at(a);
        s.pml.alpha[a] = pmlAlpha.at(a);
    }
    kwave::Medium& m = s.medium;
    m.c0.values = floatsOf(d, "c0");
    m.rho0.values = floatsOf(d, "rho0");
    m.rho0Sgx.values = floatsOf(d, "rho0_sgx");
    m.rho0Sgy.values = floatsOf(d, "rho0_sgy");
    m.rho0Sgz.values = floatsOf(d, "rho0_sgz");
    m.bOnA.values = floatsOf(d, "BonA");
    m.nonlinear = m.bOnA.present();
    m.absorption = static_cast<kwave::Absorption>(scalarOf<int>(d, "absorbing_flag"));
    if (m.absorption != kwave::Absorption::Lossless) {
        m.alphaCoeff.values = floatsOf(d, "alpha_coeff");
        m.alphaPower = scalarOf<double>(d, "alpha_power");
    }
    s.p0 = floatsOf(d, "p0_source_input");
    s.sensor.type = kwave::SensorMask::Type::Index;
    s.sensor.index = indicesOf(d, "sensor_mask_index");
    checkArgument([&] { kwave::validate(s, "the k-wave-python objects"); });
    return s;
}

py::dict simulateObjects(const py::dict& description, const kwave::RunOptions& options, std::size_t steps,
                         const py::object& outputFile, const py::object& progress, const py::object& ctx, bool reference) {
    return run(simulationOf(description), options, steps, outputFile, progress, ctx, reference);
}

}  // namespace

void bindKwave(py::module_& m, py::module_& ref) {
    py::module_ k = m.def_submodule("kwave", "k-Wave's first-order k-space ultrasound solver.");
    py::module_ rk = ref.def_submodule("kwave", "The serial C++ reference of portacl.kwave (double precision, its own DFT).");
    for (bool reference : {false, true}) {
        (reference ? rk : k).def(
            "simulate",
            [reference](const py::object& input, const std::vector<std::string>& record, const std::string& precision,
                        const std::string& storage, std::size_t startIndex, std::size_t steps, const py::object& outputFile,
                        const py::object& progress, const py::object& ctx) {
                const std::string path = py::str(py::module_::import("os").attr("fspath")(input));
                return simulateFile(path, runOptionsOf(record, precision, storage, startIndex), steps, outputFile, progress, ctx,
                                    reference);
            },
            py::arg("input"), py::kw_only(), py::arg("record") = std::vector<std::string>{"p"}, py::arg("precision") = "single",
            py::arg("storage") = "full", py::arg("start_index") = 0, py::arg("steps") = 0, py::arg("output_file") = py::none(),
            py::arg("progress") = py::none(), py::arg("ctx") = py::none(),
            "Runs a k-Wave input file (format 1.2, as k-Wave MATLAB or k-wave-python writes it).\n\n"
            "record: k-Wave's outputs ('p', 'p_rms', 'p_max', 'p_min', 'p_max_all', 'p_min_all', 'p_final', 'u',\n"
            "'u_non_staggered', 'u_rms', 'u_max', 'u_min', 'u_max_all', 'u_min_all', 'u_final'); precision\n"
            "'single' or 'double'; storage 'full', 'reduced-min', 'reduced-mid' or 'reduced-max' (16-bit\n"
            "storage of chosen arrays, single precision); start_index: the first step recorded (0-based,\n"
            "k-Wave's -s minus one); steps: stop after this many (0: Nt); output_file: also write k-Wave's\n"
            "output file there. progress(step, total) is called every 16 steps; Ctrl-C stops the run\n"
            "between steps (KeyboardInterrupt). Returns {dataset name: array} with the layout of k-Wave's\n"
            "output file: raw series (samples, sensor points) ('p', 'ux', ...), aggregates (sensor points,),\n"
            "'*_all' and '*_final' the grid (Nz, Ny, Nx).");
        (reference ? rk : k).def(
            "_simulate_description",
            [reference](const py::dict& description, const std::vector<std::string>& record, const std::string& precision,
                        const std::string& storage, std::size_t startIndex, std::size_t steps, const py::object& outputFile,
                        const py::object& progress, const py::object& ctx) {
                return simulateObjects(description, runOptionsOf(record, precision, storage, startIndex), steps, outputFile,
                                       progress, ctx, reference);
            },
            py::arg("description"), py::kw_only(), py::arg("record"), py::arg("precision"), py::arg("storage"),
            py::arg("start_index"), py::arg("steps"), py::arg("output_file"), py::arg("progress"), py::arg("ctx"),
            "Runs a description of k-Wave's input datasets (portacl.kwave.simulate builds it from k-wave-python's objects).");
    }
}

}  // namespace portacl::python

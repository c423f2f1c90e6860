// The lineal path function, the two-point probability S2 and the reconstruction on NumPy images.
// Maps come back as GooseEYE's: an array of (2 ML + 1) per axis of the image, the zero displacement
// at its centre, element [ML + dy, ML + dx] (3-D: [ML + dz, ML + dy, ML + dx]).
#include "common.hpp"

#include <chrono>
#include <cmath>

#include "portacl/lineal_path.hpp"
#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/lineal_path/two_point.hpp"

namespace portacl::python {

namespace {

io::Volume volumeOf(const py::object& image) {
    auto a = numericArray(image, "image");
    if (a.ndim() != 2 && a.ndim() != 3)
        throw py::value_error("image must be 2-D or 3-D, not " + std::to_string(a.ndim()) + "-D");
    const auto shape = shapeOf(a, "image");
    io::Volume v;
    v.nz = a.ndim() == 3 ? shape[0] : 1;
    v.ny = shape[a.ndim() - 2];
    v.nx = shape[a.ndim() - 1];
    v.data.assign(a.data(), a.data() + a.size());
    v.elementType = "float64";
    return v;
}

lineal::PhaseImage phaseOf(const py::object& image, double phase) {
    io::Volume v = volumeOf(image);
    return checkArgument([&] { return lineal::phaseByLabel(v, phase); });
}

std::vector<py::ssize_t> mapShape(int mz, int my, int mx, bool threeD) {
    if (threeD) return {mz, my, mx};
    return {my, mx};
}

py::object linealPathOf(const py::object& image, double phase, int maxLength, bool periodic, bool counts,
                        const py::object& ctx, bool reference) {
    lineal::PhaseImage img = phaseOf(image, phase);
    lineal::Options o;
    o.maxLength = maxLength;
    o.periodic = periodic;
    checkArgument([&] { lineal::validate(img, o); });
    lineal::Result r = reference ? withoutGil([&] { return lineal::linealPathReference(img, o); })
                                 : onDevice(contextArg(ctx), [&](Context& c) { return lineal::linealPath(c, img, o); });
    const auto shape = mapShape(r.mz, r.my, r.mx, img.is3d());
    if (counts) return py::make_tuple(toArray(std::move(r.count), shape), toArray(std::move(r.tried), shape));
    return toArray(r.map(), shape);
}

py::array s2Of(const py::object& image, double phase, int maxLength, bool periodic, const py::object& precision,
               const py::object& ctx, bool reference) {
    lineal::PhaseImage img = phaseOf(image, phase);
    lineal::Options o;
    o.maxLength = maxLength;
    o.periodic = periodic;
    checkArgument([&] { lineal::validate(img, o); });
    const int m = 2 * maxLength + 1;
    const auto shape = mapShape(img.is3d() ? m : 1, m, m, img.is3d());
    if (reference) return toArray(withoutGil([&] { return lineal::twoPointProbabilityReference(img, o); }), shape);
    PyContext& pc = contextArg(ctx);
    Precision p = precisionArg(precision, pc, Precision::Float);
    if (p == Precision::Mixed) p = Precision::Double;  // no two-phase mode: mixed asks for the accurate one
    return toArray(onDevice(pc, [&](Context& c) { return lineal::twoPointProbability(c, img, o, p); }), shape);
}

// The target needs the device (its L comes from lineal_path), so the reference run uses it too; only
// the chain's evaluator differs.
py::dict reconstructOf(const py::object& image, double phase, int maxLength, const py::object& shapeArg,
                       std::uint64_t steps, std::uint64_t seed, double tMax, double tMin, double s2Weight,
                       const py::object& precision, const py::object& progress, const py::object& ctx, bool reference) {
    lineal::PhaseImage img = phaseOf(image, phase);
    checkArgument([&] { lineal::validate(img, lineal::Options{maxLength, true}); });
    if (s2Weight < 0) throw py::value_error("s2_weight must be zero or positive");
    std::vector<int> shape;
    if (shapeArg.is_none()) {
        if (img.is3d()) shape = {img.nz, img.ny, img.nx};
        else shape = {img.ny, img.nx};
    } else {
        shape = shapeArg.cast<std::vector<int>>();
    }
    if (shape.size() != (img.is3d() ? 3u : 2u))
        throw py::value_error(std::string("shape must have the image's dimension: ") + (img.is3d() ? "(depth, height, width)" : "(height, width)"));
    for (int d : shape)
        if (d <= maxLength) throw py::value_error("every side of shape must exceed max_length " + std::to_string(maxLength));
    lineal::AnnealOptions a;
    a.steps = steps;
    a.seed = seed;
    a.tMax = tMax;
    a.tMin = tMin;
    a.progress = false;
    checkArgument([&] { lineal::validate(a); });
    PyContext& pc = contextArg(ctx);
    Precision p = precisionArg(precision, pc, Precision::Float);
    if (p == Precision::Mixed) p = Precision::Double;
    // Between batches of candidates, at most every 0.1 s: the GIL is taken to look for Ctrl-C and to
    // call progress(step, total); either ends the chain, and the exception is raised once it stopped.
    bool stopped = false;
    auto last = std::chrono::steady_clock::now();
    a.afterBatch = [&](const lineal::AnnealState& s) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(100) && s.step < steps && s.error > 0) return false;
        last = now;
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) return stopped = true;
        if (!progress.is_none()) {
            try {
                progress(s.step, steps);
            } catch (py::error_already_set& e) {
                e.restore();
                return stopped = true;
            }
        }
        return false;
    };
    lineal::AnnealState st;
    lineal::Target t = onDevice(pc, [&](Context& c) {
        lineal::Target target = lineal::targetFromImage(c, img, maxLength, s2Weight);
        const double fraction = target.L[target.L.size() / 2];
        target.nz = shape.size() == 3 ? shape[0] : 1;
        target.ny = shape[shape.size() - 2];
        target.nx = shape[shape.size() - 1];
        target.phasePixels = std::uint64_t(std::llround(fraction * double(target.nz) * target.ny * target.nx));
        if (target.phasePixels == 0) throw Error("the cell is too small to hold the phase fraction of the image");
        st.image = lineal::randomStart(target, seed);
        auto ev = reference ? lineal::makeReferenceEvaluator(target, st.image) : lineal::makeDeviceEvaluator(c, target, st.image, p);
        lineal::anneal(*ev, target, a, st);
        return target;
    });
    if (stopped) throw py::error_already_set();  // Ctrl-C's KeyboardInterrupt, or the callback's exception
    std::vector<py::ssize_t> outShape(shape.begin(), shape.end());
    py::dict out;
    out["image"] = toArray(std::move(st.image.mask), outShape);
    out["error"] = st.error;
    out["steps"] = st.step;
    out["accepted"] = st.accepted;
    py::list history;
    for (const auto& h : st.history) history.append(py::make_tuple(h.step, h.temperature, h.error, h.accepted));
    out["history"] = history;
    return out;
}

}  // namespace

void bindLinealPath(py::module_& m, py::module_& ref) {
    m.def("lineal_path", [](const py::object& image, double phase, int maxLength, bool periodic, bool counts, const py::object& ctx) {
              return linealPathOf(image, phase, maxLength, periodic, counts, ctx, false);
          },
          py::arg("image"), py::kw_only(), py::arg("phase") = 1.0, py::arg("max_length"), py::arg("periodic") = false,
          py::arg("counts") = false, py::arg("ctx") = py::none(),
          "The lineal path function L of one phase for every displacement up to max_length.\n\n"
          "image: a 2-D or 3-D array of labels (any integer, boolean or float dtype); the phase is the\n"
          "pixels equal to `phase`. Segments are Bresenham lines. periodic: the image wraps (every pixel is\n"
          "a placement); otherwise only placements whose segment lies inside count. Returns L as float64\n"
          "of shape (2 ML + 1,) * image.ndim, the zero displacement at the centre (GooseEYE's layout:\n"
          "L[ML + dy, ML + dx]); with counts=True the exact integer counts (count, tried) instead, L =\n"
          "count / tried. The counts are exact on every device.");
    ref.def("lineal_path", [](const py::object& image, double phase, int maxLength, bool periodic, bool counts) {
                return linealPathOf(image, phase, maxLength, periodic, counts, py::none(), true);
            },
            py::arg("image"), py::kw_only(), py::arg("phase") = 1.0, py::arg("max_length"), py::arg("periodic") = false,
            py::arg("counts") = false, "The serial C++ reference of lineal_path.");
    m.def("s2", [](const py::object& image, double phase, int maxLength, bool periodic, const py::object& precision,
                   const py::object& ctx) { return s2Of(image, phase, maxLength, periodic, precision, ctx, false); },
          py::arg("image"), py::kw_only(), py::arg("phase") = 1.0, py::arg("max_length"), py::arg("periodic") = false,
          py::arg("precision") = py::none(), py::arg("ctx") = py::none(),
          "The two-point probability S2 of one phase for every displacement up to max_length, by FFT\n"
          "autocorrelation: the fraction of placements p with p and p + d in the phase (non-periodic:\n"
          "over the placements with p + d inside). Same layout as lineal_path. precision 'float' (relative\n"
          "error about 1e-6) or 'double' (about 1e-14; 'mixed' means double here).");
    ref.def("s2", [](const py::object& image, double phase, int maxLength, bool periodic) {
                return s2Of(image, phase, maxLength, periodic, py::none(), py::none(), true);
            },
            py::arg("image"), py::kw_only(), py::arg("phase") = 1.0, py::arg("max_length"), py::arg("periodic") = false,
            "The serial C++ reference of s2: direct sums of integer products.");
    const char* reconstructDoc =
        "A periodic two-phase image whose lineal path function matches that of `image`'s phase, by\n"
        "simulated annealing (pixel swaps keep the phase fraction; Metropolis acceptance at a temperature\n"
        "cooling from t_max to t_min). shape: the cell (default the image's); s2_weight > 0 also matches\n"
        "S2. Returns {'image': uint8 array of 0 and 1, 'error': the final sum of squared differences of L\n"
        "(plus s2_weight times that of S2), 'steps', 'accepted', 'history': [(step, temperature, error,\n"
        "accepted), ...]}. The chain is reproducible from seed. progress: called as progress(step, steps)\n"
        "at most every 0.1 s and at the end (a tqdm bar's update fits); Ctrl-C stops the chain between\n"
        "batches of candidates with KeyboardInterrupt, and an exception of progress ends it too.";
    auto reconstruct = [](bool reference) {
        return [reference](const py::object& image, double phase, int maxLength, const py::object& shape, std::uint64_t steps,
                           std::uint64_t seed, double tMax, double tMin, double s2Weight, const py::object& precision,
                           const py::object& progress, const py::object& ctx) {
            return reconstructOf(image, phase, maxLength, shape, steps, seed, tMax, tMin, s2Weight, precision, progress, ctx,
                                 reference);
        };
    };
    m.def("reconstruct", reconstruct(false), py::arg("image"), py::kw_only(), py::arg("phase") = 1.0, py::arg("max_length"),
          py::arg("shape") = py::none(), py::arg("steps") = 100000, py::arg("seed") = 1, py::arg("t_max") = 1e-3,
          py::arg("t_min") = 1e-6, py::arg("s2_weight") = 0.0, py::arg("precision") = py::none(), py::arg("progress") = py::none(),
          py::arg("ctx") = py::none(), reconstructDoc);
    ref.def("reconstruct", reconstruct(true), py::arg("image"), py::kw_only(), py::arg("phase") = 1.0, py::arg("max_length"),
            py::arg("shape") = py::none(), py::arg("steps") = 100000, py::arg("seed") = 1, py::arg("t_max") = 1e-3,
            py::arg("t_min") = 1e-6, py::arg("s2_weight") = 0.0, py::arg("precision") = py::none(), py::arg("progress") = py::none(),
            py::arg("ctx") = py::none(), "reconstruct with the serial C++ evaluator of the swaps (the target is still measured on the device).");
}

}  // namespace portacl::python

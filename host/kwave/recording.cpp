#include <cmath>
#include <limits>

#include "portacl/runtime/error.hpp"
#include "sensor_recorder.hpp"

namespace portacl::kwave {

QuantityOutputs outputsOf(const std::string& q, const OutputSelection& s) {
    QuantityOutputs o;
    if (q.find("_non_staggered") != std::string::npos) {
        o.raw = s.uNonStaggeredRaw;
    } else if (q == "p") {
        o = {s.pRaw, s.pRms, s.pMax, s.pMin, s.pMaxAll, s.pMinAll, s.pFinal};
    } else {
        o = {s.uRaw, s.uRms, s.uMax, s.uMin, s.uMaxAll, s.uMinAll, s.uFinal};
    }
    return o;
}

int fieldOf(const std::string& q) {
    if (q == "p") return 0;
    const int axis = q[1] - 'x';
    return (q.find("_non_staggered") != std::string::npos ? 4 : 1) + axis;
}

std::vector<std::string> quantities(const Grid& grid) {
    if (grid.is3D()) return {"p", "ux", "uy", "uz", "ux_non_staggered", "uy_non_staggered", "uz_non_staggered"};
    return {"p", "ux", "uy", "ux_non_staggered", "uy_non_staggered"};
}

void sampleOnHost(Recording& rec, const std::string& q, const QuantityOutputs& out,
                  const std::vector<std::uint64_t>& points, const double* field, std::size_t gridSize) {
    const std::size_t ns = points.size();
    const bool first = rec.samples == 0;
    if (out.raw) {
        auto& raw = rec.data[q];
        for (std::size_t i = 0; i < ns; ++i) raw.push_back(field[points[i]]);
    }
    auto reduce = [&](const std::string& name, bool on, std::size_t count, auto indexOf, auto combine) {
        if (!on) return;
        auto& v = rec.data[name];
        if (first) v.assign(count, 0.0);
        for (std::size_t i = 0; i < count; ++i) {
            const double x = field[indexOf(i)];
            v[i] = first ? combine(x, x, true) : combine(v[i], x, false);
        }
    };
    auto atPoint = [&](std::size_t i) { return points[i]; };
    auto atGrid = [](std::size_t i) { return i; };
    auto sumSq = [](double acc, double x, bool init) { return init ? x * x : acc + x * x; };
    auto mx = [](double acc, double x, bool) { return std::max(acc, x); };
    auto mn = [](double acc, double x, bool) { return std::min(acc, x); };
    reduce(q + "_rms", out.rms, ns, atPoint, sumSq);
    reduce(q + "_max", out.max, ns, atPoint, mx);
    reduce(q + "_min", out.min, ns, atPoint, mn);
    reduce(q + "_max_all", out.maxAll, gridSize, atGrid, mx);
    reduce(q + "_min_all", out.minAll, gridSize, atGrid, mn);
}

void Recording::finalize() {
    if (finalized) return;
    for (auto& [name, v] : data) {
        if (name.size() > 4 && name.compare(name.size() - 4, 4, "_rms") == 0 && samples)
            for (auto& x : v) x = std::sqrt(x / static_cast<double>(samples));
    }
    finalized = true;
}

const char* storageName(Storage s) {
    switch (s) {
        case Storage::Full: return "full";
        case Storage::ReducedMin: return "reduced-min";
        case Storage::ReducedMid: return "reduced-mid";
        case Storage::ReducedMax: return "reduced-max";
    }
    return "?";
}

Precision parseArithmetic(const std::string& text) {
    if (text == "single" || text == "float") return Precision::Float;
    if (text == "double") return Precision::Double;
    throw Error("unknown precision '" + text + "'; the solver's precisions are single (float) and double");
}

Storage parseStorage(const std::string& text) {
    for (const Storage s : {Storage::Full, Storage::ReducedMin, Storage::ReducedMid, Storage::ReducedMax})
        if (text == storageName(s)) return s;
    throw Error("unknown storage '" + text + "'; the storage modes are full, reduced-min, reduced-mid and reduced-max");
}

}  // namespace portacl::kwave

#include "slab_simulation.hpp"

#include "kwave/setup_trace.hpp"

namespace portacl::kwave::distributed {
namespace {

// The rank whose slab holds grid point `index`.
int ownerOf(std::uint64_t index, const SlabLayout& l) {
    const std::size_t plane = static_cast<std::size_t>(index / l.plane);
    int r = 0;
    while (r + 1 < l.ranks && l.start0[static_cast<std::size_t>(r) + 1] <= plane) ++r;
    return r;
}

// The planes a rank holds: its slab and the overlap planes below and above it.
struct Held {
    std::size_t first, count;
};

// The held planes' points of a per-point array of `whole`: cut from the whole grid's, or the array
// itself when the input was read for these planes alone (Simulation::planes).
std::vector<float> cutPoints(const std::vector<float>& v, const Simulation& whole, const SlabLayout& l, Held h) {
    if (!whole.planes.whole()) return v;
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(h.first * l.plane);
    return std::vector<float>(first, first + static_cast<std::ptrdiff_t>(h.count * l.plane));
}

Field cut(const Field& f, const Simulation& whole, const SlabLayout& l, Held h) {
    if (f.values.size() <= 1) return f;
    Field out;
    out.values = cutPoints(f.values, whole, l, h);
    return out;
}

// `whole` without its per-point arrays (the medium's fields that are grids, p0), which the slab gets
// cut, so that they are copied once.
Simulation shellOf(const Simulation& whole) {
    Simulation s;
    s.header = whole.header;
    s.grid = whole.grid;
    s.nt = whole.nt;
    s.dt = whole.dt;
    s.cRef = whole.cRef;
    s.pml = whole.pml;
    const Medium& w = whole.medium;
    Medium& m = s.medium;
    m.nonlinear = w.nonlinear;
    m.absorption = w.absorption;
    m.alphaPower = w.alphaPower;
    s.p = whole.p;
    s.u = whole.u;
    s.transducer = whole.transducer;
    s.sensor = whole.sensor;
    s.axisymmetric = whole.axisymmetric;
    s.nonuniformGrid = whole.nonuniformGrid;
    return s;
}

// The points of `index` inside the held planes (their positions in `index` in `kept`), re-indexed to them.
std::vector<std::uint64_t> localPoints(const std::vector<std::uint64_t>& index, const SlabLayout& l, Held h, std::vector<std::size_t>& kept) {
    std::vector<std::uint64_t> local;
    kept.clear();
    const std::uint64_t offset = h.first * l.plane;
    for (std::size_t i = 0; i < index.size(); ++i)
        if (index[i] / l.plane >= h.first && index[i] / l.plane < h.first + h.count) {
            local.push_back(index[i] - offset);
            kept.push_back(i);
        }
    return local;
}

// A signal of one value per point and step (`many`), cut to the kept points; one shared signal stays.
std::vector<float> cutSignal(const std::vector<float>& signal, bool many, std::size_t points, const std::vector<std::size_t>& kept) {
    if (!many || points == 0) return signal;
    const std::size_t steps = signal.size() / points;
    std::vector<float> out;
    out.reserve(steps * kept.size());
    for (std::size_t t = 0; t < steps; ++t)
        for (std::size_t k : kept) out.push_back(signal[t * points + k]);
    return out;
}

}  // namespace

std::vector<std::vector<std::size_t>> sensorPositionsByRank(const Simulation& whole, const SlabLayout& l) {
    std::vector<std::vector<std::size_t>> byRank(static_cast<std::size_t>(l.ranks));
    const auto points = whole.sensor.points(whole.grid);
    for (std::size_t i = 0; i < points.size(); ++i) byRank[static_cast<std::size_t>(ownerOf(points[i], l))].push_back(i);
    return byRank;
}

SlabSimulation::SlabSimulation(const Simulation& whole, const SlabLayout& l, std::size_t below, std::size_t above)
    : slab((traceSetup("the slab's copy of this rank's input"), shellOf(whole))) {
    if (below > l.firstPlane() || l.firstPlane() + l.planes() + above > l.n0)
        throw Error("a slab's overlap planes must lie inside the grid");
    const Held h{l.firstPlane() - below, l.planes() + below + above};
    if (!whole.planes.whole() && (whole.planes.first != h.first || whole.planes.count != h.count))
        throw Error("this rank's input holds planes " + std::to_string(whole.planes.first) + " to " +
                    std::to_string(whole.planes.first + whole.planes.count - 1) + ", not its slab's " + std::to_string(h.first) +
                    " to " + std::to_string(h.first + h.count - 1));
    Grid& g = slab.grid;
    if (l.is3D) g.nz = h.count;
    else g.ny = h.count;
    if (whole.grid.is3D() && !g.is3D())
        throw Error("a " + l.describe() + " grid over " + std::to_string(l.ranks) +
                    " ranks leaves a rank one z plane; 3-D runs need at least 2 planes per rank, so use at most " +
                    std::to_string(whole.grid.nz / 2) + " ranks");
    Medium& m = slab.medium;
    const Medium& w = whole.medium;
    m.c0 = cut(w.c0, whole, l, h);
    m.rho0 = cut(w.rho0, whole, l, h);
    m.rho0Sgx = cut(w.rho0Sgx, whole, l, h);
    m.rho0Sgy = cut(w.rho0Sgy, whole, l, h);
    m.rho0Sgz = cut(w.rho0Sgz, whole, l, h);
    m.bOnA = cut(w.bOnA, whole, l, h);
    m.alphaCoeff = cut(w.alphaCoeff, whole, l, h);
    if (!whole.p0.empty()) slab.p0 = cutPoints(whole.p0, whole, l, h);
    std::vector<std::size_t> kept;
    if (whole.p.length) {
        slab.p.index = localPoints(whole.p.index, l, h, kept);
        slab.p.signal = cutSignal(whole.p.signal, whole.p.many, whole.p.index.size(), kept);
    }
    if (!whole.u.index.empty()) {
        slab.u.index = localPoints(whole.u.index, l, h, kept);
        for (int a = 0; a < 3; ++a)
            if (whole.u.length[a]) slab.u.signal[a] = cutSignal(whole.u.signal[a], whole.u.many, whole.u.index.size(), kept);
        if (whole.transducer.length) {
            slab.transducer.delay.clear();
            for (std::size_t k : kept) slab.transducer.delay.push_back(whole.transducer.delay[k]);
        }
    }
    // The sensor as an index list of the slab's own points, in the whole sensor's order.
    const auto points = whole.sensor.points(whole.grid);
    wholeSensorPoints = points.size();
    slab.sensor = SensorMask();
    slab.sensor.type = SensorMask::Type::Index;
    const std::uint64_t offset = h.first * l.plane;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (ownerOf(points[i], l) == l.rank) {
            slab.sensor.index.push_back(points[i] - offset);
            sensorPositions.push_back(i);
        }
}

}  // namespace portacl::kwave::distributed

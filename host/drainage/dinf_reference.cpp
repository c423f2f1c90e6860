// Serial C++ reference of D∞ (Tarboton 1997): the facets' slopes cell by cell, and the accumulation in
// Kahn's topological order, each cell's shares gathered in the same fixed order as on the device, in
// the same precision.
#include <algorithm>
#include <cmath>
#include <deque>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

// The facets as in cl/drainage_dinf.cl: cardinal e1, diagonal e2, angle = ac π/2 + af r.
constexpr int kFacetE1[8] = {0, 2, 2, 4, 4, 6, 6, 0};
constexpr int kFacetE2[8] = {1, 1, 3, 3, 5, 5, 7, 7};
constexpr int kFacetAc[8] = {0, 1, 1, 2, 2, 3, 3, 4};
constexpr int kFacetAf[8] = {1, -1, 1, -1, 1, -1, 1, -1};

long neighbourWithData(const std::vector<std::uint8_t>& nodata, int rows, int cols, std::size_t i, int k) {
    const int r = int(i / std::size_t(cols)) + kRowOffset[k], c = int(i % std::size_t(cols)) + kColOffset[k];
    if (r < 0 || r >= rows || c < 0 || c >= cols) return -1;
    const std::size_t n = std::size_t(r) * cols + c;
    return nodata[n] ? -1 : long(n);
}

// The angle of the neighbour in direction k, as cl/drainage_dinf.cl's direction_angle.
template <typename T>
T directionAngle(int k, T diagonal) {
    const T halfPi = T(1.57079632679489661923), twoPi = T(6.28318530717958647692);
    switch (k) {
        case 0: return T(0);
        case 1: return diagonal;
        case 2: return halfPi;
        case 3: return 2 * halfPi - diagonal;
        case 4: return 2 * halfPi;
        case 5: return 2 * halfPi + diagonal;
        case 6: return 3 * halfPi;
        default: return twoPi - diagonal;
    }
}

template <typename T>
DinfGrid dinfOf(const io::Raster& dem) {
    validateDem(dem);
    if (dem.size() >= (std::size_t(1) << 31))
        throw Error("a DEM of " + std::to_string(dem.size()) + " cells is larger than the 2^31 cells one piece holds");
    const int rows = dem.rows(), cols = dem.cols();
    const T dx = T(dem.frame.cellWidth()), dy = T(dem.frame.cellHeight());
    const T diagonal = T(detail::dinfDiagonal(dem.frame));
    const T halfPi = T(1.57079632679489661923), twoPi = T(6.28318530717958647692);
    std::vector<std::uint8_t> nodata(dem.size());
    for (std::size_t i = 0; i < nodata.size(); ++i) nodata[i] = dem.isNoData(i);
    DinfGrid g;
    g.frame = dem.frame;
    g.source = dem.path;
    g.angle.assign(dem.size(), kDinfNoData);
    for (std::size_t i = 0; i < dem.size(); ++i) {
        if (nodata[i]) continue;
        const T e0 = T(dem.values[i]);
        T best = 0, a = T(kDinfNoFlow);
        for (int f = 0; f < 8; ++f) {
            const long n1 = neighbourWithData(nodata, rows, cols, i, kFacetE1[f]);
            const long n2 = neighbourWithData(nodata, rows, cols, i, kFacetE2[f]);
            if (n1 < 0 || n2 < 0) continue;
            const bool eastWest = (kFacetE1[f] & 3) == 0;
            const T d1 = eastWest ? dx : dy, d2 = eastWest ? dy : dx;
            const T z1 = T(dem.values[std::size_t(n1)]), z2 = T(dem.values[std::size_t(n2)]);
            const T s1 = (e0 - z1) / d1, s2 = (z1 - z2) / d2;
            const T t = std::atan2(s2, s1), edge = std::atan2(d2, d1);
            const T a1 = f == 7 ? twoPi : directionAngle(kFacetE1[f], diagonal), a2 = directionAngle(kFacetE2[f], diagonal);
            T s, af;
            if (t <= 0) {
                s = s1;
                af = a1;
            } else if (t >= edge) {
                s = (e0 - z2) / std::sqrt(d1 * d1 + d2 * d2);
                af = a2;
            } else {
                s = std::sqrt(s1 * s1 + s2 * s2);
                af = std::clamp(T(kFacetAc[f]) * halfPi + T(kFacetAf[f]) * t, std::min(a1, a2), std::max(a1, a2));
            }
            if (s > best) {
                best = s;
                a = af;
            }
        }
        if (a >= twoPi) a -= twoPi;
        g.angle[i] = double(a);
    }
    return g;
}

// The direction whose angle is the largest at or below a (0..7), as share_to finds it.
template <typename T>
int sectorOf(T a, T diagonal) {
    int k = 7;
    while (k > 0 && directionAngle(k, diagonal) > a) --k;
    return k;
}

template <typename T>
T shareTo(T a, int d, T diagonal) {
    if (a < 0) return 0;
    const int k = sectorOf(a, diagonal);
    const T lo = directionAngle(k, diagonal), hi = k == 7 ? T(6.28318530717958647692) : directionAngle(k + 1, diagonal);
    const T f = (a - lo) / (hi - lo);
    if (d == k) return 1 - f;
    if (d == ((k + 1) & 7)) return f;
    return 0;
}

template <typename T>
Accumulation accumulateIn(const DinfGrid& g, const AccumulationOptions& opt) {
    const int rows = g.frame.rows, cols = g.frame.cols;
    const std::size_t n = g.angle.size();
    const T diagonal = T(detail::dinfDiagonal(g.frame));
    std::vector<std::uint8_t> nodata(n);
    std::vector<T> angle(n);
    for (std::size_t i = 0; i < n; ++i) {
        nodata[i] = g.angle[i] == kDinfNoData;
        angle[i] = T(g.angle[i]);
    }
    auto contributor = [&](std::size_t i, int k) -> long {
        const long m = neighbourWithData(nodata, rows, cols, i, k);
        return m >= 0 && shareTo(angle[std::size_t(m)], (k + 4) & 7, diagonal) > 0 ? m : -1;
    };
    std::vector<int> deps(n, 0);
    std::deque<std::size_t> ready;
    std::size_t withData = 0, done = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (nodata[i]) continue;
        ++withData;
        for (int k = 0; k < 8; ++k) deps[i] += contributor(i, k) >= 0;
        if (deps[i] == 0) ready.push_back(i);
    }
    std::vector<T> acc(n, T(0));
    while (!ready.empty()) {
        const std::size_t i = ready.front();
        ready.pop_front();
        ++done;
        T sum = opt.weights ? T((*opt.weights)[i]) : T(1);
        for (int k = 0; k < 8; ++k)
            if (const long m = contributor(i, k); m >= 0) sum += acc[std::size_t(m)] * shareTo(angle[std::size_t(m)], (k + 4) & 7, diagonal);
        acc[i] = sum;
        for (int k = 0; k < 8; ++k) {
            if (shareTo(angle[i], k, diagonal) <= 0) continue;
            const long next = neighbourWithData(nodata, rows, cols, i, k);
            if (next >= 0 && --deps[std::size_t(next)] == 0) ready.push_back(std::size_t(next));
        }
    }
    if (done != withData)
        for (std::size_t i = 0; i < n; ++i)
            if (!nodata[i] && deps[i] != 0) throw Error(detail::dinfCycleSentence(g, i));
    return detail::dinfResult(acc, nodata, opt);
}

template <typename T>
long firstUnfinishedIn(const DinfGrid& g) {
    const int rows = g.frame.rows, cols = g.frame.cols;
    const std::size_t n = g.angle.size();
    const T diagonal = T(detail::dinfDiagonal(g.frame));
    std::vector<std::uint8_t> nodata(n);
    for (std::size_t i = 0; i < n; ++i) nodata[i] = g.angle[i] == kDinfNoData;
    // Each cell's receivers (a share above 0, as shareTo gives it, into a cell with data), counted on them.
    auto receivers = [&](std::size_t i, auto&& visit) {
        const T a = T(g.angle[i]);
        if (a < 0) return;
        const int k = sectorOf(a, diagonal);
        const T lo = directionAngle(k, diagonal), hi = k == 7 ? T(6.28318530717958647692) : directionAngle(k + 1, diagonal);
        const T f = (a - lo) / (hi - lo);
        for (const auto& [d, share] : {std::pair{k, T(1 - f)}, std::pair{(k + 1) & 7, f}})
            if (share > 0)
                if (const long next = neighbourWithData(nodata, rows, cols, i, d); next >= 0) visit(std::size_t(next));
    };
    std::vector<int> deps(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (!nodata[i]) receivers(i, [&](std::size_t m) { ++deps[m]; });
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (!nodata[i] && deps[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
        const std::size_t i = ready.back();
        ready.pop_back();
        receivers(i, [&](std::size_t m) {
            if (--deps[m] == 0) ready.push_back(m);
        });
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!nodata[i] && deps[i] != 0) return long(i);
    return -1;
}

}  // namespace

DinfGrid dinfDirectionsReference(const io::Raster& dem, Precision precision) {
    if (precision == Precision::Float) return dinfOf<float>(dem);
    if (precision == Precision::Double) return dinfOf<double>(dem);
    throw Error("D-infinity directions run in float or double, not mixed precision");
}

Accumulation dinfAccumulateReference(const DinfGrid& g, const AccumulationOptions& opt) {
    detail::checkDinf(g, opt);
    return opt.precision == Precision::Float ? accumulateIn<float>(g, opt) : accumulateIn<double>(g, opt);
}

namespace detail {

int dinfSector(double angle, const io::RasterFrame& f, Precision p) {
    if (angle < 0) return -1;
    const double diagonal = dinfDiagonal(f);
    return p == Precision::Float ? sectorOf(float(angle), float(diagonal)) : sectorOf(angle, diagonal);
}

long dinfFirstUnfinished(const DinfGrid& g, Precision p) {
    return p == Precision::Float ? firstUnfinishedIn<float>(g) : firstUnfinishedIn<double>(g);
}

double dinfDiagonal(const io::RasterFrame& f) { return std::atan2(f.cellHeight(), f.cellWidth()); }

std::string dinfCycleSentence(const DinfGrid& g, std::size_t cell) {
    const std::string name = g.source.empty() ? "the D-infinity direction grid" : g.source;
    return name + " has a cycle of D-infinity directions through row " + std::to_string(cell / std::size_t(g.frame.cols)) +
           ", column " + std::to_string(cell % std::size_t(g.frame.cols)) + ": its flow never reaches an outlet";
}

void checkDinf(const DinfGrid& g, const AccumulationOptions& opt) {
    if (g.frame.rows <= 0 || g.frame.cols <= 0 || g.angle.size() != g.frame.size())
        throw Error("a D-infinity grid of " + std::to_string(g.angle.size()) + " angles does not match its " +
                    std::to_string(g.frame.rows) + "x" + std::to_string(g.frame.cols) + " frame");
    if (g.frame.size() >= (std::size_t(1) << 31))
        throw Error("a grid of " + std::to_string(g.frame.size()) + " cells is larger than the 2^31 cells one piece holds");
    for (std::size_t i = 0; i < g.angle.size(); ++i) {
        const double a = g.angle[i];
        if (!(a == kDinfNoData || a == kDinfNoFlow || (a >= 0 && a < 6.283185307179586)))
            throw Error("the D-infinity angle at row " + std::to_string(i / std::size_t(g.frame.cols)) + ", column " +
                        std::to_string(i % std::size_t(g.frame.cols)) + " is " + std::to_string(a) +
                        ", not in [0, 2π) nor the no-flow or NoData code");
    }
    if (opt.weights && opt.weights->size() != g.angle.size())
        throw Error("the weight grid has " + std::to_string(opt.weights->size()) + " cells, the D-infinity grid " +
                    std::to_string(g.angle.size()));
    if (opt.edgeContamination) throw Error("edge contamination is offered for D8 accumulation only, not for D-infinity");
    if (opt.precision == Precision::Mixed) throw Error("accumulation runs in float or double, not mixed precision");
}

}  // namespace detail
}  // namespace portacl::drainage

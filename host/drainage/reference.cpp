// Serial C++ reference: D8 directions cell by cell, accumulation in Kahn's topological order (cells
// nothing drains into first; a cell is summed once all its contributors are), each sum gathered in
// the same fixed order as on the device. Float sums are carried in float.
#include <deque>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

template <typename T>
DirectionGrid directionsOf(const io::Raster& dem) {
    validateDem(dem);
    const int rows = dem.rows(), cols = dem.cols();
    const double dx = dem.frame.cellWidth(), dy = dem.frame.cellHeight();
    const T inv[8] = {T(1 / dx), T(1 / std::hypot(dx, dy)), T(1 / dy), T(1 / std::hypot(dx, dy)),
                      T(1 / dx), T(1 / std::hypot(dx, dy)), T(1 / dy), T(1 / std::hypot(dx, dy))};
    DirectionGrid g;
    g.frame = dem.frame;
    g.source = dem.path;
    g.dir.assign(dem.size(), kNoData);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const std::size_t i = std::size_t(r) * cols + c;
            if (dem.isNoData(i)) continue;
            const T h = T(dem.values[i]);
            T best = 0;
            std::uint8_t d = kNoFlow;
            for (int k = 0; k < 8; ++k) {
                const int rr = r + kRowOffset[k], cc = c + kColOffset[k];
                if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
                const std::size_t n = std::size_t(rr) * cols + cc;
                if (dem.isNoData(n)) continue;
                const T slope = (h - T(dem.values[n])) * inv[k];
                if (slope > best) best = slope, d = std::uint8_t(k);
            }
            g.dir[i] = d;
        }
    return g;
}

bool touchesEdge(const DirectionGrid& g, int r, int c) {
    for (int k = 0; k < 8; ++k) {
        const int rr = r + kRowOffset[k], cc = c + kColOffset[k];
        if (rr < 0 || rr >= g.frame.rows || cc < 0 || cc >= g.frame.cols || g.dir[std::size_t(rr) * g.frame.cols + cc] == kNoData)
            return true;
    }
    return false;
}

template <typename Acc>
void accumulateIn(const DirectionGrid& g, const AccumulationOptions& opt, std::vector<Acc>& acc, std::vector<std::uint8_t>& taint) {
    const int rows = g.frame.rows, cols = g.frame.cols;
    const std::size_t n = g.dir.size();
    std::vector<std::uint8_t> deps(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const long d = detail::downstreamOf(g, i);
        if (d >= 0) ++deps[std::size_t(d)];
    }
    acc.assign(n, Acc(0));
    taint.assign(n, 0);
    std::deque<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (g.dir[i] != kNoData && deps[i] == 0) ready.push_back(i);
    std::size_t done = 0, withData = 0;
    for (auto d : g.dir) withData += d != kNoData;
    while (!ready.empty()) {
        const std::size_t i = ready.front();
        ready.pop_front();
        ++done;
        const int r = int(i / std::size_t(cols)), c = int(i % std::size_t(cols));
        Acc sum = opt.weights ? Acc((*opt.weights)[i]) : Acc(1);
        std::uint8_t t = opt.edgeContamination && touchesEdge(g, r, c);
        for (int k = 0; k < 8; ++k) {
            const int rr = r + kRowOffset[k], cc = c + kColOffset[k];
            if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
            const std::size_t m = std::size_t(rr) * cols + cc;
            if (g.dir[m] == ((k + 4) & 7)) {
                sum += acc[m];
                t |= taint[m];
            }
        }
        acc[i] = sum;
        taint[i] = t;
        const long d = detail::downstreamOf(g, i);
        if (d >= 0 && --deps[std::size_t(d)] == 0) ready.push_back(std::size_t(d));
    }
    if (done != withData)
        for (std::size_t i = 0; i < n; ++i)
            if (g.dir[i] != kNoData && deps[i] != 0) throw Error(detail::cycleSentence(g, i));
}

}  // namespace

DirectionGrid d8DirectionsReference(const io::Raster& dem, Precision precision) {
    if (precision == Precision::Float) return directionsOf<float>(dem);
    if (precision == Precision::Double) return directionsOf<double>(dem);
    throw Error("D8 directions run in float or double, not mixed precision");
}

Accumulation accumulateReference(const DirectionGrid& g, const AccumulationOptions& opt) {
    detail::checkGrid(g);
    detail::checkWeights(g, opt);
    Accumulation a;
    std::vector<std::uint8_t> taint;
    if (!opt.weights) {
        accumulateIn(g, opt, a.counts, taint);
    } else if (opt.precision == Precision::Float) {
        std::vector<float> s;
        accumulateIn(g, opt, s, taint);
        a.sums.assign(s.begin(), s.end());
    } else {
        accumulateIn(g, opt, a.sums, taint);
    }
    a.valid.resize(g.dir.size());
    for (std::size_t i = 0; i < g.dir.size(); ++i) {
        a.valid[i] = g.dir[i] != kNoData && !taint[i];
        if (g.dir[i] == kNoData) {
            if (a.weighted()) a.sums[i] = 0;
            else a.counts[i] = 0;
        }
    }
    detail::finish(a, g, opt);
    return a;
}

}  // namespace portacl::drainage

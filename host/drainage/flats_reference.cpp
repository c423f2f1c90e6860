// Serial reference of flat resolution (Barnes, Lehman and Mulla 2014): the edges of the flats, each
// flat labelled by a flood from its low edges, the breadth-first gradients away from higher and
// towards lower terrain, and the directions down the combined mask.
#include <deque>
#include <limits>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

constexpr int kFar = std::numeric_limits<int>::max();

template <typename T>
DirectionGrid resolve(const io::Raster& dem, const DirectionGrid& d8) {
    validateDem(dem);
    detail::checkGrid(d8);
    if (d8.frame.rows != dem.rows() || d8.frame.cols != dem.cols())
        throw Error("the direction grid does not have the DEM's shape");
    const int rows = dem.rows(), cols = dem.cols();
    const std::size_t n = dem.size();
    std::vector<T> z(n);
    for (std::size_t i = 0; i < n; ++i) z[i] = dem.isNoData(i) ? T(0) : T(dem.values[i]);
    auto neighbour = [&](std::size_t i, int k, std::size_t& m) {
        const int r = int(i / std::size_t(cols)) + kRowOffset[k], c = int(i % std::size_t(cols)) + kColOffset[k];
        if (r < 0 || r >= rows || c < 0 || c >= cols) return false;
        m = std::size_t(r) * cols + c;
        return d8.dir[m] != kNoData;
    };
    // A flat cell: no flow, not on the grid's edge or next to NoData (where water leaves).
    std::vector<std::uint8_t> flat(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (d8.dir[i] != kNoFlow) continue;
        bool inside = true;
        for (int k = 0; k < 8; ++k) {
            std::size_t m;
            inside = inside && neighbour(i, k, m);
        }
        flat[i] = inside;
    }
    std::vector<std::size_t> low, high;
    for (std::size_t i = 0; i < n; ++i) {
        if (d8.dir[i] == kNoData) continue;
        for (int k = 0; k < 8; ++k) {
            std::size_t m;
            if (!neighbour(i, k, m)) continue;
            if (!flat[i] && flat[m] && z[m] == z[i]) {
                low.push_back(i);
                break;
            }
            if (flat[i] && z[m] > z[i]) {
                high.push_back(i);
                break;
            }
        }
    }
    // Labels: a flood over equal heights from each low edge.
    std::vector<int> label(n, 0);
    int labels = 0;
    for (std::size_t s : low) {
        if (label[s]) continue;
        label[s] = ++labels;
        std::deque<std::size_t> q{s};
        while (!q.empty()) {
            const std::size_t i = q.front();
            q.pop_front();
            for (int k = 0; k < 8; ++k) {
                std::size_t m;
                if (neighbour(i, k, m) && !label[m] && z[m] == z[i]) label[m] = labels, q.push_back(m);
            }
        }
    }
    // Breadth-first steps from the seeds through the flat's cells without flow.
    auto steps = [&](const std::vector<std::size_t>& seeds) {
        std::vector<int> d(n, kFar);
        std::deque<std::size_t> q;
        for (std::size_t s : seeds)
            if (label[s] && d[s] == kFar) d[s] = 1, q.push_back(s);
        while (!q.empty()) {
            const std::size_t i = q.front();
            q.pop_front();
            for (int k = 0; k < 8; ++k) {
                std::size_t m;
                if (neighbour(i, k, m) && flat[m] && label[m] == label[i] && d[m] == kFar) d[m] = d[i] + 1, q.push_back(m);
            }
        }
        return d;
    };
    const std::vector<int> away = steps(high), towards = steps(low);
    std::vector<int> height(std::size_t(labels) + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (flat[i] && label[i] && away[i] != kFar) height[std::size_t(label[i])] = std::max(height[std::size_t(label[i])], away[i]);
    auto mask = [&](std::size_t i) {
        return 2 * towards[i] + (away[i] != kFar ? height[std::size_t(label[i])] - away[i] : 0);
    };
    DirectionGrid out = d8;
    for (std::size_t i = 0; i < n; ++i) {
        if (!flat[i] || !label[i] || towards[i] == kFar) continue;
        int best = mask(i), choice = kNoFlow;
        for (int k = 0; k < 8; ++k) {
            std::size_t m;
            if (!neighbour(i, k, m) || label[m] != label[i] || towards[m] == kFar) continue;
            if (mask(m) < best) best = mask(m), choice = k;
        }
        out.dir[i] = std::uint8_t(choice);
    }
    return out;
}

}  // namespace

DirectionGrid resolveFlatsReference(const io::Raster& dem, const DirectionGrid& d8, Precision precision) {
    if (precision == Precision::Float) return resolve<float>(dem, d8);
    if (precision == Precision::Double) return resolve<double>(dem, d8);
    throw Error("flat resolution runs in float or double, not mixed precision");
}

}  // namespace portacl::drainage

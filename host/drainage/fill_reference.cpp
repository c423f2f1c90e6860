// Serial reference of depression filling: Priority-Flood (Barnes, Lehman and Mulla 2014, the
// improved variant). The outlets enter a priority queue by height; the lowest cell is taken and each
// neighbour not yet reached is reached from it: a neighbour no higher than the cell is raised to the
// cell's level and goes to a plain queue (it lies in a depression, and is processed before any
// higher cell), a higher one goes to the priority queue with its own height.
#include <deque>
#include <queue>

#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

template <typename T>
io::Raster priorityFlood(const io::Raster& dem) {
    validateDem(dem);
    const int rows = dem.rows(), cols = dem.cols();
    const std::size_t n = dem.size();
    std::vector<T> z(n);
    std::vector<std::uint8_t> closed(n, 0), nodata(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        nodata[i] = dem.isNoData(i);
        z[i] = nodata[i] ? T(0) : T(dem.values[i]);
    }
    using Entry = std::pair<T, std::size_t>;  // by height, then by index: a fixed order
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
    std::deque<std::size_t> pit;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const std::size_t i = std::size_t(r) * cols + c;
            if (nodata[i]) continue;
            bool outlet = r == 0 || c == 0 || r == rows - 1 || c == cols - 1;
            for (int k = 0; k < 8 && !outlet; ++k) outlet = nodata[std::size_t(r + kRowOffset[k]) * cols + (c + kColOffset[k])];
            if (outlet) {
                closed[i] = 1;
                open.push({z[i], i});
            }
        }
    while (!open.empty() || !pit.empty()) {
        std::size_t i;
        if (!pit.empty()) {
            i = pit.front();
            pit.pop_front();
        } else {
            i = open.top().second;
            open.pop();
        }
        const int r = int(i / std::size_t(cols)), c = int(i % std::size_t(cols));
        for (int k = 0; k < 8; ++k) {
            const int rr = r + kRowOffset[k], cc = c + kColOffset[k];
            if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
            const std::size_t m = std::size_t(rr) * cols + cc;
            if (nodata[m] || closed[m]) continue;
            closed[m] = 1;
            if (z[m] <= z[i]) {
                z[m] = z[i];
                pit.push_back(m);
            } else {
                open.push({z[m], m});
            }
        }
    }
    io::Raster out = dem;
    for (std::size_t i = 0; i < n; ++i)
        if (!nodata[i]) out.values[i] = double(z[i]);
    return out;
}

}  // namespace

io::Raster fillDepressionsReference(const io::Raster& dem, Precision precision) {
    if (precision == Precision::Float) return priorityFlood<float>(dem);
    if (precision == Precision::Double) return priorityFlood<double>(dem);
    throw Error("depression filling runs in float or double, not mixed precision");
}

}  // namespace portacl::drainage

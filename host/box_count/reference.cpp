// Serial C++ reference of box counting: for every side and placement, every voxel marks its box
// (object seen, background seen), then the boxes are counted. Independent of the device's pyramid.
#include <algorithm>
#include <limits>

#include "box_count_detail.hpp"
#include "portacl/box_count.hpp"

namespace portacl::boxcount {
namespace {

std::uint64_t countPlacement(const io::BinaryVolume& v, int s, int oz, int oy, int ox, Count count) {
    const int bz = (v.nz + oz + s - 1) / s, by = (v.ny + oy + s - 1) / s, bx = (v.nx + ox + s - 1) / s;
    std::vector<std::uint8_t> seen(std::size_t(bz) * by * bx, 0);  // bit 0 object, bit 1 background
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y) {
            const std::size_t row = (std::size_t((z + oz) / s) * by + std::size_t((y + oy) / s)) * bx;
            for (int x = 0; x < v.nx; ++x) seen[row + std::size_t((x + ox) / s)] |= v.at(z, y, x) ? 1 : 2;
        }
    std::uint64_t n = 0;
    for (auto b : seen) n += count == Count::Mixed ? b == 3 : (b & 1);
    return n;
}

}  // namespace

Result boxCountReference(const io::BinaryVolume& v, const Options& opt) {
    validate(v, opt);
    Result r;
    r.sizes = opt.sizes.empty() ? defaultSizes(v) : opt.sizes;
    for (int s : r.sizes) {
        r.counts.push_back(countPlacement(v, s, 0, 0, 0, opt.count));
        if (!opt.offsetAverage) continue;
        const int h = s / 2;
        double sum = 0;
        std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
        for (int p = 0; p < 8; ++p) {
            const std::uint64_t n = countPlacement(v, s, p & 4 ? h : 0, p & 2 ? h : 0, p & 1 ? h : 0, opt.count);
            sum += double(n);
            least = std::min(least, n);
        }
        r.offsetMean.push_back(sum / 8);
        r.offsetMin.push_back(least);
    }
    detail::finish(r, opt);
    return r;
}

}  // namespace portacl::boxcount

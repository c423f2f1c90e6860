// Serial C++ reference of the lineal path function: for every displacement, every placement, every
// pixel of the Bresenham segment (stopping at the first pixel outside the phase). The image is padded
// once (wrapped when periodic, zeros otherwise) so that a segment pixel is one indexed load.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "portacl/lineal_path.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "result_layout.hpp"

namespace portacl::lineal {
namespace {

std::size_t checkedSize(std::size_t bytes, const std::string& what) {
    checkHostAllocation(bytes, what);
    return bytes;
}

int wrap(int i, int n) { return ((i % n) + n) % n; }

// The image with `pad` extra pixels on both sides of each axis (pz = 0 for a 2-D image).
struct PaddedImage {
    int pz = 0, py = 0, px = 0;
    int sz = 0, sy = 0, sx = 0;  // padded extents
    std::vector<std::uint8_t> v;

    PaddedImage(const PhaseImage& img, int padZ, int padXY, bool periodic) : pz(padZ), py(padXY), px(padXY) {
        sz = img.nz + 2 * pz;
        sy = img.ny + 2 * py;
        sx = img.nx + 2 * px;
        const std::string what = "the padded image of the serial lineal path";
        v.assign(checkedSize(std::size_t(sz) * std::size_t(sy) * std::size_t(sx), what), 0);
        for (int z = 0; z < sz; ++z)
            for (int y = 0; y < sy; ++y)
                for (int x = 0; x < sx; ++x) {
                    const int oz = z - pz, oy = y - py, ox = x - px;
                    const bool inside = oz >= 0 && oz < img.nz && oy >= 0 && oy < img.ny && ox >= 0 && ox < img.nx;
                    if (!periodic && !inside) continue;
                    v[(std::size_t(z) * sy + y) * sx + x] = img.at(wrap(oz, img.nz), wrap(oy, img.ny), wrap(ox, img.nx));
                }
    }
    long linear(const Offset& o) const { return (long(o[0]) * sy + o[1]) * sx + o[2]; }
};

// Placements (original coordinates) whose segment fits: all of them when periodic, else those with
// every p + o inside. Counts the placements fully in the phase.
std::uint64_t countOnPadded(const PhaseImage& img, const PaddedImage& pad, const std::vector<Offset>& offsets,
                            bool periodic, std::uint64_t* tried) {
    int lo[3] = {0, 0, 0}, hi[3] = {img.nz - 1, img.ny - 1, img.nx - 1};
    if (!periodic) {
        for (const auto& o : offsets)
            for (int a = 0; a < 3; ++a) {
                lo[a] = std::max(lo[a], -o[a]);
                hi[a] = std::min(hi[a], (a == 0 ? img.nz : a == 1 ? img.ny : img.nx) - 1 - o[a]);
            }
    }
    std::vector<long> lin(offsets.size());
    for (std::size_t k = 0; k < offsets.size(); ++k) lin[k] = pad.linear(offsets[k]);
    std::uint64_t count = 0, n = 0;
    for (int z = lo[0]; z <= hi[0]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y) {
            const std::uint8_t* row = pad.v.data() + (std::size_t(z + pad.pz) * pad.sy + (y + pad.py)) * pad.sx + pad.px;
            for (int x = lo[2]; x <= hi[2]; ++x) {
                ++n;
                const std::uint8_t* p = row + x;
                bool all = true;
                for (long o : lin)
                    if (!p[o]) {
                        all = false;
                        break;
                    }
                count += all ? 1 : 0;
            }
        }
    if (tried) *tried = n;
    return count;
}

}  // namespace

std::uint64_t countSegment(const PhaseImage& img, const std::vector<Offset>& offsets, bool periodic,
                           std::uint64_t* tried) {
    int reach[3] = {0, 0, 0};
    for (const auto& o : offsets)
        for (int a = 0; a < 3; ++a) reach[a] = std::max(reach[a], std::abs(o[a]));
    const PaddedImage pad(img, reach[0], std::max(reach[1], reach[2]), periodic);
    return countOnPadded(img, pad, offsets, periodic, tried);
}

Result linealPathReference(const PhaseImage& img, const Options& opt) {
    validate(img, opt);
    Result r = detail::emptyResult(img, opt);
    const PaddedImage pad(img, r.mlz(), opt.maxLength, opt.periodic);
    const int ml = opt.maxLength, mlz = r.mlz();
    for (int dz = -mlz; dz <= mlz; ++dz)
        for (int dy = -ml; dy <= ml; ++dy)
            for (int dx = -ml; dx <= ml; ++dx) {
                const auto seg = bresenhamSegment({dz, dy, dx});
                r.count[r.index(dz, dy, dx)] = countOnPadded(img, pad, seg, opt.periodic, nullptr);
            }
    return r;
}

namespace detail {

std::vector<std::uint64_t> referenceCounts(const PhaseImage& img, const Options& opt, const std::vector<Offset>& displacements) {
    const PaddedImage pad(img, img.is3d() ? opt.maxLength : 0, opt.maxLength, opt.periodic);
    std::vector<std::uint64_t> out;
    out.reserve(displacements.size());
    for (const auto& d : displacements) out.push_back(countOnPadded(img, pad, bresenhamSegment(d), opt.periodic, nullptr));
    return out;
}

}  // namespace detail

}  // namespace portacl::lineal

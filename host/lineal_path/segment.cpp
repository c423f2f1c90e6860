// Bresenham segments, input validation and the map bookkeeping shared by the device path and the
// serial reference.
#include <climits>
#include <algorithm>
#include <cstdlib>
#include <string>

#include "portacl/lineal_path.hpp"
#include "portacl/runtime/error.hpp"
#include "result_layout.hpp"

namespace portacl::lineal {

std::uint64_t PhaseImage::phaseCount() const {
    std::uint64_t n = 0;
    for (auto v : mask) n += v ? 1 : 0;
    return n;
}

std::vector<Offset> bresenhamSegment(const Offset& d) {
    int a[3], s[3];
    for (int i = 0; i < 3; ++i) {
        a[i] = std::abs(d[i]);
        s[i] = d[i] > 0 ? 1 : (d[i] < 0 ? -1 : 0);
    }
    int major = 0;  // lowest axis index on ties (a tie of major axes gives the same pixels either way)
    for (int i = 1; i < 3; ++i)
        if (a[i] > a[major]) major = i;
    const int n = a[major];
    int e[3];
    for (int i = 0; i < 3; ++i) e[i] = 2 * a[i] - n;
    std::vector<Offset> path;
    path.reserve(std::size_t(n) + 1);
    Offset p{0, 0, 0};
    path.push_back(p);
    for (int k = 1; k <= n; ++k) {
        for (int i = 0; i < 3; ++i) {
            if (i == major) continue;
            if (e[i] >= 0) {  // the tie (e == 0) steps diagonally: eq. (12) of the thesis
                p[i] += s[i];
                e[i] -= 2 * n;
            }
            e[i] += 2 * a[i];
        }
        p[major] += s[major];
        path.push_back(p);
    }
    return path;
}

void validate(const PhaseImage& img, const Options& opt) {
    // The kernels index pixels and run-table rows with 32-bit ints.
    if (img.nz > 0 && img.ny > 0 && img.nx > 0 &&
        std::uint64_t(img.nz) * std::uint64_t(img.ny) * std::uint64_t(img.nx) > std::uint64_t(INT_MAX))
        throw Error("the image of " + std::to_string(img.nz) + "x" + std::to_string(img.ny) + "x" + std::to_string(img.nx) +
                    " has more than 2^31 - 1 pixels, the most the lineal path function indexes");
    if (img.nz < 1 || img.ny < 1 || img.nx < 1 || img.mask.size() != img.size())
        throw Error("the lineal path function needs a non-empty 2-D or 3-D image");
    if (opt.maxLength < 0) throw Error("the maximum length must be zero or positive, got " + std::to_string(opt.maxLength));
    const int smallest = img.is3d() ? std::min({img.nz, img.ny, img.nx}) : std::min(img.ny, img.nx);
    if (opt.periodic ? opt.maxLength > smallest : opt.maxLength >= smallest)
        throw Error("the maximum length " + std::to_string(opt.maxLength) + " is larger than the image allows (" +
                    (opt.periodic ? "at most " + std::to_string(smallest) + " for a periodic image"
                                  : "at most " + std::to_string(smallest - 1) + " for a non-periodic image") +
                    " of smallest side " + std::to_string(smallest) + ")");
    if (img.phaseCount() == 0) throw Error("the chosen phase is absent from the image");
}

std::vector<double> Result::map() const {
    std::vector<double> m(count.size());
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = L(i);
    return m;
}

}  // namespace portacl::lineal

namespace portacl::lineal::detail {

Result emptyResult(const PhaseImage& img, const Options& opt) {
    Result r;
    r.nz = img.nz;
    r.ny = img.ny;
    r.nx = img.nx;
    r.maxLength = opt.maxLength;
    r.periodic = opt.periodic;
    const int mlz = img.is3d() ? opt.maxLength : 0;
    r.mz = 2 * mlz + 1;
    r.my = r.mx = 2 * opt.maxLength + 1;
    const std::size_t n = std::size_t(r.mz) * r.my * r.mx;
    r.count.assign(n, 0);
    r.tried.assign(n, 0);
    for (int dz = -mlz; dz <= mlz; ++dz)
        for (int dy = -opt.maxLength; dy <= opt.maxLength; ++dy)
            for (int dx = -opt.maxLength; dx <= opt.maxLength; ++dx)
                r.tried[r.index(dz, dy, dx)] =
                    opt.periodic ? img.size()
                                 : std::uint64_t(img.nz - std::abs(dz)) * std::uint64_t(img.ny - std::abs(dy)) *
                                       std::uint64_t(img.nx - std::abs(dx));
    return r;
}

}  // namespace portacl::lineal::detail

namespace portacl::lineal {

namespace {
PhaseImage shapeOf(const io::Volume& v) {
    PhaseImage p;
    p.nz = v.nz;
    p.ny = v.ny;
    p.nx = v.nx;
    p.mask.assign(v.size(), 0);
    return p;
}
std::string fmt(double d) {
    std::string s = std::to_string(d);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}
}  // namespace

PhaseImage phaseByLabel(const io::Volume& v, double label) {
    PhaseImage p = shapeOf(v);
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < v.size(); ++i) n += (p.mask[i] = v.data[i] == label ? 1 : 0);
    if (n == 0) throw Error("phase " + fmt(label) + " is absent from the image");
    return p;
}

PhaseImage phaseByThreshold(const io::Volume& v, double threshold) {
    PhaseImage p = shapeOf(v);
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < v.size(); ++i) n += (p.mask[i] = v.data[i] >= threshold ? 1 : 0);
    if (n == 0 || n == v.size())
        throw Error("the image is not two-phase under the threshold " + fmt(threshold) + ": every pixel is " +
                    (n == 0 ? "below" : "at or above") + " it");
    return p;
}

}  // namespace portacl::lineal

// What the device path and the reference share: the default sizes, the checks, the dimension's
// least-squares fit and local slopes, and the object's surface.
#include <algorithm>
#include <cmath>
#include <string>

#include "box_count_detail.hpp"
#include "portacl/box_count.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::boxcount {

std::vector<int> defaultSizes(const io::BinaryVolume& v) {
    const int extent = std::max({v.nz, v.ny, v.nx});
    std::vector<int> s{1};
    while (s.back() < extent) s.push_back(s.back() * 2);
    return s;
}

void validate(const io::BinaryVolume& v, const Options& opt) {
    io::checkBinaryVolume(v, "box counting");
    detail::checkShapeAndOptions(v.nz, v.ny, v.nx, opt);
    if (v.count() == 0) throw Error("box counting: the object is empty (no voxel is set)");
}

namespace detail {

void checkShapeAndOptions(int nz, int ny, int nx, const Options& opt) {
    io::BinaryVolume v;
    v.nz = nz, v.ny = ny, v.nx = nx;
    if (nz <= 0 || ny <= 0 || nx <= 0) throw Error("box counting: the volume has no voxels");
    if (v.size() >= (std::size_t(1) << 32))
        throw Error("box counting takes volumes of fewer than 2^32 voxels; this one has " + std::to_string(v.size()));
    const auto sizes = opt.sizes.empty() ? defaultSizes(v) : opt.sizes;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < 1) throw Error("box sides must be positive; " + std::to_string(sizes[i]) + " is not");
        if (i && sizes[i] <= sizes[i - 1]) throw Error("box sides must be given in increasing order without repeats");
    }
    if (opt.fitMin < 0 || opt.fitMax < 0 || (opt.fitMax && opt.fitMax < opt.fitMin))
        throw Error("the fit range must be two sides with 0 < min <= max");
    int inRange = 0;
    for (int s : sizes) inRange += (!opt.fitMin || s >= opt.fitMin) && (!opt.fitMax || s <= opt.fitMax);
    if (inRange < 2) throw Error("the fit range holds " + std::to_string(inRange) + " box side(s); a dimension needs at least two");
}

}  // namespace detail

Fit fitDimension(const std::vector<int>& sizes, const std::vector<double>& counts, int fitMin, int fitMax) {
    std::vector<double> xs, ys;
    Fit f;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if ((fitMin && sizes[i] < fitMin) || (fitMax && sizes[i] > fitMax) || !(counts[i] > 0)) continue;
        xs.push_back(std::log(double(sizes[i])));
        ys.push_back(std::log(counts[i]));
        if (f.points++ == 0) f.first = sizes[i];
        f.last = sizes[i];
    }
    if (xs.size() < 2)
        throw Error("only " + std::to_string(xs.size()) + " box side(s) in the fit range have a positive count; a dimension needs two");
    const double n = double(xs.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) mx += xs[i] / n, my += ys[i] / n;
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        sxx += (xs[i] - mx) * (xs[i] - mx);
        sxy += (xs[i] - mx) * (ys[i] - my);
        syy += (ys[i] - my) * (ys[i] - my);
    }
    const double slope = sxy / sxx;
    f.dimension = -slope;
    f.intercept = my - slope * mx;
    f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
    return f;
}

std::vector<double> localSlopes(const std::vector<int>& sizes, const std::vector<double>& counts) {
    std::vector<double> out;
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
        out.push_back(counts[i] > 0 && counts[i + 1] > 0
                          ? -(std::log(counts[i + 1]) - std::log(counts[i])) / (std::log(double(sizes[i + 1])) - std::log(double(sizes[i])))
                          : std::nan(""));
    return out;
}

io::BinaryVolume surfaceOf(const io::BinaryVolume& v) {
    io::BinaryVolume s = v;
    for (int z = 0; z < v.nz; ++z)
        for (int y = 0; y < v.ny; ++y)
            for (int x = 0; x < v.nx; ++x) {
                if (!v.at(z, y, x)) continue;
                const bool border = (z > 0 && !v.at(z - 1, y, x)) || (z + 1 < v.nz && !v.at(z + 1, y, x)) ||
                                    (y > 0 && !v.at(z, y - 1, x)) || (y + 1 < v.ny && !v.at(z, y + 1, x)) ||
                                    (x > 0 && !v.at(z, y, x - 1)) || (x + 1 < v.nx && !v.at(z, y, x + 1));
                s.mask[v.index(z, y, x)] = border ? 1 : 0;
            }
    return s;
}

namespace detail {

void finish(Result& r, const Options& opt) {
    std::vector<double> c(r.counts.begin(), r.counts.end());
    r.fit = fitDimension(r.sizes, c, opt.fitMin, opt.fitMax);
    r.localSlopes = localSlopes(r.sizes, c);
    if (opt.offsetAverage) r.offsetFit = fitDimension(r.sizes, r.offsetMean, opt.fitMin, opt.fitMax);
}

bool isPowerOfTwo(int s) { return s > 0 && (s & (s - 1)) == 0; }

}  // namespace detail
}  // namespace portacl::boxcount

// The serial C++ reference of every operation: one plain loop nest per operation, one channel at a
// time, with the same arithmetic as the kernels (integer plans for integer images; the chosen real
// type, summed in the same order, for float images). It is the definition the tests hold the
// OpenCL path to, and the CPU column of the benchmarks.
#include <algorithm>
#include <cmath>

#include "filter/filter_internal.hpp"
#include "filter/planes.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::filter {
namespace {

// Reads with the border rule; `outside` is the constant border's value.
struct Reader {
    const Plane& p;
    Border border;
    double outside;
    double operator()(int x, int y) const {
        const int xi = borderIndex(x, p.width, border), yi = borderIndex(y, p.height, border);
        if (xi < 0 || yi < 0) return outside;
        return p.values[static_cast<std::size_t>(yi) * p.width + xi];
    }
};

double constantFor(io::PixelType t, double v) { return t == io::PixelType::F32 ? static_cast<double>(static_cast<float>(v)) : saturate(v, t); }

template <typename Real>
double combineReal(Combine c, const std::vector<Real>& r) {
    switch (c) {
        case Combine::Single: case Combine::X: return r[0];
        case Combine::Y: return r[1];
        case Combine::L1: return std::fabs(r[0]) + std::fabs(r[1]);
        case Combine::L2: return std::sqrt(r[0] * r[0] + r[1] * r[1]);
        case Combine::Direction: return directionDegrees<Real>(r[0], r[1]);
        case Combine::Max: return *std::max_element(r.begin(), r.end());
        case Combine::MaxIndex: return 45.0 * (std::max_element(r.begin(), r.end()) - r.begin());
    }
    return 0;
}

template <typename Real>
Plane linear(const Plane& in, const Operation& op, const Options& o) {
    const io::PixelType outType = outputType(op, in.type);
    Plane out = makePlane(in.width, in.height, outType);
    const Reader rd{in, o.border, constantFor(in.type, o.borderValue)};
    const int rx = op.width / 2, ry = op.height / 2, w = in.width, h = in.height;
    const bool separable = op.combine == Combine::Single && !op.rowFactor.empty();
    if (in.type != io::PixelType::F32) {
        const IntegerPlan plan = planInteger(op, in.type);
        if (separable) {
            // Horizontal raw sums of every row the vertical pass reads (rows outside: the constant row).
            std::vector<std::int64_t> mid(static_cast<std::size_t>(w) * h);
            std::int64_t rowSum = 0;
            for (auto v : plan.row) rowSum += v;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    std::int64_t acc = 0;
                    for (int dx = -rx; dx <= rx; ++dx) acc += plan.row[dx + rx] * static_cast<std::int64_t>(rd(x + dx, y));
                    mid[static_cast<std::size_t>(y) * w + x] = acc;
                }
            const std::int64_t outsideRow = static_cast<std::int64_t>(rd.outside) * rowSum;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    std::int64_t acc = 0;
                    for (int dy = -ry; dy <= ry; ++dy) {
                        const int yi = borderIndex(y + dy, h, o.border);
                        const std::int64_t v = yi < 0 ? outsideRow : mid[static_cast<std::size_t>(yi) * w + x];
                        acc += plan.col[dy + ry] * v;
                    }
                    out.values[static_cast<std::size_t>(y) * w + x] = saturate(static_cast<double>(roundDiv(acc, plan.divisor)), outType);
                }
            return out;
        }
        std::vector<std::int64_t> r(plan.masks.size());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                for (std::size_t m = 0; m < plan.masks.size(); ++m) {
                    std::int64_t acc = 0;
                    for (int dy = -ry; dy <= ry; ++dy)
                        for (int dx = -rx; dx <= rx; ++dx)
                            acc += plan.masks[m][(dy + ry) * op.width + dx + rx] * static_cast<std::int64_t>(rd(x + dx, y + dy));
                    r[m] = acc;
                }
                double v = 0;
                switch (op.combine) {
                    case Combine::Single: v = static_cast<double>(roundDiv(r[0], plan.divisor)); break;
                    case Combine::X: v = static_cast<double>(r[0]); break;
                    case Combine::Y: v = static_cast<double>(r[1]); break;
                    case Combine::L1: v = static_cast<double>(std::llabs(r[0]) + std::llabs(r[1])); break;
                    case Combine::L2: v = static_cast<double>(roundSqrt(r[0] * r[0] + r[1] * r[1])); break;
                    case Combine::Direction: v = directionDegrees<Real>(static_cast<Real>(r[0]), static_cast<Real>(r[1])); break;
                    case Combine::Max: v = static_cast<double>(*std::max_element(r.begin(), r.end())); break;
                    case Combine::MaxIndex: v = 45.0 * (std::max_element(r.begin(), r.end()) - r.begin()); break;
                }
                out.values[static_cast<std::size_t>(y) * w + x] = saturate(v, outType);
            }
        return out;
    }
    // Float image: real weights (divided by the divisor), summed row by row, left to right.
    if (separable) {
        std::vector<Real> rowW, colW;
        for (double v : op.rowFactor) rowW.push_back(static_cast<Real>(v));
        for (double v : op.colFactor) colW.push_back(static_cast<Real>(v / op.divisor));
        std::vector<Real> mid(static_cast<std::size_t>(w) * h);
        Real rowSum = 0;
        for (Real v : rowW) rowSum += v;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                Real acc = 0;
                for (int dx = -rx; dx <= rx; ++dx) acc += rowW[dx + rx] * static_cast<Real>(rd(x + dx, y));
                mid[static_cast<std::size_t>(y) * w + x] = acc;
            }
        const Real outsideRow = static_cast<Real>(rd.outside) * rowSum;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                Real acc = 0;
                for (int dy = -ry; dy <= ry; ++dy) {
                    const int yi = borderIndex(y + dy, h, o.border);
                    acc += colW[dy + ry] * (yi < 0 ? outsideRow : mid[static_cast<std::size_t>(yi) * w + x]);
                }
                out.values[static_cast<std::size_t>(y) * w + x] = static_cast<float>(acc);
            }
        return out;
    }
    std::vector<std::vector<Real>> masks;
    for (const auto& m : op.masks) {
        masks.emplace_back();
        for (double v : m) masks.back().push_back(static_cast<Real>(v / op.divisor));
    }
    std::vector<Real> r(masks.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            for (std::size_t m = 0; m < masks.size(); ++m) {
                Real acc = 0;
                for (int dy = -ry; dy <= ry; ++dy)
                    for (int dx = -rx; dx <= rx; ++dx) acc += masks[m][(dy + ry) * op.width + dx + rx] * static_cast<Real>(rd(x + dx, y + dy));
                r[m] = acc;
            }
            out.values[static_cast<std::size_t>(y) * w + x] = static_cast<float>(combineReal<Real>(op.combine, r));
        }
    return out;
}

Plane median(const Plane& in, const Operation& op, const Options& o) {
    Plane out = makePlane(in.width, in.height, in.type);
    const Reader rd{in, o.border, constantFor(in.type, o.borderValue)};
    const int r = op.width / 2;
    std::vector<double> win(static_cast<std::size_t>(op.width) * op.width);
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            std::size_t k = 0;
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) win[k++] = rd(x + dx, y + dy);
            std::nth_element(win.begin(), win.begin() + win.size() / 2, win.end());
            out.values[static_cast<std::size_t>(y) * in.width + x] = win[win.size() / 2];
        }
    return out;
}

template <typename Real>
Plane thresholdMean(const Plane& in, const Operation& op, const Options& o) {
    Plane out = makePlane(in.width, in.height, in.type);
    const Reader rd{in, o.border, constantFor(in.type, o.borderValue)};
    const int r = op.width / 2, n = op.width * op.width;
    const std::int64_t limit = static_cast<std::int64_t>(std::floor(n * op.threshold));
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            const double f = in.values[static_cast<std::size_t>(y) * in.width + x];
            double v;
            if (in.type != io::PixelType::F32) {
                std::int64_t s = 0;
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx) s += static_cast<std::int64_t>(rd(x + dx, y + dy));
                const std::int64_t diff = s - n * static_cast<std::int64_t>(f);
                v = std::llabs(diff) <= limit ? static_cast<double>(roundDiv(s, n)) : f;
            } else {
                Real s = 0;
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx) s += static_cast<Real>(rd(x + dx, y + dy));
                const Real mean = s / static_cast<Real>(n);
                v = std::fabs(mean - static_cast<Real>(f)) <= static_cast<Real>(op.threshold) ? static_cast<float>(mean) : f;
            }
            out.values[static_cast<std::size_t>(y) * in.width + x] = v;
        }
    return out;
}

template <typename Real>
Plane rotatingMask(const Plane& in, const Operation& op, const Options& o) {
    Plane out = makePlane(in.width, in.height, in.type);
    const Reader rd{in, o.border, constantFor(in.type, o.borderValue)};
    const int r = op.width / 2, n = op.width * op.width;
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            double best = 0;
            if (in.type != io::PixelType::F32) {
                std::int64_t bestDisp = -1, bestSum = 0;
                // Windows centred at (x+cx, y+cy), raster order; the first of least dispersion wins.
                for (int cy = -r; cy <= r; ++cy)
                    for (int cx = -r; cx <= r; ++cx) {
                        std::int64_t s = 0, q = 0;
                        for (int dy = -r; dy <= r; ++dy)
                            for (int dx = -r; dx <= r; ++dx) {
                                const auto v = static_cast<std::int64_t>(rd(x + cx + dx, y + cy + dy));
                                s += v;
                                q += v * v;
                            }
                        const std::int64_t disp = n * q - s * s;  // n^2 * variance
                        if (bestDisp < 0 || disp < bestDisp) {
                            bestDisp = disp;
                            bestSum = s;
                        }
                    }
                best = static_cast<double>(roundDiv(bestSum, n));
            } else {
                Real bestVar = 0, bestMean = 0;
                bool first = true;
                for (int cy = -r; cy <= r; ++cy)
                    for (int cx = -r; cx <= r; ++cx) {
                        // Each window row summed left to right, then the rows top to bottom: the
                        // device's order (its windows share their rows' sums), so that the float
                        // sums agree bit for bit.
                        Real s = 0, q = 0;
                        for (int dy = -r; dy <= r; ++dy) {
                            Real rowS = 0, rowQ = 0;
                            for (int dx = -r; dx <= r; ++dx) {
                                const Real v = static_cast<Real>(rd(x + cx + dx, y + cy + dy));
                                rowS += v;
                                rowQ += v * v;
                            }
                            s += rowS;
                            q += rowQ;
                        }
                        const Real mean = s / static_cast<Real>(n), var = q / static_cast<Real>(n) - mean * mean;
                        if (first || var < bestVar) {
                            bestVar = var;
                            bestMean = mean;
                            first = false;
                        }
                    }
                best = static_cast<float>(bestMean);
            }
            out.values[static_cast<std::size_t>(y) * in.width + x] = best;
        }
    return out;
}

template <typename Real>
std::vector<Plane> applyOne(std::vector<Plane> planes, int& colourPlanes, const Operation& op, const Options& o) {
    if (op.kind == Operation::Kind::Grey) {
        const Plane &r = planes[0], &g = planes[1], &b = planes[2];
        Plane grey = makePlane(r.width, r.height, r.type);
        for (std::size_t i = 0; i < r.values.size(); ++i) grey.values[i] = greyValue<Real>(r.values[i], g.values[i], b.values[i], r.type, op.greyFloor);
        std::vector<Plane> out{grey};
        if (planes.size() == 4) out.push_back(planes[3]);
        colourPlanes = 1;
        return out;
    }
    for (int c = 0; c < static_cast<int>(planes.size()); ++c) {
        Plane& p = planes[c];
        if (op.kind == Operation::Kind::ToFloat) {
            p.type = io::PixelType::F32;
            continue;
        }
        if (c >= colourPlanes) continue;  // alpha passes through
        switch (op.kind) {
            case Operation::Kind::Linear: p = linear<Real>(p, op, o); break;
            case Operation::Kind::Median: p = median(p, op, o); break;
            case Operation::Kind::ThresholdMean: p = thresholdMean<Real>(p, op, o); break;
            case Operation::Kind::RotatingMask: p = rotatingMask<Real>(p, op, o); break;
            default: break;
        }
    }
    // An output type change (direction) applies to the alpha plane too, so the image stays uniform.
    for (auto& p : planes)
        if (p.type != planes[0].type) p.type = planes[0].type;
    return planes;
}

}  // namespace

io::Image filterReference(const io::Image& in, const std::vector<Operation>& ops, const Options& options) {
    validate(in, ops);
    int colourPlanes = 0;
    std::vector<Plane> planes = splitPlanes(in, colourPlanes);
    for (const auto& op : ops)
        planes = options.precision == Precision::Double ? applyOne<double>(std::move(planes), colourPlanes, op, options)
                                                        : applyOne<float>(std::move(planes), colourPlanes, op, options);
    return joinPlanes(planes);
}

}  // namespace portacl::filter

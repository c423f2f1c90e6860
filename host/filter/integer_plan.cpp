// The integer arithmetic of linear operations on 8- and 16-bit images (shared by the reference and
// the kernels): exact for integer masks, fixed point for real ones.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "filter/filter_internal.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::filter {
namespace {

bool allInteger(const std::vector<double>& v) {
    for (double x : v)
        if (x != std::floor(x) || std::fabs(x) > 1e9) return false;
    return true;
}

double absSum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += std::fabs(x);
    return s;
}

std::vector<std::int32_t> toInt(const std::vector<double>& v, double scale) {
    std::vector<std::int32_t> out;
    for (double x : v) out.push_back(static_cast<std::int32_t>(std::llround(x * scale)));
    return out;
}

// Fixed point that keeps the gain: each weight rounded to the nearest, then the rounding residue of
// the sum given back one unit at a time to the weights that lost the most (the middle ones first on
// ties), so that the integer weights sum to the rounded exact sum. A constant image then keeps its
// value exactly (a Gaussian on a 16-bit 60000 stays 60000).
std::vector<std::int32_t> toFixedPoint(const std::vector<double>& v, double scale) {
    std::vector<std::int32_t> out = toInt(v, scale);
    double exact = 0;
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        exact += v[i] * scale;
        sum += out[i];
    }
    std::int64_t residue = std::llround(exact) - sum;
    if (residue == 0 || v.empty()) return out;
    const int step = residue > 0 ? 1 : -1;
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    const double middle = 0.5 * (static_cast<double>(v.size()) - 1);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double ra = step * (v[a] * scale - out[a]), rb = step * (v[b] * scale - out[b]);
        if (ra != rb) return ra > rb;
        return std::fabs(a - middle) < std::fabs(b - middle);
    });
    for (std::size_t k = 0; residue != 0; k = (k + 1) % order.size(), residue -= step) out[order[k]] += step;
    return out;
}

// OpenCV's fixed point for its bit-exact GaussianBlur (getGaussianKernelFixedPoint_ED): the outer
// weights, from the ends inwards, each rounded to `bits` fractional bits (to the nearest, ties to
// even) with the previous one's rounding error added first; the centre takes what makes the sum
// exactly 2^bits. Scaling by a power of two is exact, so each step rounds once, as in soft float.
std::vector<std::int32_t> gaussianFixedPoint(const std::vector<double>& kernel, int bits) {
    const int n = static_cast<int>(kernel.size());
    const double one = std::ldexp(1.0, bits);
    std::vector<std::int32_t> out(n);
    double err = 0;
    std::int64_t sum = 0;
    for (int i = 0; i < n / 2; ++i) {
        const double v = kernel[i] * one + err;
        const double r = std::nearbyint(v);
        err = v - r;
        out[i] = out[n - 1 - i] = static_cast<std::int32_t>(r);
        sum += static_cast<std::int64_t>(r);
    }
    out[n / 2] = static_cast<std::int32_t>((std::int64_t(1) << bits) - 2 * sum);
    return out;
}

std::vector<std::int32_t> outerProduct(const std::vector<std::int32_t>& col, const std::vector<std::int32_t>& row) {
    std::vector<std::int32_t> m;
    for (auto c : col)
        for (auto r : row) m.push_back(c * r);
    return m;
}

// OpenCV's integer Gaussian for an image of this type, when every weight of the form the operation
// takes fits 32 bits (16-bit images' 3x3 Gaussians, one 2-D mask, of sigma below about 0.56 do not:
// the centre weight squared passes 2^31; they keep the general fixed point below, measured within
// 2 grey levels of OpenCV's).
bool gaussianPlan(const Operation& op, double maxv, bool separable, IntegerPlan& plan) {
    if (op.gaussianKernel.empty() || op.masks.size() != 1) return false;
    const int bits = maxv > 255 ? 16 : 8;
    const std::vector<std::int32_t> f = gaussianFixedPoint(op.gaussianKernel, bits);
    const std::int64_t largest = *std::max_element(f.begin(), f.end());
    if (!separable && largest * largest >= (std::int64_t(1) << 31)) return false;
    if (separable) plan.row = plan.col = f;
    else plan.masks.push_back(outerProduct(f, f));
    plan.divisor = std::int64_t(1) << (2 * bits);
    return true;
}

}  // namespace

io::PixelType outputType(const Operation& op, io::PixelType t) {
    if (op.kind == Operation::Kind::ToFloat) return io::PixelType::F32;
    if (op.combine == Combine::Direction || op.combine == Combine::MaxIndex) return io::PixelType::F32;
    return t;
}

IntegerPlan planInteger(const Operation& op, io::PixelType type) {
    IntegerPlan plan;
    const double maxv = static_cast<double>(maxSample(type));
    const double limit = std::ldexp(1.0, 62);
    const bool separable = op.combine == Combine::Single && !op.rowFactor.empty();
    bool integer = op.divisor == std::floor(op.divisor) && op.divisor != 0;
    for (const auto& m : op.masks) integer = integer && allInteger(m);
    if (separable) integer = integer && allInteger(op.rowFactor) && allInteger(op.colFactor);
    const double sign = op.divisor < 0 ? -1.0 : 1.0;  // keep the divisor positive
    if (gaussianPlan(op, maxv, separable, plan)) {
        // OpenCV's bit-exact Gaussian: its integers, so its bytes.
    } else if (integer) {
        for (const auto& m : op.masks) plan.masks.push_back(toInt(m, sign));
        if (separable) {
            plan.row = toInt(op.rowFactor, 1.0);
            plan.col = toInt(op.colFactor, sign);
        }
        plan.divisor = static_cast<std::int64_t>(std::fabs(op.divisor));
    } else {
        plan.exact = false;
        // Fixed point: as many fractional bits as keep every sum inside 62 bits and every weight
        // inside 31, up to 20 per factor for 8-bit images and 24 for 16-bit ones.
        if (separable) {
            const double rs = absSum(op.rowFactor), cs = absSum(op.colFactor) / std::fabs(op.divisor);
            // 16-bit images get 24 bits per factor (their horizontal sums then go to a long
            // intermediate, wideIntermediate below): with 20, a random 16-bit image strayed up to 0.02
            // grey level from double arithmetic; 8-bit images keep 20 and an int intermediate.
            const int bits = maxv > 255 ? 24 : 20;
            int br = bits, bc = bits;
            while (br > 0 && maxv * rs * std::ldexp(1.0, br) >= limit) --br;
            while (bc > 0 && maxv * rs * cs * std::ldexp(1.0, br + bc) >= limit) --bc;
            plan.row = toFixedPoint(op.rowFactor, std::ldexp(1.0, br));
            plan.col = toFixedPoint(op.colFactor, std::ldexp(sign / std::fabs(op.divisor), bc));
            plan.divisor = std::int64_t(1) << (br + bc);
        } else {
            double s = 0, mx = 0;
            for (const auto& m : op.masks) {
                s = std::max(s, absSum(m));
                for (double x : m) mx = std::max(mx, std::fabs(x));
            }
            s /= std::fabs(op.divisor);
            mx /= std::fabs(op.divisor);
            // 32-bit sums when that still leaves 20 fractional bits (8-bit images), else 64-bit.
            int b = 30;
            while (b > 0 && (maxv * s * std::ldexp(1.0, b) >= std::ldexp(1.0, 31) || mx * std::ldexp(1.0, b) >= std::ldexp(1.0, 31))) --b;
            if (b < 20) {
                b = 30;
                while (b > 0 && (maxv * s * std::ldexp(1.0, b) >= limit || mx * std::ldexp(1.0, b) >= std::ldexp(1.0, 31))) --b;
            }
            for (const auto& m : op.masks) plan.masks.push_back(toFixedPoint(m, std::ldexp(sign / std::fabs(op.divisor), b)));
            plan.divisor = std::int64_t(1) << b;
        }
    }
    // Refuse coefficients so large that the sums could overflow 64 bits (or a weight 32 bits).
    for (const auto& m : plan.masks) {
        double s = 0;
        for (auto w : m) s += std::fabs(static_cast<double>(w));
        if (maxv * s >= limit) throw Error("the coefficients of '" + op.spec + "' are too large for exact integer arithmetic.");
    }
    for (const auto& m : op.masks)
        for (double x : m)
            if (integer && std::fabs(x) >= std::ldexp(1.0, 31)) throw Error("a coefficient of '" + op.spec + "' does not fit 32 bits.");
    plan.narrow = true;
    for (const auto& m : plan.masks) {
        double s = 0;
        for (auto w : m) s += std::fabs(static_cast<double>(w));
        plan.narrow = plan.narrow && maxv * s < std::ldexp(1.0, 31) && (op.combine != Combine::L1 || 2 * maxv * s < std::ldexp(1.0, 31));
    }
    if (separable) {
        double rs = 0, cs = 0;
        for (auto w : plan.row) rs += std::fabs(static_cast<double>(w));
        for (auto w : plan.col) cs += std::fabs(static_cast<double>(w));
        plan.wideIntermediate = maxv * rs >= std::ldexp(1.0, 31);
        plan.narrow = maxv * rs * cs < std::ldexp(1.0, 31);
        if (maxv * rs * cs >= limit) throw Error("the coefficients of '" + op.spec + "' are too large for exact integer arithmetic.");
    }
    return plan;
}

}  // namespace portacl::filter

// What the register path of 8-bit planes takes, and its defines: the layout, the window, and for
// linear masks their rows as multiples of shared base rows, the divisor's rounding and whether the
// result needs clamping, all from bounds the integer plan proves.
#include "filter/strip.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <utility>
#include <vector>

#include "filter/filter_internal.hpp"

namespace portacl::filter {
namespace {

std::string list(const std::vector<std::int64_t>& v) {
    std::ostringstream s;
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
    return s.str();
}

// The column weights c = (c0, c1, c0) of a 3x3 gradient pair Gx = c (x) [-1 0 1], Gy its transpose
// (either sign of each), with 1 <= c0 <= 4 and 1 <= c1 <= 64 (the kernel's lanes stay exact: see
// GRADIENT_LANES in cl/filter_strip.cl); {0, 0} for any other pair.
std::pair<int, int> gradientPairWeights(const IntegerPlan& plan) {
    if (plan.masks.size() != 2 || plan.masks[0].size() != 9 || plan.masks[1].size() != 9) return {0, 0};
    const auto& gx = plan.masks[0];
    const auto& gy = plan.masks[1];
    const int c0 = std::abs(gx[2]), c1 = std::abs(gx[5]);
    if (c0 < 1 || c0 > 4 || c1 < 1 || c1 > 64) return {0, 0};
    const int c[3] = {c0, c1, c0};
    const int sx = gx[2] > 0 ? 1 : -1, sy = gy[6] > 0 ? 1 : -1;
    for (int dy = 0; dy < 3; ++dy)
        for (int k = 0; k < 3; ++k)
            if (gx[dy * 3 + k] != sx * c[dy] * (k - 1) || gy[dy * 3 + k] != sy * c[k] * (dy - 1)) return {0, 0};
    return {c0, c1};
}

// The fp16 bit pattern of a small positive integer (exact up to 2048), in both lanes of a half2.
std::uint32_t halfPair(int n) {
    int e = 0;
    while ((2 << e) <= n) ++e;
    const std::uint32_t bits = static_cast<std::uint32_t>((e + 15) << 10 | ((n << 10 >> e) & 0x3ff));
    return bits | bits << 16;
}

}  // namespace

// round(v / d), halves up, for every v in [lo, hi] as ((uint)v * multiplier + addend) >> shift, minus
// offset, in 32-bit unsigned arithmetic: one multiply-add and one shift where an unsigned division
// by a constant costs four instructions. round(v / d) = floor(u / d) with u = v + d/2 + offset d,
// offset chosen so that u >= 0; and floor(u / d) = floor(u M / 2^s) for every u in [0, U] when
// M = ceil(2^s / d) and U (M d - 2^s) < 2^s (the error u (M d - 2^s) / (d 2^s) stays below 1/d).
// shift 0: no such pair with U M < 2^32.
MultiplyShift multiplyShift(std::int64_t lo, std::int64_t hi, std::int64_t d) {
    MultiplyShift r;
    const std::int64_t half = d / 2;
    r.offset = lo + half < 0 ? (-(lo + half) + d - 1) / d : 0;
    const std::int64_t top = hi + half + r.offset * d;
    // The smallest shift that works, or a whole byte's (8, 16, 24) where one works: then the
    // quotient is a byte of the product, which the kernel's byte packing picks with no shift.
    for (int s = 1; s < 63; ++s) {
        const std::int64_t p = std::int64_t(1) << s, m = (p + d - 1) / d;
        if (top > 0 && m > ((std::int64_t(1) << 32) - 1) / top) break;  // U M no longer fits 32 bits
        if (top * (m * d - p) >= p) continue;
        if (r.shift == 0 || s % 8 == 0) {
            r.shift = s;
            r.multiplier = m;
            r.addend = (half + r.offset * d) * m;
        }
        if (s % 8 == 0) break;
    }
    return r;
}

namespace {

// The linear defines, or "" when a bound does not fit the kernel's 32-bit arithmetic.
std::string linearDefines(const Operation& op, const StripLayout& layout) {
    const IntegerPlan plan = planInteger(op, io::PixelType::U8);
    const int kw = op.width, kh = op.height;
    const int nmask = plan.row.empty() ? static_cast<int>(plan.masks.size()) : 1;  // fixed-point rank 1: factors only
    const std::int64_t two31 = std::int64_t(1) << 31, two32 = std::int64_t(1) << 32;
    // Each mask's sums lie in [lo, hi]; every partial sum within +-a.
    std::vector<std::int64_t> lo(nmask), hi(nmask), a(nmask);
    bool wide = false;
    for (int m = 0; m < nmask && plan.row.empty(); ++m) {
        for (auto w : plan.masks[m]) {
            (w < 0 ? lo[m] : hi[m]) += 255 * static_cast<std::int64_t>(w);
            a[m] += 255 * std::llabs(static_cast<std::int64_t>(w));
        }
        if (a[m] >= two31) return "";
    }
    // Mask rows as multiples of base rows (gcd out, first non-zero entry positive). A rank-1 mask's
    // base is its row factor, the multiples its column factor (the separable plan's own integers).
    std::vector<std::vector<std::int64_t>> bases;
    std::vector<std::int64_t> rowBase, rowScale;
    if (!plan.row.empty()) {
        bases.emplace_back(plan.row.begin(), plan.row.end());
        for (auto c : plan.col) {
            rowBase.push_back(c == 0 ? -1 : 0);
            rowScale.push_back(c);
        }
        std::int64_t rs = 0, cs = 0, rp = 0, rn = 0, cp = 0, cn = 0;
        for (auto v : plan.row) (v < 0 ? rn : rp) += v, rs += std::llabs(v);
        for (auto v : plan.col) (v < 0 ? cn : cp) += v, cs += std::llabs(v);
        // The separable plan's bounds replace the 2-D mask's (which has no integer entries when
        // the factors are fixed point). Whole sums past 31 bits (fixed-point Gaussians) are summed
        // in 64 bits down the columns (WIDE_SUMS), when the row sums, and two of them added, fit 31
        // bits and the divisor is a shift.
        a[0] = 255 * rs * cs;
        hi[0] = 255 * (cp * rp + cn * rn);
        lo[0] = 255 * (cp * rn + cn * rp);
        if (a[0] >= two31) {
            const std::int64_t dv = plan.divisor;
            if (kh < 5 || op.combine != Combine::Single || 2 * 255 * rs >= two31 || (dv & (dv - 1)) != 0 || a[0] + dv / 2 >= (std::int64_t(1) << 62))
                return "";
            wide = true;
        }
    }
    for (int m = 0; m < nmask && plan.row.empty(); ++m)
        for (int dy = 0; dy < kh; ++dy) {
            std::vector<std::int64_t> row(plan.masks[m].begin() + dy * kw, plan.masks[m].begin() + (dy + 1) * kw);
            std::int64_t g = 0, sign = 0;
            for (auto v : row) {
                g = std::gcd(g, std::llabs(v));
                if (sign == 0 && v != 0) sign = v < 0 ? -1 : 1;
            }
            if (g == 0) {
                rowBase.push_back(-1);
                rowScale.push_back(0);
                continue;
            }
            for (auto& v : row) v /= sign * g;
            const auto it = std::find(bases.begin(), bases.end(), row);
            rowBase.push_back(it - bases.begin());
            if (it == bases.end()) bases.push_back(row);
            rowScale.push_back(sign * g);
        }
    if (bases.empty()) bases.push_back(std::vector<std::int64_t>(kw, 0));  // an all-zero mask
    std::vector<std::int64_t> flatBases;
    for (const auto& b : bases) flatBases.insert(flatBases.end(), b.begin(), b.end());

    std::ostringstream d;
    std::int64_t outLo = 0, outHi = 0;
    int mode = 0, shift = 0;
    std::int64_t div2 = 1, bias = 0, k = 0, mul = 1;
    switch (op.combine) {
        case Combine::Single: {
            if (nmask != 1) return "";
            const std::int64_t dv = plan.divisor;
            if (dv == 1) {
                mode = 0;
            } else if ((dv & (dv - 1)) == 0) {
                mode = 1;
                while ((std::int64_t(1) << shift) < dv) ++shift;
                if (!wide && a[0] + dv / 2 >= two31) return "";
            } else if (const MultiplyShift ms = multiplyShift(lo[0], hi[0], dv); ms.shift > 0) {
                mode = 3;  // never wide: a wide plan's divisor is a power of two
                shift = ms.shift;
                mul = ms.multiplier;
                k = ms.offset;
                bias = ms.addend;
            } else {
                mode = 2;
                k = (a[0] + dv - 1) / dv;
                bias = dv + 2 * dv * k;
                div2 = 2 * dv;
                if (2 * a[0] + bias >= two32 || div2 >= two32 || k >= two31) return "";
            }
            outLo = roundDiv(lo[0], dv);
            outHi = roundDiv(hi[0], dv);
            break;
        }
        case Combine::L1:
            if (nmask != 2 || a[0] + a[1] >= two31) return "";
            outHi = a[0] + a[1];
            break;
        case Combine::L2:
            if (nmask != 2 || 4 * (a[0] * a[0] + a[1] * a[1]) >= two31) return "";
            outHi = roundSqrt(a[0] * a[0] + a[1] * a[1]);
            break;
        case Combine::X:
        case Combine::Y: {
            if (nmask != 2) return "";
            const int m = op.combine == Combine::X ? 0 : 1;
            outLo = lo[m];
            outHi = hi[m];
            break;
        }
        case Combine::Max:  // two masks, or the compass operators' eight
            if (nmask < 2) return "";
            outLo = *std::max_element(lo.begin(), lo.end());
            outHi = *std::max_element(hi.begin(), hi.end());
            break;
        default:
            return "";  // float outputs (direction, compass index)
    }
    // 1-D rows take the byte dot products where there are any, even a box (a row of ones), which
    // would otherwise slide: three dot products per output of a 9-tap row, one of them shared by
    // the four outputs of a word, take fewer instructions and registers than unpacking every byte
    // for the sliding sums (docs/engineering/measurements.md).
    const bool rowDots = layout.byteDots && kh == 1;
    // Sliding sums, for one mask whose rows are multiples of one base row (rank 1: a separable
    // plan, or a 1-D mask): a base row of ones slides along the row; rows that are all the same
    // multiple slide down the strip (the running sum may hold one row more than a window: twice
    // the bound).
    bool hslide = false, vslide = false;
    std::int64_t vscale = 0;
    if (nmask == 1 && bases.size() == 1) {
        hslide = kw >= 5 && std::all_of(bases[0].begin(), bases[0].end(), [](std::int64_t v) { return v == 1; }) && !rowDots;
        vscale = rowScale.front();
        vslide = kh >= 5 && vscale != 0 && std::all_of(rowScale.begin(), rowScale.end(), [&](std::int64_t v) { return v == vscale; }) &&
                 2 * a[0] < two31;
    }
    // Gradient pairs in 16-bit lanes (before the dot products, which they replace).
    const auto [gradC0, gradC1] = layout.gradientLanes && op.combine == Combine::L1 ? gradientPairWeights(plan) : std::pair<int, int>{0, 0};
    const bool gradientLanes = gradC0 > 0;
    // Byte dot products: a mask at least 3 wide summed row by row (up to 3x3, or not rank 1: no
    // sliding sums, no column sums) whose every row weight, base times multiple, fits a signed byte.
    const bool small = kw <= 3 && kh <= 3;
    bool dots = layout.byteDots && !gradientLanes && kw >= 3 && (small || plan.row.empty() || rowDots) && !hslide && !vslide && !wide &&
                !(nmask == 1 && bases.size() == 1 && kh >= 5);  // (the kernel's column sums)
    for (std::size_t r = 0; r < rowBase.size() && dots; ++r)
        for (int k = 0; k < kw && rowBase[r] >= 0; ++k) {
            const std::int64_t weight = rowScale[r] * bases[rowBase[r]][k];
            dots = dots && weight >= -128 && weight <= 127;
        }
    // Float sums: every partial sum (sliding ones included) below 2^21 in magnitude, which the
    // rounding fma needs (strip_combine); L2 stays in int (its squares exceed float's 24 bits).
    std::int64_t total = 0;
    for (int m = 0; m < nmask; ++m) total += a[m];
    const bool useFloat = layout.floatSums && !dots && !gradientLanes && op.combine != Combine::L2 && 2 * total < (std::int64_t(1) << 21);
    // Up to 3x3 any mask; larger ones if rank 1 or 1-D (a row or a column: one separable pass), and
    // others only with dot products. More than two masks (the compass operators) only with dot
    // products: one mask at a time, from the window chunks the kernel keeps.
    if (!dots && !small && plan.row.empty() && kw > 1 && kh > 1) return "";
    const bool manyMasks = nmask > 2;
    if (manyMasks && !dots) return "";
    // Masks whose second half is minus the first (Sobel's compass: each direction's
    // opposite): the largest of a pair's sums is the first's absolute value, half the dot products.
    bool pairedMasks = manyMasks && nmask % 2 == 0;
    for (int m = 0; m < nmask / 2 && pairedMasks; ++m) {
        const auto &mask = plan.masks[m], &opposite = plan.masks[m + nmask / 2];
        pairedMasks = std::equal(mask.begin(), mask.end(), opposite.begin(), [](std::int32_t w, std::int32_t o) { return o == -w; });
    }
    // 16-bit lanes: one base row (rank 1, or a 1-D column) taller than 3 rows whose column factor
    // has non-negative weights, the sum of bytes under 2^16 (sliding or not).
    const bool lanes = kh >= 5 && nmask == 1 && bases.size() == 1 && !wide && !useFloat &&
                       std::all_of(rowScale.begin(), rowScale.end(), [](std::int64_t v) { return v >= 0; }) &&
                       255 * std::accumulate(rowScale.begin(), rowScale.end(), std::int64_t(0)) < (1 << 16);
    // The row factor on the lanes as they are: byte weights, not sliding (the kernel's dot products
    // of two lanes with two bytes).
    const bool laneDots = lanes && layout.laneDots && !hslide && !vslide && kw >= 3 &&
                          std::all_of(bases[0].begin(), bases[0].end(), [](std::int64_t v) { return v >= 0 && v <= 255; });
    const float inv = static_cast<float>(1.0 / static_cast<double>(plan.divisor));
    char invText[64];
    std::snprintf(invText, sizeof invText, "%af", static_cast<double>(inv));
    d << " -D BYTE_DOTS=" << (dots ? 1 : 0) << " -D DP4A=" << (dots && layout.dp4a ? 1 : 0) << " -D MANY_MASKS=" << (manyMasks ? 1 : 0)
      << " -D PAIRED_MASKS=" << (pairedMasks ? 1 : 0);
    d << " -D GRADIENT_LANES=" << (gradientLanes ? 1 : 0) << " -D HALF_LANES=" << (gradientLanes && layout.halfLanes ? 1 : 0)
      << " -D GRAD_C0=" << gradC0 << " -D GRAD_C1=" << gradC1 << " -D GRAD_C0_H2=" << halfPair(std::max(gradC0, 1))
      << "u -D GRAD_C1_H2=" << halfPair(std::max(gradC1, 1)) << "u";
    d << " -D COLUMN_LANES=" << (lanes ? 1 : 0) << " -D LANE_DOTS=" << (laneDots ? 1 : 0) << " -D DP2A=" << (laneDots && layout.dp4a ? 1 : 0) << " -D WIDE_SUMS=" << (wide ? 1 : 0) << " -D FLOAT_SUMS=" << (useFloat ? 1 : 0) << " -D HSLIDE=" << (hslide ? 1 : 0) << " -D VSLIDE=" << (vslide ? 1 : 0)
      << " -D VSCALE=" << vscale << " -D DIV_INV=" << invText;
    d << " -D OP=1 -D NMASK=" << nmask << " -D COMBINE=" << static_cast<int>(op.combine) << " -D NBASE=" << bases.size()
      << " -D BASES=" << list(flatBases) << " -D ROW_BASE=" << list(rowBase) << " -D ROW_SCALE=" << list(rowScale)
      << " -D DIV_MODE=" << mode << " -D DIV_SHIFT=" << shift << " -D DIV_MUL=" << mul << "u -D DIV_2D=" << div2 << "u -D DIV_BIAS=" << bias
      << "u -D DIV_K=" << k << " -D CLAMP_LO=" << (outLo < 0 ? 1 : 0) << " -D CLAMP_HI=" << (outHi > 255 ? 1 : 0);
    return d.str();
}

}  // namespace

std::string stripDefines(const Operation& op, io::PixelType in, int imageWidth, int imageHeight, Border border, const StripLayout& layout) {
    if (in != io::PixelType::U8 || outputType(op, in) != io::PixelType::U8) return "";
    // At least one whole strip. (The kernel's border rule reflects or wraps once, which needs the
    // image wider and taller than the window's radius: the pipeline refuses windows larger than
    // the image.)
    if (imageWidth < layout.width || imageWidth <= op.width / 2 || imageHeight <= op.height / 2) return "";
    // Offsets into the plane are 32-bit unsigned.
    if (static_cast<std::uint64_t>(imageWidth) * static_cast<std::uint64_t>(imageHeight) + kStripSlack > 0xffffffffu) return "";
    std::string specific;
    if (op.kind == Operation::Kind::Linear) {
        // Up to 9 taps a side (linearDefines says which masks larger than 3x3, and which numbers of
        // masks for each combine rule, it takes).
        if (op.width > 9 || op.height > 9 || op.masks.empty()) return "";
        specific = linearDefines(op, layout);
    } else if (op.kind == Operation::Kind::Median) {
        if (op.width != op.height || (op.width != 3 && op.width != 5)) return "";
        specific = " -D OP=2";
    }
    if (specific.empty()) return "";
    std::ostringstream d;
    d << "-D SW=" << layout.width << " -D RPI=" << layout.rows << " -D GX=" << layout.groupX << " -D GY=" << layout.groupY
      << " -D KW=" << op.width << " -D KH=" << op.height << " -D RX=" << op.width / 2 << " -D RY=" << op.height / 2
      << " -D BORDER=" << static_cast<int>(border) << " -D ALIGNED=" << (imageWidth % layout.width == 0 ? 1 : 0)
      << " -D ROW_STRIDE=" << (layout.fixedWidth ? imageWidth : 0) << " -D SAT_PACK=" << (layout.satPack ? 1 : 0) << " -D CVT_PACK=" << (layout.satPack && layout.cvtPack ? 1 : 0) << specific;
    return d.str();
}

}  // namespace portacl::filter

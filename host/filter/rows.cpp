// What the row-band path of 8-bit planes takes, and its defines: the layout, the window, the mask
// or its factors, the lanes its sums fit (proved from the integer plan's bounds) and the divisor's
// rounding.
#include "filter/rows.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "filter/filter_internal.hpp"
#include "filter/strip.hpp"

namespace portacl::filter {
namespace {

template <typename T>
std::string list(const std::vector<T>& v) {
    std::ostringstream s;
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
    return s.str();
}

std::int64_t absSum(const std::vector<std::int32_t>& v) {
    std::int64_t s = 0;
    for (auto w : v) s += std::llabs(static_cast<std::int64_t>(w));
    return s;
}

bool nonNegative(const std::vector<std::int32_t>& v) {
    return std::all_of(v.begin(), v.end(), [](std::int32_t w) { return w >= 0; });
}

// The sums of 8-bit samples under weights w lie in [lo, hi].
void bounds(const std::vector<std::int32_t>& w, std::int64_t& lo, std::int64_t& hi) {
    lo = hi = 0;
    for (auto v : w) (v < 0 ? lo : hi) += 255 * static_cast<std::int64_t>(v);
}

// The linear defines, or "" when a bound does not fit the kernel's lanes; vw: the vector it takes.
std::string linearDefines(const Operation& op, const RowsLayout& layout, bool fp64, int& vw) {
    if (op.combine != Combine::Single || op.masks.size() != 1) return "";
    const IntegerPlan plan = planInteger(op, io::PixelType::U8);
    const bool rank1 = !plan.row.empty();
    const std::int64_t d = plan.divisor, two16 = 1 << 16, two31 = std::int64_t(1) << 31, two53 = std::int64_t(1) << 53;
    const bool pow2 = (d & (d - 1)) == 0;
    // Every partial sum lies within +-a (a row pass's within +-rowA, and two of them added within
    // +-2 rowA); whole sums in [lo, hi].
    std::int64_t a = 0, rowA = 0, lo = 0, hi = 0;
    bool positive = false;
    if (rank1) {
        rowA = 255 * absSum(plan.row);
        a = rowA * absSum(plan.col);
        positive = nonNegative(plan.row) && nonNegative(plan.col);
        std::int64_t rlo, rhi;
        bounds(plan.row, rlo, rhi);
        for (auto c : plan.col) {
            lo += std::min(c * rlo, c * rhi);
            hi += std::max(c * rlo, c * rhi);
        }
    } else {
        a = 255 * absSum(plan.masks[0]);
        positive = nonNegative(plan.masks[0]);
        bounds(plan.masks[0], lo, hi);
    }
    // 16-bit lanes where every weight is non-negative and every sum, with half the divisor added,
    // stays below 2^16; else 32-bit lanes; else (rank 1, fp64, a power-of-two divisor) the column
    // sums in double, exact below 2^53.
    int acc;
    if (positive && a + d / 2 < two16) acc = 0;
    else if (a + d / 2 < two31 && 2 * rowA < two31) acc = 1;
    else if (rank1 && fp64 && pow2 && d > 1 && a + d / 2 < two53 && 2 * rowA < two31) acc = positive && layout.estimate ? 3 : 2;
    else return "";
    int mode = 0, shift = 0;
    std::int64_t mul = 1, bias = 0, k = 0, div2 = 2;
    if (d == 1) {
        mode = 0;
    } else if (pow2) {
        mode = 1;
        while ((std::int64_t(1) << shift) < d) ++shift;
    } else if (const MultiplyShift ms = multiplyShift(lo, hi, d); ms.shift > 0) {
        mode = 3;
        shift = ms.shift;
        mul = ms.multiplier;
        bias = ms.addend;
        k = ms.offset;
    } else if (lo >= 0 && 2 * hi + d < (std::int64_t(1) << 32) && 2 * d < (std::int64_t(1) << 32)) {
        mode = 2;  // floor((2v + d) / 2d) of a non-negative sum: an unsigned division by a constant
        bias = d;
        div2 = 2 * d;
    } else {
        return "";
    }
    vw = acc >= 2 ? layout.doubleVector : rank1 && op.width > 1 ? layout.rowVector : layout.linearVector;
    std::ostringstream s;
    s << " -D ACC=" << acc << " -D DIV_MODE=" << mode << " -D DIV_SHIFT=" << shift << " -D DIV_MUL=" << mul << "u -D DIV_BIAS=" << bias
      << "u -D DIV_2D=" << div2 << "u -D DIV_K=" << k;
    // The estimate's margin (t within it of an integer takes the exact sums): 2^-10, eight times its
    // error bound; 0.75 sends every vector to the exact sums.
    if (acc == 3) s << " -D EST_MARGIN=" << (layout.estimate == 2 ? "0.75f" : "0x1p-10f");
    // One column weight for every row (box masks): the column sum slides down the band.
    const bool slide = rank1 && acc < 2 && op.height >= 3 && plan.col[0] != 0 &&
                       std::all_of(plan.col.begin(), plan.col.end(), [&](std::int32_t c) { return c == plan.col[0]; });
    if (rank1) s << " -D OP=2 -D CSLIDE=" << (slide ? 1 : 0) << " -D ROWW=" << list(plan.row) << " -D COLW=" << list(plan.col);
    else s << " -D OP=1 -D MASK=" << list(plan.masks[0]);
    // Rank-1 masks walk along the rows where the profile says so.
    if (rank1 && layout.walkSegment > 0) s << " -D HWALK=1 -D HSEG=" << layout.walkSegment;
    return s.str();
}

}  // namespace

bool RowsLayout::valid() const {
    for (int v : {medianVector, linearVector, rowVector, doubleVector})
        if ((v != 16 && v != 32 && v != 64) || (v != 16 && !extendedVectors) || segment < v || segment % v != 0 || walkSegment < 0 ||
            (walkSegment > 0 && (walkSegment < v || walkSegment % v != 0)))
            return false;
    return band >= 1 && median3Band >= 1 && estimate >= 0 && estimate <= 2;
}

int RowsLayout::bandFor(const Operation& op, int imageWidth, int imageHeight, unsigned computeUnits) const {
    if (op.kind == Operation::Kind::Median && op.width == 3) return median3Band;
    if (windowBytes <= 0 || imageWidth <= 0) return band;
    const int spanned = windowBytes / imageWidth - (op.height - 1);
    const int parallel = imageHeight / static_cast<int>(4 * std::max(1u, computeUnits));
    return std::max(band, std::min(spanned, parallel));
}

int RowsLayout::walkBandFor(int imageHeight, unsigned computeUnits) const {
    return std::max(band, imageHeight / static_cast<int>(4 * std::max(1u, computeUnits)));
}

std::string rowsDefines(const Operation& op, io::PixelType in, int imageWidth, int imageHeight, Border border, const RowsLayout& layout,
                        bool fp64) {
    if (in != io::PixelType::U8 || outputType(op, in) != io::PixelType::U8) return "";
    if (!layout.valid() || imageWidth <= op.width / 2 || imageHeight <= op.height / 2) return "";
    std::string specific;
    int vw = 0;
    if (op.kind == Operation::Kind::Linear) {
        if (op.width > 9 || op.height > 9 || op.masks.empty()) return "";
        specific = linearDefines(op, layout, fp64, vw);
    } else if (op.kind == Operation::Kind::Median) {
        if (op.width != op.height || (op.width != 3 && op.width != 5)) return "";
        specific = " -D OP=3";
        vw = layout.medianVector;
    }
    // (The kernel takes images at least one vector wide.)
    if (specific.empty() || imageWidth < vw) return "";
    std::ostringstream d;
    d << "-D VW=" << vw << " -D KW=" << op.width << " -D KH=" << op.height << " -D RX=" << op.width / 2
      << " -D RY=" << op.height / 2 << " -D BORDER=" << static_cast<int>(border) << " -D ROWS_CLANG_VECTORS=" << (layout.extendedVectors ? 1 : 0)
      << specific;
    return d.str();
}

}  // namespace portacl::filter

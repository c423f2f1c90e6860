// What the serial reference and the OpenCL path share, so that they run the same arithmetic:
// the integer plan of a linear operation on an integer image (exact integer masks, or real masks in
// fixed point), and the rounding rules.
#pragma once

#include <cstdint>
#include <vector>

#include "portacl/filter.hpp"

namespace portacl::filter {

constexpr int kMaxMask = 31;    // largest mask side
constexpr int kMaxMedian = 15;  // largest median window side
constexpr int kSeparableMinTaps = 25;  // rank-1 masks of at least this many taps run as two 1-D passes

// Splits an odd w x h mask into col (h) x row (w) when it has rank 1; integer masks get integer
// factors. False when it is not separable. (Exported, PORTACL_API, for the tests.)
PORTACL_API bool separate(const std::vector<double>& m, int w, int h, std::vector<double>& col, std::vector<double>& row);

// A linear operation on an integer image, in integers: out = round(sum(w * p) / divisor), rounding
// half up, saturated. Integer masks keep their coefficients and divisor (exact); other masks are
// quantised to fixed point (divisor 2^bits). Separable plans hold the row and column factors; the
// horizontal pass keeps the raw sums (no rounding) in `wideIntermediate ? long : int`.
struct IntegerPlan {
    std::vector<std::vector<std::int32_t>> masks;  // 2-D masks (every combine rule)
    std::vector<std::int32_t> row, col;            // separable factors (Single only), else empty
    std::int64_t divisor = 1;                      // > 0
    bool wideIntermediate = false;
    bool narrow = false;  // every final sum fits 32 bits (the kernels then accumulate in int)
    bool narrowDivision = false;  // 2 * |sum| + divisor fits 32 bits (the rounding divides in int)
    bool exact = true;  // false when the mask was quantised to fixed point
};
// (Exported, PORTACL_API, for the tests.)
PORTACL_API IntegerPlan planInteger(const Operation& op, io::PixelType type);

// Largest sample value of an integer type (255 or 65535).
inline std::int64_t maxSample(io::PixelType t) { return t == io::PixelType::U16 ? 65535 : 255; }

// round(acc / d) with halves rounded up, for d > 0 (floor division: correct for negative acc).
inline std::int64_t roundDiv(std::int64_t acc, std::int64_t d) {
    const std::int64_t n = 2 * acc + d, q = n / (2 * d);
    return (n % (2 * d) != 0 && n < 0) ? q - 1 : q;
}

// round(sqrt(n)) for n >= 0, exactly: r with (2r-1)^2 <= 4n < (2r+1)^2.
inline std::int64_t roundSqrt(std::int64_t n);

// The output type of an operation on an image of type t.
io::PixelType outputType(const Operation& op, io::PixelType t);

}  // namespace portacl::filter

#include <cmath>
inline std::int64_t portacl::filter::roundSqrt(std::int64_t n) {
    std::int64_t r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    while (r > 0 && (2 * r - 1) * (2 * r - 1) > 4 * n) --r;
    while ((2 * r + 1) * (2 * r + 1) <= 4 * n) ++r;
    return r;
}

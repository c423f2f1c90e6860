// The register path of 8-bit planes (cl/filter_strip.cl): which operations it takes, and the
// defines that specialise the kernel to one of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "portacl/filter.hpp"

namespace portacl::filter {

// One work-item's strip: `width` outputs side by side (4, 8 or 16) on each of `rows` rows; a
// work-group of groupX x groupY work-items.
// floatSums: linear masks sum in float where every value provably stays an exact integer (the
// same results; the adds run on the float units).
// byteDots: integer masks summed row by row (up to 3x3; up to 9x9 when not rank 1) whose weights
// fit a signed byte sum each mask row as dot products of four bytes; dp4a: by NVIDIA's dp4a
// instruction (compute capability 6.1 on), else spelt out (the same sums).
// satPack: outputs are saturated to bytes as the store packs them (the same bytes); cvtPack: by
// NVIDIA's cvt.pack instruction (compute capability 7.2 on), else spelt out.
// fixedWidth: the image width is compiled into the kernel (one program per width), which makes
// every row's address an immediate offset of one pointer.
// gradientLanes: 3x3 gradient pairs combined as |Gx| + |Gy| (Sobel, Scharr, Prewitt) take two
// columns to a register in 16-bit lanes; halfLanes: the lanes are fp16 numbers on NVIDIA's fp16x2
// units (compute capability 8.0 on), else integers spelt out lane by lane (the same bytes).
// laneDots: rank-1 masks on 16-bit column lanes whose row factor has weights 0 to 255 take it as
// dot products of two lanes with two byte weights (NVIDIA's dp2a where dp4a is set, else spelt out).
struct StripLayout {
    int width = 16, rows = 4, groupX = 32, groupY = 2;
    bool floatSums = false, byteDots = false, dp4a = false, satPack = false, cvtPack = false, fixedWidth = false;
    bool gradientLanes = false, halfLanes = false, laneDots = false;
};

// Bytes a plane's buffer holds after its last sample, for the kernel's side words: the last strip of
// a row reads the 4 bytes after it (and replaces them by the border rule).
constexpr std::size_t kStripSlack = 16;

// round(v / d), halves up, as ((uint)v * multiplier + addend) >> shift, minus offset, in 32-bit
// unsigned arithmetic for every v in [lo, hi]; shift 0 when no multiplier fits (strip.cpp says why
// it is exact).
struct MultiplyShift {
    int shift = 0;
    std::int64_t multiplier = 0, addend = 0, offset = 0;
};
// (Exported, PORTACL_API, for the tests, as stripDefines below.)
PORTACL_API MultiplyShift multiplyShift(std::int64_t lo, std::int64_t hi, std::int64_t d);

// The kernel's defines for `op` on an imageWidth x imageHeight plane of type `in` under `border`,
// or "" when the strip path does not take it: other depths; linear masks larger than 3x3 that are
// neither rank 1 nor 1-D (unless byte dot products take them: up to 9x9, weights in a signed
// byte), or masks over 9 taps a side; float outputs, more than two masks (but the compass
// operators' largest response, where there are byte dot products), or sums that could leave 32
// bits (64 for the column sums of rank-1 masks); medians other than 3x3 and 5x5; images narrower than a strip (or, were they not refused before, not
// wider and taller than the window's radius).
PORTACL_API std::string stripDefines(const Operation& op, io::PixelType in, int imageWidth, int imageHeight, Border border, const StripLayout& layout);

}  // namespace portacl::filter

// Images, masks and comparisons the filter suites share (test_filter_rows.cpp, test_filter_strip.cpp, ...).
#pragma once

#include <cstddef>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "portacl/io/image.hpp"

namespace portacl::test {

// Noise over the whole 8-bit range with flat runs, so that medians and sums see ties and extremes.
inline io::Image noiseImage(int w, int h, int channels, unsigned seed) {
    io::Image img = io::makeImage(w, h, channels, io::PixelType::U8);
    std::mt19937 rng(seed);
    for (auto& v : img.data) {
        const unsigned r = rng() % 10;
        v = static_cast<unsigned char>(r == 0 ? 0 : r == 1 ? 255 : r < 4 ? 128 : rng() % 256);
    }
    return img;
}

// The `conv` operation of the rank-1 mask col (x) row (rows top to bottom), with `suffix` (":sum").
inline std::string rank1ConvSpec(const std::vector<double>& col, const std::vector<double>& row, const std::string& suffix = "") {
    std::ostringstream s;
    s.precision(12);
    s << "conv:";
    for (std::size_t y = 0; y < col.size(); ++y)
        for (std::size_t x = 0; x < row.size(); ++x) s << col[y] * row[x] << (x + 1 < row.size() ? "," : y + 1 < col.size() ? ";" : "");
    return s.str() + suffix;
}

// A 9x9 rank-1 `conv` mask of decimal weights, non-negative and summing to 1: the fixed-point plan
// whose column sums pass 32 bits (the kernels' 64-bit, double and float-estimate paths). The
// Gaussians take OpenCV's integers, whose sums fit 32 bits, so they no longer reach those paths.
// (The centre weight, the pivot of the separation, keeps the row factor's sum 1 / 0.36 < 4, so
// that the row sums fit 31 bits with 20 fractional bits.)
inline std::string decimalRank1Mask() {
    const std::vector<double> w = {0.02, 0.05, 0.10, 0.15, 0.36, 0.15, 0.10, 0.05, 0.02};
    return rank1ConvSpec(w, w);
}

// How many bytes of `got` differ from `want` (the same size), and "first differing sample I (x, y)"
// for the first of them.
struct ByteDifference {
    std::size_t count = 0;
    std::string first;
};
inline ByteDifference compareBytes(const io::Image& got, const io::Image& want) {
    ByteDifference d;
    std::size_t first = 0;
    for (std::size_t i = 0; i < got.data.size(); ++i)
        if (got.data[i] != want.data[i] && d.count++ == 0) first = i;
    std::ostringstream s;
    s << "first differing sample " << first << " (" << (first / got.channels) % got.width << ", " << (first / got.channels) / got.width << ")";
    d.first = s.str();
    return d;
}

}  // namespace portacl::test

// The box copies of the distributed k-Wave transposes (kwave/box_copy.hpp) on the device against
// the serial reference: one that transposes (the tiled kernel), one that does not (point by point),
// each with edges that are not multiples of the tile and a third dimension, and an empty box. The
// whole destination is compared, so that a write outside the box fails too. Used by
// test_kwave_box_copy.cpp and the conformance suite.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <vector>

#include "kwave/box_copy.hpp"

namespace portacl::test {

inline kwave::BoxCopy makeBox(std::size_t e0, std::size_t e1, std::size_t e2, std::size_t srcOffset, std::size_t s0, std::size_t s1,
                              std::size_t s2, std::size_t dstOffset, std::size_t d0, std::size_t d1, std::size_t d2) {
    kwave::BoxCopy b;
    b.extent[0] = e0, b.extent[1] = e1, b.extent[2] = e2;
    b.srcOffset = srcOffset, b.srcStride[0] = s0, b.srcStride[1] = s1, b.srcStride[2] = s2;
    b.dstOffset = dstOffset, b.dstStride[0] = d0, b.dstStride[1] = d1, b.dstStride[2] = d2;
    return b;
}

template <typename T>
void checkBoxCopies(Context& ctx) {
    using C = std::complex<T>;
    const Precision prec = sizeof(T) == 8 ? Precision::Double : Precision::Float;
    // The source: 2 planes of 21 rows of 23 values.
    std::vector<C> src(2 * 21 * 23);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& v : src) v = C(static_cast<T>(u(rng)), static_cast<T>(u(rng)));
    const cl::Buffer srcBuffer = ctx.upload(src, "box copy source");
    const struct {
        const char* what;
        kwave::BoxCopy box;
    } cases[] = {
        // Rows 0-19 by columns 1-22 of both planes into [plane][column][row] at 5: a transpose.
        {"transposing box", makeBox(20, 22, 2, 1, 23, 1, 483, 5, 1, 20, 440)},
        // 17 values of every other row, 5 rows, both planes, into rows of 40 at 3: no transpose.
        {"plain box", makeBox(17, 5, 2, 2, 1, 46, 483, 3, 1, 40, 300)},
        {"empty box", makeBox(0, 5, 2, 0, 1, 23, 483, 0, 1, 5, 25)},
    };
    for (const auto& c : cases) {
        const std::size_t n = 900;
        std::vector<C> want(n, C(T(-7), T(7)));
        const cl::Buffer dst = ctx.upload(want, "box copy destination");
        kwave::copyBox(ctx, srcBuffer, dst, c.box, prec);
        kwave::copyBoxReference(src.data(), want.data(), c.box);
        const std::vector<C> got = ctx.download<C>(dst, n, "box copy destination");
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) wrong += got[i] != want[i];
        EXPECT_EQ(wrong, 0u) << c.what << " (" << (prec == Precision::Double ? "double" : "float") << "): " << wrong
                             << " of " << n << " destination values differ from the serial reference";
    }
    // A box reaching past the source is refused before anything runs.
    const cl::Buffer dst = ctx.buffer(900 * sizeof(C), "box copy destination");
    EXPECT_THROW(kwave::copyBox(ctx, srcBuffer, dst, makeBox(23, 22, 2, 1, 1, 23, 483, 0, 1, 23, 506), prec), Error);
}

}  // namespace portacl::test

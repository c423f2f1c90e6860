// The lineal path map's picture: an RGB image larger than the map (axes, colour bar), L(0) in the
// top colour of viridis, the smallest positive value in its bottom colour, L = 0 in grey.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "portacl/io/image.hpp"
#include "portacl/lineal_path/output.hpp"

using namespace portacl;

namespace {
std::size_t countColour(const io::Image& img, int r, int g, int b) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < img.pixelCount(); ++i) {
        const unsigned char* p = img.data.data() + i * 3;
        n += p[0] == r && p[1] == g && p[2] == b;
    }
    return n;
}
}  // namespace

TEST(LinealPathPicture, LogScaleAxesAndColourBar) {
    lineal::Result res;
    res.nz = 1, res.ny = res.nx = 16, res.maxLength = 2;
    res.mz = 1, res.my = res.mx = 5;
    res.count.assign(25, 10);
    res.tried.assign(25, 1000);                  // 1e-2 everywhere ...
    res.count[res.index(0, 0, 0)] = 1000;         // ... L(0) = 1
    res.count[res.index(0, 2, 2)] = 0;            // and one L = 0
    res.count[res.index(0, -1, 1)] = 100;         // and one 1e-1
    const std::string path = testing::TempDir() + "lineal_path_picture.png";
    std::remove(path.c_str());
    lineal::writePng(path, res);
    const io::Image img = io::readImage(path);
    ASSERT_EQ(img.channels, 3);
    EXPECT_GT(img.width, 5 * 16 + 100);  // axes and colour bar around a map of 5 x 16 pixels
    EXPECT_GT(img.height, 5 * 16 + 60);
    const std::size_t cell = 16 * 16;     // 520 / 5 pixels per cell, at most 16
    EXPECT_GE(countColour(img, 253, 231, 37), cell);        // viridis(1): L(0)
    EXPECT_GE(countColour(img, 68, 1, 84), 22 * cell);      // viridis(0): the 1e-2 cells (scale 1e-2 .. 1)
    EXPECT_GE(countColour(img, 200, 200, 200), cell);       // L = 0
    EXPECT_GE(countColour(img, 38, 130, 142), cell);        // viridis(1/2): 1e-1, half way up two decades
}

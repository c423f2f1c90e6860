// The register path of 8-bit planes (cl/filter_strip.cl) held to the serial reference, exactly:
// every operation it takes, every border mode, several strip layouts (16, 8 and 4 outputs wide; an
// odd number of rows per work-item, so the paired medians end on a single row), images whose sides
// are not multiples of a strip (and are), images narrower than a strip, 3-row images and a 1-row
// image (a 3x1 mask), and colour planes. The layouts come in through Options::tuning, so the test
// needs no GPU and no profile file.
#include <gtest/gtest.h>

#include <random>

#include "filter/filter_internal.hpp"
#include "filter/strip.hpp"
#include "portacl/filter.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

struct Layout {
    int width, rows, groupX, groupY, medianRows;
};

// Noise over the whole 8-bit range with flat runs, so that medians and sums see ties and extremes.
io::Image image(int w, int h, int channels, unsigned seed) {
    io::Image img = io::makeImage(w, h, channels, io::PixelType::U8);
    std::mt19937 rng(seed);
    for (auto& v : img.data) {
        const unsigned r = rng() % 10;
        v = static_cast<unsigned char>(r == 0 ? 0 : r == 1 ? 255 : r < 4 ? 128 : rng() % 256);
    }
    return img;
}

Options stripOptions(const Layout& l, Border b) {
    Options o;
    o.border = b;
    o.borderValue = 200;
    o.tuning = {{"strip", 1},           {"strip_width", l.width},       {"strip_rows", l.rows},
                {"strip_group_x", l.groupX}, {"strip_group_y", l.groupY}, {"median_strip_rows", l.medianRows}};
    return o;
}

void expectStripEqualsReference(const io::Image& img, const std::string& spec, const Layout& l, Border b) {
    const std::vector<Operation> ops{parseOperation(spec)};
    const StripLayout sl{l.width, ops[0].kind == Operation::Kind::Median ? l.medianRows : l.rows, l.groupX, l.groupY};
    ASSERT_FALSE(stripDefines(ops[0], io::PixelType::U8, img.width, sl).empty()) << spec << " does not take the strip path";
    const Options o = stripOptions(l, b);
    Pipeline p(test::context(), ops, o);
    const io::Image got = p.run(img), want = filterReference(img, ops, o);
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < got.data.size(); ++i)
        if (got.data[i] != want.data[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << spec << " border " << borderName(b) << " image " << img.width << "x" << img.height << "x" << img.channels
                       << " strips " << l.width << "x" << sl.rows << ": first differing sample " << first << " ("
                       << (first / img.channels) % img.width << ", " << (first / img.channels) / img.width << ")";
}

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap};

const std::vector<std::string> kStripOperations = {
    "box:3", "binomial:3", "gaussian:3", "conv:1,2,0;-1,3,1;2,0,1", "conv:1,2,1;2,4,2;1,2,1:sum",
    "conv:1,-2,3;-4,9,-4;3,-2,1:sum",                           // divisor 5, sums of both signs
    "conv:0.1,0.7,-0.2;0.3,0.2,0.1;0.05,0.5,0.25",              // fixed point
    "conv:1,2,1", "conv:1;-2;4:sum", "conv:0,0,0;0,0,0;0,0,0",  // 3x1, 1x3, all zero
    "roberts", "prewitt:l2", "sobel", "sobel:l2", "sobel:x", "sobel:y", "scharr", "scharr:l2", "laplace:4", "laplace:8",
    "median:3", "median:5"};

}  // namespace

TEST(FilterStrip, EveryOperationEveryBorderEqualsReference) {
    const Layout l{16, 4, 8, 2, 2};
    const io::Image img = image(45, 23, 1, 1);  // 3 strips, the last 13 wide; 6 rows of items, the last 3 high
    for (const auto& s : kStripOperations)
        for (Border b : kBorders) expectStripEqualsReference(img, s, l, b);
}

TEST(FilterStrip, OtherLayoutsEqualReference) {
    // 8 wide with 3 rows per item (the medians end on a single row), 4 wide with 1 row.
    for (const Layout& l : {Layout{8, 3, 4, 4, 3}, Layout{4, 1, 16, 1, 1}}) {
        const io::Image img = image(37, 26, 1, 2);
        for (const std::string s : {"box:3", "sobel", "laplace:8", "conv:1,2,1", "median:3", "median:5"})
            for (Border b : {Border::Constant, Border::Reflect101, Border::Wrap}) expectStripEqualsReference(img, s, l, b);
    }
}

TEST(FilterStrip, WholeStripsAndInteriorItemsEqualReference) {
    // Widths that are multiples of the strip (whole-vector loads and stores) and large enough for
    // work-items whose rows all lie inside the image.
    const Layout l{16, 4, 8, 2, 2};
    const io::Image img = image(96, 40, 1, 3);
    for (const std::string s : {"box:3", "gaussian:3", "sobel", "scharr:l2", "laplace:4", "median:3", "median:5"})
        for (Border b : {Border::Replicate, Border::Reflect}) expectStripEqualsReference(img, s, l, b);
}

TEST(FilterStrip, SmallImagesEqualReference) {
    const Layout l{16, 4, 8, 2, 2};
    for (Border b : kBorders) {
        expectStripEqualsReference(image(5, 3, 1, 4), "box:3", l, b);       // narrower than a strip, 3 rows
        expectStripEqualsReference(image(7, 3, 1, 5), "sobel:l2", l, b);
        expectStripEqualsReference(image(6, 5, 1, 6), "median:3", l, b);
        expectStripEqualsReference(image(5, 5, 1, 7), "median:5", l, b);    // the window as large as the image
        expectStripEqualsReference(image(23, 1, 1, 8), "conv:1,2,1:sum", l, b);  // one row
        expectStripEqualsReference(image(1, 9, 1, 9), "conv:1;2;1:sum", l, b);   // one column
    }
}

TEST(FilterStrip, ColourPlanesEqualReference) {
    const Layout l{16, 4, 8, 2, 2};
    const io::Image img = image(35, 21, 4, 10);  // RGBA: three planes filtered, alpha passed through
    for (const std::string s : {"box:3", "sobel", "median:5"}) expectStripEqualsReference(img, s, l, Border::Reflect101);
}

TEST(FilterStrip, PathTakesOnlyWhatItCovers) {
    const StripLayout l;
    const auto takes = [&](const std::string& s, io::PixelType t) { return !stripDefines(parseOperation(s), t, 64, l).empty(); };
    EXPECT_TRUE(takes("box:3", io::PixelType::U8));
    EXPECT_TRUE(takes("median:5", io::PixelType::U8));
    EXPECT_FALSE(takes("box:3", io::PixelType::U16));
    EXPECT_FALSE(takes("box:5", io::PixelType::U8));      // separable passes
    EXPECT_FALSE(takes("median:7", io::PixelType::U8));
    EXPECT_FALSE(takes("sobel:dir", io::PixelType::U8));  // float output
    EXPECT_FALSE(takes("compass:kirsch", io::PixelType::U8));  // eight masks
    EXPECT_FALSE(takes("threshold:3:20", io::PixelType::U8));
}

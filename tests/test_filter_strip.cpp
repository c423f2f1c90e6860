// The register path of 8-bit planes (cl/filter_strip.cl) held to the serial reference, exactly:
// every operation it takes, every border mode, several strip layouts (16, 8 and 4 outputs wide; an
// odd number of rows per work-item, so the paired medians end on a single row), images whose sides
// are not multiples of a strip (and are), images one strip wide, windows as tall as the image, a
// 1-row image (a 3x1 mask), and colour planes; and images narrower than a strip, which the tile
// kernels take. The layouts come in through Options::tuning, so the test
// needs no GPU and no profile file.
#include <gtest/gtest.h>

#include <algorithm>

#include "filter/filter_internal.hpp"
#include "filter/strip.hpp"
#include "portacl/filter.hpp"
#include "support/filter_images.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

struct Layout {
    int width, rows, groupX, groupY, medianRows;
    bool floatSums = false, byteDots = false, satPack = false, fixedWidth = false, gradientLanes = false, laneDots = false;
};

Options stripOptions(const Layout& l, Border b) {
    Options o;
    o.border = b;
    o.borderValue = 200;
    o.tuning = {{"strip", 1},
                {"cpu_rows", 0},  // (the CPU profiles' row-band path would take most of these first)
                {"strip_group_x", l.groupX},
                {"strip_group_y", l.groupY},
                {"strip_float", l.floatSums ? 1 : 0},
                {"strip_dot", l.byteDots ? 1 : 0},
                {"strip_pack", l.satPack ? 1 : 0},
                {"strip_fixed_width", l.fixedWidth ? 1 : 0},
                {"strip_gradient_lanes", l.gradientLanes ? 1 : 0},
                {"strip_lane_dots", l.laneDots ? 1 : 0}};
    for (const std::string kind : {"strip", "gradient_strip", "row_strip", "separable_strip", "median3_strip", "median5_strip"}) {
        o.tuning[kind + "_width"] = l.width;
        o.tuning[kind + "_rows"] = kind.rfind("median", 0) == 0 ? l.medianRows : l.rows;
    }
    return o;
}

// strip: whether the strip path must take the image (else it must leave it to the tile kernels).
void expectStripEqualsReference(const io::Image& img, const std::string& spec, const Layout& l, Border b, bool strip = true) {
    const std::vector<Operation> ops{parseOperation(spec)};
    StripLayout sl{l.width, ops[0].kind == Operation::Kind::Median ? l.medianRows : l.rows, l.groupX, l.groupY};
    sl.floatSums = l.floatSums;
    sl.byteDots = l.byteDots;
    sl.satPack = l.satPack;
    sl.fixedWidth = l.fixedWidth;
    sl.gradientLanes = l.gradientLanes;
    sl.laneDots = l.laneDots;
    const std::string defines = stripDefines(ops[0], io::PixelType::U8, img.width, img.height, b, sl);
    ASSERT_EQ(defines.empty(), !strip) << spec << (strip ? " does not take" : " takes") << " the strip path on " << img.width << "x" << img.height;
    if (l.floatSums) ASSERT_NE(defines.find("FLOAT_SUMS=1"), std::string::npos) << spec << " does not sum in float";
    const Options o = stripOptions(l, b);
    Pipeline p(test::context(), ops, o);
    const io::Image got = p.run(img), want = filterReference(img, ops, o);
    const test::ByteDifference diff = test::compareBytes(got, want);
    EXPECT_EQ(diff.count, 0u) << spec << " border " << borderName(b) << " image " << img.width << "x" << img.height << "x" << img.channels
                       << " strips " << l.width << "x" << sl.rows << ": " << diff.first;
}

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap};

// One of each code path: the divisor's four roundings (none, shift, multiply-shift, unsigned division), clamping or
// not, one to three base rows, zero rows, 3x1 and 1x3 masks, fixed point, each combine rule, integer
// rank-1 masks (one base row: the row factor).
const std::vector<std::string> kStripOperations = {
    "box:3", "binomial:3", "gaussian:3", "conv:1,2,0;-1,3,1;2,0,1",
    "conv:1,-2,3;-4,9,-4;3,-2,1:sum",                           // divisor 5, sums of both signs
    "conv:1000,2000,1000;2000,4001,2000;1000,2000,1000:sum",    // divisor 16001: too wide to multiply-shift
    "conv:0.1,0.7,-0.2;0.3,0.2,0.1;0.05,0.5,0.25",              // fixed point
    "conv:1,2,1:sum", "conv:1;-2;4:sum", "conv:0,0,0;0,0,0;0,0,0",  // 3x1, 1x3, all zero
    "roberts", "sobel", "sobel:y", "scharr:l2", "laplace:8", "median:3", "median:5",
    "box:9", "binomial:5", "conv:1,2,3,2,1;-2,-4,-6,-4,-2;0,0,0,0,0;2,4,6,4,2;-1,-2,-3,-2,-1",  // rank 1, a zero row
    "gaussian:9:2.0",                                                                    // OpenCV's integers: 32-bit sums
    test::decimalRank1Mask()};                                                           // fixed-point factors: 64-bit column sums

// Compiling each program takes PoCL a second or more: kNarrow is platforms/pocl.profile's layout
// (test_filter builds the same programs), the others run a few operations each.
const Layout kNarrow{8, 4, 8, 2, 2}, kMiddle{4, 3, 4, 4, 3}, kWide{16, 4, 8, 2, 2};

}  // namespace

// Every operation under the default rule (reflect101) and the constant one (the rule with code of its
// own after the load: rows and columns outside replaced by the value); every rule under one operation
// of each load path and radius. The rules act where rows and side columns are loaded, which these
// share with the operations left out (each pair of operation and rule is a program of its own).
const std::vector<std::string> kEveryBorderOperations = {
    "box:3", "conv:1,2,1:sum", "conv:1;-2;4:sum", "roberts", "sobel", "median:3", "median:5",
    "box:9", "binomial:5", test::decimalRank1Mask()};  // 3x3, 3x1, 1x3, 2x2 sums, pairs, medians, sliding and 64-bit column sums

TEST(FilterStrip, EveryOperationEveryBorderEqualsReference) {
    const io::Image img = test::noiseImage(45, 23, 1, 1);  // 6 strips, the last 5 wide; 6 rows of items, the last 3 high
    for (const auto& s : kStripOperations) {
        const bool everyBorder = std::find(kEveryBorderOperations.begin(), kEveryBorderOperations.end(), s) != kEveryBorderOperations.end();
        for (Border b : kBorders)
            if (everyBorder || b == Border::Reflect101 || b == Border::Constant) expectStripEqualsReference(img, s, kNarrow, b);
    }
    for (const auto& s : kEveryBorderOperations)
        EXPECT_NE(std::find(kStripOperations.begin(), kStripOperations.end(), s), kStripOperations.end()) << s;
}

TEST(FilterStrip, FloatSumsEqualReference) {
    // The float sums (strip_float = 1): the divisor's roundings by fma (none with clamping both
    // ways, shift, unsigned division, sums of both signs), L1 with zero terms, and the sliding sums
    // of box 9. Six programs: each costs PoCL a few seconds to compile.
    const Layout floats{8, 4, 8, 2, 2, true};
    const io::Image img = test::noiseImage(45, 23, 1, 11);
    for (const std::string s : {"box:3", "binomial:3", "laplace:8", "conv:1,-2,3;-4,9,-4;3,-2,1:sum", "sobel", "box:9"})
        for (Border b : kBorders) expectStripEqualsReference(img, s, floats, b);
}

TEST(FilterStrip, ByteDotsEqualReference) {
    // Masks by byte dot products (strip_dot = 1; on PoCL the products spelt out, on NVIDIA GPUs the
    // dp4a instruction). 3 wide: every window word (a strip word, or two words' halves,
    // the side words at either end) in 8- and 16-wide strips, weights of both signs and a byte's
    // extremes, zero rows, one and two masks, each combine rule, a 3x1 mask.
    const Layout dots8{8, 4, 8, 2, 2, false, true}, dots16{16, 4, 8, 2, 2, false, true};
    for (const io::Image& img : {test::noiseImage(45, 23, 1, 20), test::noiseImage(96, 24, 1, 21)})
        for (Border b : kBorders)
            for (const std::string s : {"sobel", "scharr:l2", "laplace:8", "conv:-128,127,-1;3,0,-7;100,-90,5:sum", "box:3"})
                expectStripEqualsReference(img, s, dots8, b);
    for (Border b : {Border::Constant, Border::Reflect101})
        for (const std::string s : {"prewitt:x", "sobel:y", "conv:1,-2,3:sum", "binomial:3"})
            expectStripEqualsReference(test::noiseImage(61, 40, 1, 22), s, dots16, b);
    // Wider masks that are not rank 1 (5, 7 and 9 wide: every window offset in a word, words as they
    // are and funnel shifts, the zero word past the right side), and 1-D rows of 3, 5 and 9 taps
    // (boxes among them, which take the dot products instead of sliding sums).
    const std::string conv5 = "conv:1,2,-3,4,5;2,0,1,-1,3;5,4,3,2,1;-2,1,0,1,2;1,1,9,1,1:sum";
    const std::string conv7 = "conv:1,2,3,4,3,2,1;2,0,1,-1,3,0,2;5,4,3,2,1,0,1;-2,1,0,1,2,1,0;1,1,9,1,1,1,1;0,0,0,1,0,0,0;3,-3,3,-3,3,-3,3:sum";
    const std::string conv9 = "conv:1,2,3,4,5,1,2,3,4;5,1,2,3,4,5,1,2,3;4,5,1,2,3,4,5,1,2;3,4,5,1,2,3,4,5,1;2,3,4,5,1,2,3,4,5;"
                              "1,2,3,4,5,1,2,3,4;5,1,2,3,4,5,1,2,3;4,5,1,2,3,4,5,1,2;-3,4,5,1,2,3,4,5,127:sum";
    for (Border b : kBorders)
        for (const std::string& s : {conv5, std::string("conv:1,8,28,56,70,56,28,8,1:sum"), std::string("conv:1,1,1,1,1,1,1,1,1:sum"),
                                     std::string("conv:1,1,1,1,1:sum"), std::string("conv:-1,2,-3,4,0,-4,3,-2,1")})
            expectStripEqualsReference(test::noiseImage(45, 23, 1, 23), s, dots8, b);
    for (const std::string s : {"conv:1,1,1,1,1,1,1,1,1:sum", "conv:1,1,1,1,1:sum", "conv:1,1,1:sum"})
        expectStripEqualsReference(test::noiseImage(61, 40, 1, 26), s, dots16, Border::Reflect);
    // The compass operators' largest response of eight masks, each mask summed on its own (each
    // program takes PoCL several seconds to build: every border for one of them).
    for (Border b : kBorders) expectStripEqualsReference(test::noiseImage(45, 23, 1, 27), "compass:kirsch", dots8, b);
    for (const std::string s : {"compass:sobel", "compass:robinson"}) {
        expectStripEqualsReference(test::noiseImage(45, 23, 1, 27), s, dots8, Border::Constant);
        expectStripEqualsReference(test::noiseImage(61, 40, 1, 28), s, dots16, Border::Reflect101);
    }
    for (Border b : {Border::Constant, Border::Wrap})  // (each program takes PoCL several seconds to build)
        for (const std::string& s : {conv7, conv9}) expectStripEqualsReference(test::noiseImage(45, 23, 1, 23), s, dots8, b);
    for (const std::string& s : {conv5, conv9}) {
        expectStripEqualsReference(test::noiseImage(96, 24, 1, 24), s, dots16, Border::Reflect101);
        expectStripEqualsReference(test::noiseImage(12, 9, 1, 25), s, dots8, Border::Wrap);  // the window as tall as the image
    }
    // Only masks summed row by row (up to 3x3, or not rank 1) whose every weight fits a signed byte
    // take the dot products.
    const auto dotsDefine = [](const std::string& spec) {
        return stripDefines(parseOperation(spec), io::PixelType::U8, 64, 64, Border::Reflect101, StripLayout{8, 4, 8, 2, false, true});
    };
    EXPECT_NE(dotsDefine("scharr").find("BYTE_DOTS=1"), std::string::npos);
    EXPECT_NE(dotsDefine("conv:1,2,1;2,4,2;1,2,1").find("BYTE_DOTS=1"), std::string::npos);
    EXPECT_NE(dotsDefine("conv:1,128,1;0,0,0;1,1,1").find("BYTE_DOTS=0"), std::string::npos);
    EXPECT_NE(dotsDefine("conv:1;2;1").find("BYTE_DOTS=0"), std::string::npos);
    EXPECT_NE(dotsDefine("box:5").find("BYTE_DOTS=0"), std::string::npos);
    EXPECT_NE(dotsDefine("conv:1,1,1,1,1,1,1,1,1:sum").find("BYTE_DOTS=1"), std::string::npos);
    EXPECT_NE(dotsDefine("conv:1,1,1,1,1,1,1,1,1:sum").find("HSLIDE=0"), std::string::npos);
    EXPECT_NE(stripDefines(parseOperation("conv:1,1,1,1,1,1,1,1,1:sum"), io::PixelType::U8, 64, 64, Border::Reflect101, StripLayout{8, 4, 8, 2})
                  .find("HSLIDE=1"),
              std::string::npos);  // without dot products the box row slides
    EXPECT_NE(dotsDefine(conv9).find("BYTE_DOTS=1"), std::string::npos);
    EXPECT_NE(dotsDefine("compass:kirsch").find("MANY_MASKS=1 -D PAIRED_MASKS=0"), std::string::npos);
    EXPECT_NE(dotsDefine("compass:sobel").find("MANY_MASKS=1 -D PAIRED_MASKS=1"), std::string::npos);
    EXPECT_NE(dotsDefine("compass:robinson").find("MANY_MASKS=1 -D PAIRED_MASKS=0"), std::string::npos);
    EXPECT_EQ(dotsDefine("compass:kirsch:dir"), "");  // a float output
    EXPECT_EQ(stripDefines(parseOperation("compass:kirsch"), io::PixelType::U8, 64, 64, Border::Reflect101, StripLayout{8, 4, 8, 2}), "");
    // A mask larger than 3x3, not rank 1, with a weight past a byte: the tile kernels.
    EXPECT_EQ(dotsDefine("conv:1,2,3,4,5;2,0,1,-1,3;5,4,300,2,1;-2,1,0,1,2;1,1,9,1,1"), "");
    EXPECT_EQ(stripDefines(parseOperation(conv5), io::PixelType::U8, 64, 64, Border::Reflect101, StripLayout{8, 4, 8, 2}), "");
}

TEST(FilterStrip, PackedStoresAndFixedWidthEqualReference) {
    // NVIDIA's profile: outputs saturated as the store packs them (strip_pack = 1; on PoCL spelt
    // out, on NVIDIA GPUs cvt.pack), and the image width compiled in (strip_fixed_width = 1). Sums
    // below 0 and above 255 (Laplace, Sobel, a mask of both signs), sums in range (box, the column
    // lanes of box 9, a division), the medians, with dot products and without, on an image whose
    // last strip of each row is stored byte by byte and on one whose strips are all whole (edge
    // rows through the border rule, inside rows at fixed offsets).
    const Layout nvidia{8, 4, 8, 2, 2, false, false, true, true}, nvidiaDots{8, 4, 8, 2, 2, false, true, true, true};
    for (const io::Image& img : {test::noiseImage(45, 23, 1, 30), test::noiseImage(48, 21, 1, 31)})
        for (Border b : {Border::Constant, Border::Reflect101}) {
            for (const std::string s : {"laplace:8", "sobel", "conv:1,-2,3;-4,9,-4;3,-2,1:sum", "box:3", "box:9", "median:3", "median:5"})
                expectStripEqualsReference(img, s, nvidia, b);
            for (const std::string s : {"laplace:8", "sobel", "conv:1,-2,3;-4,9,-4;3,-2,1:sum"}) expectStripEqualsReference(img, s, nvidiaDots, b);
        }
    StripLayout packedFixed{8, 4, 8, 2};
    packedFixed.satPack = packedFixed.fixedWidth = true;
    const std::string defines = stripDefines(parseOperation("sobel"), io::PixelType::U8, 64, 40, Border::Reflect101, packedFixed);
    EXPECT_NE(defines.find("SAT_PACK=1"), std::string::npos);
    EXPECT_NE(defines.find("ROW_STRIDE=64"), std::string::npos);
}

TEST(FilterStrip, GradientLanesEqualReference) {
    // Gradient pairs |Gx| + |Gy| in 16-bit lanes (strip_gradient_lanes = 1; on PoCL integer lanes
    // spelt out, on NVIDIA GPUs fp16x2 arithmetic): Sobel, Scharr (whose weighted sums pass 2048,
    // where fp16 rounds) and Prewitt, every border, strips 8, 16 and 4 wide (each lane shift between
    // words, and the side words at either end) of 3, 4 and 6 rows, a last strip stored byte by byte
    // and whole strips, and blocks of 0 and 255 (the largest sums of both signs).
    const Layout lanes8{8, 4, 8, 2, 2, false, false, true, true, true}, lanes16{16, 4, 8, 2, 2, false, false, false, false, true},
        lanes4{4, 3, 4, 4, 3, false, false, false, false, true}, lanes16x6{16, 6, 8, 2, 2, false, false, true, true, true};
    io::Image blocks = io::makeImage(48, 21, 1, io::PixelType::U8);
    for (int y = 0; y < blocks.height; ++y)
        for (int x = 0; x < blocks.width; ++x) blocks.data[y * blocks.width + x] = ((x / 2 + y / 3) % 2) ? 255 : 0;
    for (Border b : kBorders)
        for (const std::string s : {"sobel", "scharr", "prewitt"}) {
            expectStripEqualsReference(test::noiseImage(45, 23, 1, 40), s, lanes8, b);
            expectStripEqualsReference(blocks, s, lanes8, b);
        }
    for (Border b : {Border::Constant, Border::Reflect101})
        for (const std::string s : {"sobel", "scharr"}) {
            expectStripEqualsReference(test::noiseImage(61, 40, 1, 41), s, lanes16, b);
            expectStripEqualsReference(test::noiseImage(64, 9, 1, 42), s, lanes16, b);
            expectStripEqualsReference(test::noiseImage(22, 7, 1, 43), s, lanes4, b);
            expectStripEqualsReference(test::noiseImage(64, 40, 1, 44), s, lanes16x6, b);  // the Hopper profile's; a last strip of 4 rows
        }
    // Only the L1 pairs take the lanes; the others keep their sums (and the dot products, where on).
    StripLayout lanes{8, 4, 8, 2};
    lanes.gradientLanes = lanes.byteDots = true;
    const auto defines = [&](const std::string& spec) {
        return stripDefines(parseOperation(spec), io::PixelType::U8, 64, 40, Border::Reflect101, lanes);
    };
    for (const std::string s : {"sobel", "scharr:l1", "prewitt"}) {
        EXPECT_NE(defines(s).find("GRADIENT_LANES=1"), std::string::npos) << s;
        EXPECT_NE(defines(s).find("BYTE_DOTS=0"), std::string::npos) << s;
    }
    EXPECT_NE(defines("scharr").find("GRAD_C0=3 -D GRAD_C1=10 -D GRAD_C0_H2=1107313152u -D GRAD_C1_H2=1224755456u"), std::string::npos);
    for (const std::string s : {"sobel:l2", "sobel:x", "scharr:y", "roberts", "laplace:8", "conv:1,0,-1;2,0,-2;1,0,-1"})
        EXPECT_NE(defines(s).find("GRADIENT_LANES=0"), std::string::npos) << s;
}

TEST(FilterStrip, LaneDotsEqualReference) {
    // Rank-1 masks on the 16-bit column lanes with the row factor as dot products of two lanes with
    // two byte weights (strip_lane_dots = 1; on PoCL spelt out, on NVIDIA GPUs dp2a): OpenCV's
    // Gaussians and binomials of 5, 7 and 9 taps (a lone last tap in each), a row factor with zero
    // weights (a pair skipped, a lone tap zero) 9 wide by 5 tall, every border, strips 4, 8 and 16
    // wide (every pair of lanes across words, and the side words at either end), a last strip
    // stored byte by byte and whole strips, an image a strip and a byte wide.
    Layout dots8{8, 8, 8, 2, 2}, dots16{16, 4, 8, 2, 2}, dots4{4, 3, 4, 4, 3};
    for (Layout* l : {&dots8, &dots16, &dots4}) l->laneDots = true;
    const std::string zeros = "conv:0,3,0,5,7,5,0,3,0;0,12,0,20,28,20,0,12,0;0,18,0,30,42,30,0,18,0;0,12,0,20,28,20,0,12,0;0,3,0,5,7,5,0,3,0:sum";
    for (Border b : kBorders)
        for (const std::string& s : {std::string("gaussian:9:2.0"), std::string("binomial:9"), zeros}) {
            expectStripEqualsReference(test::noiseImage(45, 23, 1, 50), s, dots8, b);
            expectStripEqualsReference(test::noiseImage(64, 17, 1, 51), s, dots16, b);
        }
    for (const std::string s : {"gaussian:5", "gaussian:7:1.3", "binomial:7", "gaussian:9"}) {
        expectStripEqualsReference(test::noiseImage(61, 29, 1, 52), s, dots16, Border::Reflect101);
        expectStripEqualsReference(test::noiseImage(22, 13, 1, 53), s, dots4, Border::Constant);
        expectStripEqualsReference(test::noiseImage(9, 12, 3, 54), s, dots8, Border::Reflect);  // a strip and a byte, colour
    }
    // Who takes them: byte row weights, neither sliding; not box masks, not row weights past 255.
    StripLayout l{8, 8, 8, 2};
    l.laneDots = true;
    const auto defines = [&](const std::string& spec) { return stripDefines(parseOperation(spec), io::PixelType::U8, 64, 40, Border::Reflect101, l); };
    for (const std::string& s : {std::string("gaussian:9:2.0"), std::string("binomial:5"), zeros}) EXPECT_NE(defines(s).find("LANE_DOTS=1"), std::string::npos) << s;
    for (const std::string s : {"box:9", "conv:1,300,1,300,1;1,300,1,300,1;1,300,1,300,1;1,300,1,300,1;1,300,1,300,1", "conv:1;4;6;4;1"})
        EXPECT_NE(defines(s).find("LANE_DOTS=0"), std::string::npos) << s;
    l.laneDots = false;
    EXPECT_NE(defines("gaussian:9:2.0").find("LANE_DOTS=0 -D DP2A=0"), std::string::npos);
}

TEST(FilterStrip, WiderStripsEqualReference) {
    // 4 wide with 3 rows per item (the medians end on a single row), 16 wide with 4; interior and
    // edge work-items, and images narrower than a strip.
    const io::Image img = test::noiseImage(61, 40, 1, 2);
    for (Border b : kBorders) {
        for (const std::string s : {"box:3", "median:3", "median:5"}) {
            expectStripEqualsReference(img, s, kMiddle, b);
            expectStripEqualsReference(test::noiseImage(5, 5, 1, 3), s, kMiddle, b);  // the 5x5 window as large as the image
        }
        for (const std::string s : {"sobel", "median:5", "box:7", "gaussian:7:1.2"}) {
            expectStripEqualsReference(img, s, kWide, b);
            expectStripEqualsReference(test::noiseImage(16, 7, 1, 4), s, kWide, b);  // one strip; box:7 as tall as the image
        }
    }
}

TEST(FilterStrip, WholeStripsEqualReference) {
    // Widths that are multiples of the strip: whole-vector loads and stores, and the sides read as
    // the words beside the strip (replaced at the left and right edges; 9-wide windows use all four
    // bytes of each, and in 4-wide strips as many bytes as the strip).
    const io::Image img = test::noiseImage(96, 40, 1, 5);
    for (const std::string s : {"box:3", "median:3"})
        for (Border b : {Border::Constant, Border::Reflect}) expectStripEqualsReference(img, s, kMiddle, b);
    for (Border b : kBorders)
        for (const std::string s : {"box:3", "box:9"}) expectStripEqualsReference(img, s, kNarrow, b);
    for (Border b : {Border::Constant, Border::Reflect101}) {
        for (const std::string s : {"sobel", "median:5", "conv:1,8,28,56,70,56,28,8,1:sum"}) expectStripEqualsReference(img, s, kNarrow, b);
        expectStripEqualsReference(img, "box:9", kMiddle, b);
    }
}

TEST(FilterStrip, SmallImagesEqualReference) {
    for (Border b : kBorders) {
        expectStripEqualsReference(test::noiseImage(8, 3, 1, 6), "box:3", kNarrow, b);  // one strip, 3 rows: both border rows reflected
        expectStripEqualsReference(test::noiseImage(9, 3, 1, 7), "scharr:l2", kNarrow, b);  // a whole strip and one of 1
        expectStripEqualsReference(test::noiseImage(23, 1, 1, 8), "conv:1,2,1:sum", kNarrow, b);  // one row
        expectStripEqualsReference(test::noiseImage(8, 3, 1, 9), "conv:1;-2;4:sum", kNarrow, b);  // 1x3 mask, 3 rows
        expectStripEqualsReference(test::noiseImage(8, 5, 1, 12), "median:5", kNarrow, b);  // the 5x5 window as tall as the image
        // Narrower than a strip: the tile kernels.
        expectStripEqualsReference(test::noiseImage(3, 3, 1, 13), "box:3", kNarrow, b, false);
        expectStripEqualsReference(test::noiseImage(1, 9, 1, 14), "conv:1;-2;4:sum", kNarrow, b, false);  // one column
    }
}

TEST(FilterStrip, OneDimensionalPassesEqualReference) {
    // 1-D masks (one separable pass): a row of ones slides along the row, a column of one constant
    // down the strip, small non-negative columns sum in 16-bit lanes; other integer rows and
    // columns, and decimal ones (32-bit fixed point).
    const io::Image img = test::noiseImage(45, 23, 1, 15);
    for (Border b : kBorders)
        for (const std::string s : {"conv:1,1,1,1,1,1,1,1,1:sum", "conv:3;3;3;3;3;3;3;3;3:sum", "conv:1;8;28;56;70;56;28;8;1:sum"})
            expectStripEqualsReference(img, s, kNarrow, b);
    // Columns in 16-bit lanes: 16- and 4-wide strips, a clamped sum (no divisor), an odd divisor.
    for (Border b : {Border::Constant, Border::Wrap}) {
        expectStripEqualsReference(img, "conv:1;4;6;4;1", kWide, b);
        expectStripEqualsReference(img, "conv:1;2;3;2;1:sum", kMiddle, b);
    }
    for (Border b : {Border::Constant, Border::Reflect101})
        for (const std::string s : {"conv:1,8,28,56,70,56,28,8,1:sum", "conv:1;-2;0;5;2;-1;1", "conv:0.05,0.1,0.2,0.3,0.2,0.1,0.05",
                                    "conv:0.1;0.2;0.4;0.2;0.1"})
            expectStripEqualsReference(img, s, kNarrow, b);
}

TEST(FilterStrip, RankOneColumnsFirstEqualReference) {
    // Rank-1 masks whose column factor sums in 16-bit lanes: the column sums first (strip words and
    // both side words), then the row factor, signed or not, along them; 8-, 16- and 4-wide strips,
    // widths that are and are not multiples of the strip.
    const std::string signedRow = "conv:1,-2,3,-2,1;2,-4,6,-4,2;3,-6,9,-6,3;2,-4,6,-4,2;1,-2,3,-2,1";  // column 1 2 3 2 1, row 1 -2 3 -2 1
    for (const io::Image& img : {test::noiseImage(45, 23, 1, 16), test::noiseImage(96, 40, 1, 17)})
        for (Border b : kBorders)
            for (const std::string& s : {std::string("binomial:9"), signedRow}) expectStripEqualsReference(img, s, kNarrow, b);
    for (Border b : {Border::Constant, Border::Reflect101}) {
        expectStripEqualsReference(test::noiseImage(61, 40, 1, 18), "binomial:7", kWide, b);
        expectStripEqualsReference(test::noiseImage(96, 40, 1, 19), "binomial:5", kMiddle, b);
    }
}

TEST(FilterStrip, ColourPlanesEqualReference) {
    const io::Image img = test::noiseImage(35, 21, 4, 10);  // RGBA: three planes filtered, alpha passed through
    for (const std::string s : {"box:3", "sobel", "median:5"}) expectStripEqualsReference(img, s, kNarrow, Border::Reflect101);
}

TEST(FilterStrip, PathTakesOnlyWhatItCovers) {
    const StripLayout l;
    const auto takes = [&](const std::string& s, io::PixelType t) { return !stripDefines(parseOperation(s), t, 64, 64, Border::Reflect101, l).empty(); };
    EXPECT_TRUE(takes("box:3", io::PixelType::U8));
    EXPECT_TRUE(takes("median:5", io::PixelType::U8));
    EXPECT_FALSE(takes("box:3", io::PixelType::U16));
    EXPECT_TRUE(takes("box:9", io::PixelType::U8));       // integer rank 1 up to 9x9
    EXPECT_FALSE(takes("box:11", io::PixelType::U8));
    EXPECT_TRUE(takes("conv:1,1,1,1,1,1,1,1,1", io::PixelType::U8));  // 1-D masks up to 9 taps
    EXPECT_TRUE(takes("conv:1;2;3;4;5;4;3;2;1", io::PixelType::U8));
    EXPECT_FALSE(takes("conv:1,1,1,1,1,1,1,1,1,1,1", io::PixelType::U8));
    EXPECT_TRUE(takes("gaussian:9:2.0", io::PixelType::U8));
    EXPECT_TRUE(takes(test::decimalRank1Mask(), io::PixelType::U8));  // fixed-point factors: 64-bit column sums
    EXPECT_FALSE(takes("gaussian:11:2.0", io::PixelType::U8));
    EXPECT_FALSE(takes("median:7", io::PixelType::U8));
    EXPECT_FALSE(takes("sobel:dir", io::PixelType::U8));  // float output
    EXPECT_FALSE(takes("compass:kirsch", io::PixelType::U8));  // eight masks
    EXPECT_FALSE(takes("threshold:3:20", io::PixelType::U8));
    // Sliding sums: box masks both ways; a binomial neither; L2 never in float.
    const auto has = [&](const std::string& s, const std::string& define) {
        StripLayout f = l;
        f.floatSums = true;
        return stripDefines(parseOperation(s), io::PixelType::U8, 64, 64, Border::Reflect101, f).find(define) != std::string::npos;
    };
    EXPECT_TRUE(has("box:9", "HSLIDE=1") && has("box:9", "VSLIDE=1") && has("box:9", "FLOAT_SUMS=1"));
    EXPECT_TRUE(has("binomial:7", "HSLIDE=0") && has("binomial:7", "VSLIDE=0"));
    EXPECT_TRUE(has("scharr:l2", "FLOAT_SUMS=0"));
    const std::string decimal = test::decimalRank1Mask();
    EXPECT_TRUE(has(decimal, "WIDE_SUMS=1") && has(decimal, "FLOAT_SUMS=0") && has("binomial:9", "WIDE_SUMS=0") && has("gaussian:9:2.0", "WIDE_SUMS=0"));
    EXPECT_TRUE(has("conv:1,1,1,1,1,1,1,1,1:sum", "HSLIDE=1") && has("conv:1,1,1,1,1,1,1,1,1:sum", "VSLIDE=0"));
    EXPECT_TRUE(has("conv:2;2;2;2;2;2;2", "HSLIDE=0") && has("conv:2;2;2;2;2;2;2", "VSLIDE=1"));
    // 16-bit lanes: small non-negative integer columns; not signed ones, not rows, not wide sums.
    const auto lanes = [&](const std::string& s) {
        return stripDefines(parseOperation(s), io::PixelType::U8, 64, 64, Border::Reflect101, l).find("COLUMN_LANES=1") != std::string::npos;
    };
    EXPECT_TRUE(lanes("conv:1;8;28;56;70;56;28;8;1:sum") && lanes("conv:1;4;6;4;1") && lanes("conv:1;4;6;4;1:sum"));
    EXPECT_FALSE(lanes("conv:1;-2;0;5;2;-1;1") || lanes("conv:1,8,28,56,70,56,28,8,1:sum") || lanes("conv:200;200;200;1;200;200;200"));
    EXPECT_TRUE(lanes("binomial:9") && lanes("conv:1,-2,3,-2,1;2,-4,6,-4,2;3,-6,9,-6,3;2,-4,6,-4,2;1,-2,3,-2,1"));  // rank 1: columns first
    EXPECT_TRUE(lanes("box:9") && lanes("conv:3;3;3;3;3;3;3;3;3:sum"));                       // sliding down the strip
    EXPECT_TRUE(lanes("gaussian:9:2.0"));  // OpenCV's integers: each factor sums to 256
    EXPECT_FALSE(lanes(decimal) || lanes("binomial:3") || lanes("conv:1,1,1,1,1,1,1,1,1:sum"));  // 64-bit, 3 rows, a row
    // Division: a multiply-shift where one fits 32 bits, else the unsigned division.
    EXPECT_TRUE(has("box:3", "DIV_MODE=3") && has("conv:1,-2,3;-4,9,-4;3,-2,1:sum", "DIV_MODE=3") && has("binomial:3", "DIV_MODE=1"));
    EXPECT_TRUE(has("conv:1000,2000,1000;2000,4001,2000;1000,2000,1000:sum", "DIV_MODE=2"));
}

// The multiply-shift gives round(v / d), halves up, for every v of its range, in the kernel's
// 32-bit unsigned arithmetic; ranges of one sign and of both, small and large divisors.
TEST(FilterStrip, MultiplyShiftRoundsEverySum) {
    struct Range {
        std::int64_t lo, hi, d;
    };
    for (const Range r : std::vector<Range>{{0, 2295, 9}, {0, 20655, 81}, {-1020, 1020, 3}, {-4080, 5100, 7}, {0, 255 * 45, 45},
                                            {-255 * 30, 255 * 12, 1000}, {0, 255 * 9 * 7, 63}, {-255, 0, 5}, {0, 255, 255}}) {
        const MultiplyShift m = multiplyShift(r.lo, r.hi, r.d);
        ASSERT_GT(m.shift, 0) << "no multiply-shift for [" << r.lo << ", " << r.hi << "] / " << r.d;
        std::int64_t bad = 0;
        for (std::int64_t v = r.lo; v <= r.hi; ++v) {
            const std::uint32_t x = static_cast<std::uint32_t>(v) * static_cast<std::uint32_t>(m.multiplier) + static_cast<std::uint32_t>(m.addend);
            if (static_cast<std::int64_t>(x >> m.shift) - m.offset != roundDiv(v, r.d)) ++bad;
        }
        EXPECT_EQ(bad, 0) << "[" << r.lo << ", " << r.hi << "] / " << r.d;
    }
    EXPECT_EQ(multiplyShift(0, 255 * 16001, 16001).shift, 0);  // U M would pass 32 bits
}

// Filtering: the OpenCL path against the serial reference (equal for integer outputs; float outputs
// within 1e-5 relative in float, 1e-12 in double), every operation, every border mode, 8/16-bit and
// float, grey and colour, pipelines; the reference against independent answers (OpenCV's border
// tables, direct 2-D sums for separable masks, hand-computed values); bad operations.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "filter/filter_internal.hpp"
#include "filter/planes.hpp"
#include "portacl/filter.hpp"
#include "portacl/runtime/error.hpp"
#include "support/filter_images.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

// An odd-sized image (partial work-groups at the edges) of smooth structure plus noise.
io::Image testImage(int w, int h, int channels, io::PixelType t, unsigned seed = 1) {
    io::Image img = io::makeImage(w, h, channels, t);
    std::mt19937 rng(seed);
    const double top = t == io::PixelType::U16 ? 65535 : 255;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) {
                const std::size_t i = (static_cast<std::size_t>(y) * w + x) * channels + c;
                double v = top * (0.5 + 0.3 * std::sin(0.21 * x + c) * std::cos(0.17 * y)) + std::uniform_real_distribution<double>(-0.2, 0.2)(rng) * top;
                v = std::min(top, std::max(0.0, v));
                if (t == io::PixelType::U8) img.data[i] = static_cast<unsigned char>(v);
                else if (t == io::PixelType::U16) img.samples<unsigned short>()[i] = static_cast<unsigned short>(v);
                else img.samples<float>()[i] = static_cast<float>(v / top * 2.0 - 0.5);  // some negatives
            }
    return img;
}

std::vector<Operation> parse(const std::vector<std::string>& specs) {
    std::vector<Operation> ops;
    for (const auto& s : specs) ops.push_back(parseOperation(s));
    return ops;
}

// Integer outputs: equal; float: |a - b| <= tol * (1 + |b|) (directions compared modulo 360).
void expectMatch(const io::Image& got, const io::Image& want, double tol, const std::string& what) {
    ASSERT_EQ(got.width, want.width) << what;
    ASSERT_EQ(got.channels, want.channels) << what;
    ASSERT_EQ(got.type, want.type) << what;
    if (got.type != io::PixelType::F32) {
        std::size_t bad = 0, first = 0;
        for (std::size_t i = 0; i < got.data.size(); ++i)
            if (got.data[i] != want.data[i] && bad++ == 0) first = i;
        EXPECT_EQ(bad, 0u) << what << ": first differing byte " << first;
        return;
    }
    const float *g = got.samples<float>(), *w = want.samples<float>();
    double worst = 0;
    for (std::size_t i = 0; i < got.sampleCount(); ++i) {
        double d = std::fabs(double(g[i]) - w[i]);
        if (what.find(":dir") != std::string::npos) d = std::min(d, 360.0 - d);
        worst = std::max(worst, d / (1 + std::fabs(w[i])));
    }
    EXPECT_LE(worst, tol) << what;
}

void compare(const io::Image& img, const std::vector<std::string>& specs, Options o, double tol = 0) {
    const auto ops = parse(specs);
    std::string what;
    for (const auto& s : specs) what += s + " ";
    what += std::string("border=") + borderName(o.border) + " type=" + io::pixelTypeName(img.type) + " channels=" + std::to_string(img.channels);
    const io::Image want = filterReference(img, ops, o);
    Pipeline p(test::context(), ops, o);
    expectMatch(p.run(img), want, tol, what);
}

const std::vector<std::string> kEveryOperation = {
    "conv:1,2,0;-1,3,1;2,0,1", "conv:1,1,1,1,1;1,2,3,2,1;1,1,1,1,1:sum", "conv:1,2,1;2,4,2;1,2,1:sum", "conv:0.1,0.7,-0.2;0.3,0.2,0.1;0.05,0.5,0.25",
    "conv:1,-2,3;-4,9,-4;3,-2,1:sum", "conv:1,-3,1;3,-9,3;1,-3,1:sum",  // negative sums; a negative divisor (rank 1)
    "box:3", "box:7", "binomial:5", "gaussian:9:2.0", "gaussian:5", "median:3", "median:5", "median:9", "threshold:3:20",
    "rotating:3", "rotating:5", "rotating:7", "rotating:15", "roberts", "prewitt:l2", "sobel", "sobel:l2", "sobel:dir", "sobel:x", "scharr", "compass:kirsch",
    "compass:robinson:dir", "compass:sobel", "laplace:4", "laplace:8", "laplace:4:5", "laplace:8:5"};

}  // namespace

// ---- the reference against independent answers ----

TEST(FilterReference, BorderIndexMatchesOpenCvTables) {
    // OpenCV's documentation, row "abcdefgh" (n = 8), positions -3..-1 and 8..10.
    const int n = 8;
    auto row = [&](Border b) {
        std::string s;
        for (int p : {-3, -2, -1, 8, 9, 10}) {
            const int i = borderIndex(p, n, b);
            s += i < 0 ? 'i' : static_cast<char>('a' + i);
        }
        return s;
    };
    EXPECT_EQ(row(Border::Constant), "iiiiii");
    EXPECT_EQ(row(Border::Replicate), "aaahhh");
    EXPECT_EQ(row(Border::Reflect), "cbahgf");
    EXPECT_EQ(row(Border::Reflect101), "dcbgfe");
    EXPECT_EQ(row(Border::Wrap), "fghabc");
}

TEST(FilterReference, HandComputedValues) {
    // 3x3 image 1..9; box 3 with constant 0 border at the centre = 5, at the corner (1+2+4+5)/9 -> 1.
    io::Image img = io::makeImage(3, 3, 1, io::PixelType::U8);
    for (int i = 0; i < 9; ++i) img.data[i] = static_cast<unsigned char>(i + 1);
    Options o;
    o.border = Border::Constant;
    io::Image out = filterReference(img, parse({"box:3"}), o);
    EXPECT_EQ(out.data[4], 5);
    EXPECT_EQ(out.data[0], 1);  // 12/9 = 1.33
    // Sobel |Gx|+|Gy| at the centre of a ramp 1..9 (rows differ by 3, columns by 1): 8 + 24 = 32.
    out = filterReference(img, parse({"sobel"}), o);
    EXPECT_EQ(out.data[4], 32);
    out = filterReference(img, parse({"median:3"}), o);
    EXPECT_EQ(out.data[4], 5);
    EXPECT_EQ(out.data[0], 0);  // five zeros of the border among nine
    // Rounding halves up: (1+2)/2 via conv 1,1 is not odd-sized; use 1x3 [1 1 0]/2 on 1,2 -> 1.5 -> 2.
    io::Image row = io::makeImage(3, 1, 1, io::PixelType::U8);
    row.data = {1, 2, 9};
    o.border = Border::Replicate;
    out = filterReference(row, parse({"conv:0,1,1:sum"}), o);
    EXPECT_EQ(out.data[0], 2);  // (1 + 2) / 2 = 1.5 -> 2
}

TEST(FilterReference, SeparablePlanEqualsDirectTwoDimensionalSum) {
    // A rank-1 integer mask runs as two passes; with its factors removed it runs in 2-D. Both are
    // exact integer arithmetic, so the images are equal.
    const io::Image img = testImage(40, 33, 1, io::PixelType::U16);
    Operation sep = parseOperation("conv:1,4,6,4,1;2,8,12,8,2;1,4,6,4,1;3,12,18,12,3;1,4,6,4,1:sum");
    ASSERT_FALSE(sep.rowFactor.empty());
    Operation direct = sep;
    direct.rowFactor.clear();
    direct.colFactor.clear();
    for (Border b : {Border::Constant, Border::Reflect, Border::Wrap}) {
        Options o;
        o.border = b;
        o.borderValue = 7;
        EXPECT_EQ(filterReference(img, {sep}, o).data, filterReference(img, {direct}, o).data) << borderName(b);
    }
}

TEST(FilterReference, SeparableDetection) {
    std::vector<double> col, row;
    EXPECT_TRUE(separate({-1, 0, 1, -2, 0, 2, -1, 0, 1}, 3, 3, col, row));  // Sobel Gx
    EXPECT_EQ(col, (std::vector<double>{1, 2, 1}));
    EXPECT_EQ(row, (std::vector<double>{-1, 0, 1}));
    EXPECT_FALSE(separate({0, 1, 0, 1, -4, 1, 0, 1, 0}, 3, 3, col, row));  // Laplace
    EXPECT_FALSE(parseOperation("conv:1,2,1,2,1;2,4,2,4,2;1,2,1,2,1;0,0,0,0,0;1,2,1,2,1").rowFactor.empty());
    EXPECT_FALSE(parseOperation("gaussian:5").rowFactor.empty());
    EXPECT_TRUE(parseOperation("conv:1,2,0,0,0;-1,3,1,0,0;2,0,1,0,0;0,0,0,0,0;1,1,1,1,1").rowFactor.empty());
    // Rank 1 but under 25 taps: one 2-D pass.
    EXPECT_TRUE(parseOperation("conv:1,2,1;2,4,2;1,2,1").rowFactor.empty());
    EXPECT_TRUE(parseOperation("box:3").rowFactor.empty());
}

TEST(FilterReference, FixedPointRealMaskIsWithinAHundredthOfALevelOfRealArithmetic) {
    // Integer images take real masks in fixed point; the float image path computes in double.
    const io::Image img = testImage(50, 41, 1, io::PixelType::U8);
    io::Image f = io::makeImage(50, 41, 1, io::PixelType::F32);
    for (std::size_t i = 0; i < img.data.size(); ++i) f.samples<float>()[i] = img.data[i];
    Options o;
    o.precision = Precision::Double;
    const std::string mask = test::decimalRank1Mask();
    const io::Image a = filterReference(img, parse({mask}), o), b = filterReference(f, parse({mask}), o);
    for (std::size_t i = 0; i < a.data.size(); ++i) ASSERT_LE(std::fabs(a.data[i] - b.samples<float>()[i]), 0.5 + 0.01) << i;
}

TEST(FilterReference, GaussianTakesOpenCvsFixedPointWeights) {
    // OpenCV 4.6's bit-exact GaussianBlur: 8 fractional bits a factor for 8-bit images, 16 for
    // 16-bit, rounded by error diffusion from the ends inwards. Published values: its 9-tap table for
    // sigma <= 0 (4, 13, 30, 51, 60 / 256) and the sampled 9 taps of sigma 2, which OpenCV's
    // getGaussianKernel(9, 2) gives as 0.02763055 0.06628225 0.12383154 0.18017382 0.20416369 (the
    // integers below are their error diffusion; test_filter_opencv holds the images to OpenCV's).
    const auto weights = [](const std::string& spec, io::PixelType t) { return planInteger(parseOperation(spec), t).row; };
    EXPECT_EQ(weights("gaussian:9", io::PixelType::U8), (std::vector<std::int32_t>{4, 13, 30, 51, 60, 51, 30, 13, 4}));
    EXPECT_EQ(weights("gaussian:9:2.0", io::PixelType::U8), (std::vector<std::int32_t>{7, 17, 32, 46, 52, 46, 32, 17, 7}));
    // 16 bits: 0.02763055 * 65536 = 1810.8 rounds to 1811, its error carried inwards.
    const auto w16 = weights("gaussian:9:2.0", io::PixelType::U16);
    EXPECT_EQ(w16, (std::vector<std::int32_t>{1811, 4344, 8115, 11808, 13380, 11808, 8115, 4344, 1811}));
    EXPECT_EQ(std::accumulate(w16.begin(), w16.end(), 0), 65536);
    EXPECT_EQ(planInteger(parseOperation("gaussian:9:2.0"), io::PixelType::U16).divisor, std::int64_t(1) << 32);
    // 3x3 Gaussians are one 2-D mask: the outer product of the factors over 2^16.
    const IntegerPlan g3 = planInteger(parseOperation("gaussian:3"), io::PixelType::U8);
    ASSERT_EQ(g3.masks.size(), 1u);
    EXPECT_EQ(g3.masks[0], (std::vector<std::int32_t>{4096, 8192, 4096, 8192, 16384, 8192, 4096, 8192, 4096}));
    EXPECT_EQ(g3.divisor, 65536);
}

// ---- the device against the reference ----

TEST(FilterDevice, EveryOperationOn8BitGreyEqualsReference) {
    const io::Image img = testImage(61, 47, 1, io::PixelType::U8);
    for (const auto& s : kEveryOperation) compare(img, {s}, Options{}, 1e-5);
}

TEST(FilterDevice, EveryBorderModeEqualsReference) {
    const io::Image img = testImage(37, 29, 1, io::PixelType::U8, 3);
    for (Border b : {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap}) {
        Options o;
        o.border = b;
        o.borderValue = 200;
        compare(img, {"box:5"}, o);                                  // separable
        compare(img, {"conv:1,0,2,0,1;0,3,0,3,0;2,0,-9,0,2"}, o);    // 5x3, 2-D
        compare(img, {"median:5"}, o);
        compare(img, {"rotating:5"}, o);
    }
}

TEST(FilterDevice, SixteenBitColourEqualsReference) {
    const io::Image img = testImage(45, 38, 4, io::PixelType::U16, 5);  // RGBA: alpha passes through
    for (const auto& s : {"gaussian:7:1.5", "sobel:l2", "median:5", "median:15", "rotating:3", "rotating:5", "rotating:15", "threshold:5:3000", "box:9"})
        compare(img, {s}, Options{});
}

TEST(FilterDevice, PipelineWithGreyConversionEqualsReference) {
    const io::Image img = testImage(64, 48, 3, io::PixelType::U8, 9);
    compare(img, {"grey", "median:3", "sobel"}, Options{});
    compare(img, {"grey:floor", "gaussian:5", "laplace:8"}, Options{});
    compare(img, {"box:3", "float", "sobel:x"}, Options{}, 1e-6);  // signed float gradient
}

TEST(FilterDevice, ImagesOfEverySizeThroughOnePipelineEqualReference) {
    // A batch member keeps its pipeline, and the pipeline its plane buffers and pinned staging, from
    // one image to the next: smaller, larger, more and fewer channels, 8 and 16 bits, float, each as
    // if it came alone; planes of more than one 4 MiB staging chunk, through the chunks
    // (staged_transfers = 1, GPUs' default) and straight from the image's memory (0).
    for (int staged : {1, 0}) {
        Options o;
        o.tuning["staged_transfers"] = staged;
        const std::vector<Operation> ops = parse({"box:3", "sobel"});
        Pipeline p(test::context(), ops, o);
        const std::vector<io::Image> images = {testImage(1531, 1409, 1, io::PixelType::U16, 21), testImage(61, 47, 4, io::PixelType::U8, 22),
                                               testImage(2203, 1907, 1, io::PixelType::U8, 23), testImage(1500, 1451, 3, io::PixelType::U16, 24),
                                               testImage(17, 9, 2, io::PixelType::U8, 25), testImage(61, 47, 4, io::PixelType::U8, 26),
                                               testImage(61, 47, 4, io::PixelType::U8, 28)};  // the same size again
        io::Image recycled;  // one output image filled again and again, as a batch's are
        for (const io::Image& img : images) {
            const std::string what = "staged " + std::to_string(staged) + ", " + std::to_string(img.width) + "x" +
                                     std::to_string(img.height) + "x" + std::to_string(img.channels);
            const io::Image want = filterReference(img, ops, o);
            expectMatch(p.run(img), want, 0, what);
            p.run(img, recycled);
            expectMatch(recycled, want, 0, what + ", into the last image's memory");
        }
        Options f = o;
        f.border = Border::Reflect;
        const std::vector<Operation> floatOps = parse({"gaussian:5", "laplace:4"});
        Pipeline pf(test::context(), floatOps, f);
        const io::Image img = testImage(1100, 1003, 2, io::PixelType::F32, 27);
        expectMatch(pf.run(img), filterReference(img, floatOps, f), 1e-5, "staged " + std::to_string(staged) + ", float grey and alpha");
    }
}

void floatOps(Precision p, double tol) {
    const io::Image img = testImage(53, 39, 1, io::PixelType::F32, 11);
    Options o;
    o.precision = p;
    o.border = Border::Reflect;
    for (const auto& s : {"conv:0.1,0.7,-0.2;0.3,0.2,0.1;0.05,0.5,0.25", "gaussian:9:2.0", "box:5", "median:5", "median:9", "sobel:l2",
                          "sobel:dir", "threshold:3:0.05", "rotating:3", "rotating:5", "rotating:7", "rotating:15", "compass:kirsch", "laplace:4:5"})
        compare(img, {s}, o, tol);
}

TEST(FilterDevice, FloatImagesInFloatWithinTolerance) { floatOps(Precision::Float, 1e-5); }

TEST(FilterDevice, FloatImagesInDoubleWithinTolerance) {
    if (!test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    floatOps(Precision::Double, 1e-6);  // stored as float: the double sums round once to float
}

// ---- bad operations and inputs ----

TEST(FilterErrors, BadOperationsAreOneSentence) {
    for (const std::string s : {"median:4", "box:x", "gaussian:5:abc", "conv:1,2;3,4", "conv:1,a,1", "unknown:3", "median:17",
                                "sobel:l3", "laplace:6", "conv:/nonexistent/mask.txt", "conv:1,-1,0:sum", "threshold:3"}) {
        try {
            parseOperation(s);
            ADD_FAILURE() << s << " was accepted";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
            EXPECT_EQ(m.back(), '.') << m;
        }
    }
}

// Windows larger than the image are computed as OpenCV does (the border rule applied as often as it
// takes; FilterCli's small-image tests hold the results to the reference); colour to grey needs colour.
TEST(FilterErrors, GreyOfOneChannelIsRefusedLargeWindowsAreNot) {
    const io::Image img = testImage(8, 6, 1, io::PixelType::U8);
    EXPECT_NO_THROW(validate(img, parse({"box:7"})));
    EXPECT_NO_THROW(validate(img, parse({"rotating:5"})));  // a 9x9 neighbourhood
    EXPECT_THROW(validate(img, parse({"grey"})), Error);  // one channel
}

// Medians of large 8-bit windows from histograms (cl/filter_median.cl) held to the serial reference,
// bit for bit: the three kernels (method 1, the CPU profiles' segments with column histograms; method
// 2, the portable column walk; method 3, the GPU tiles of column histograms), forced through
// Options::tuning on the test device, in work-groups of 16 unless a test says otherwise; windows 3 to
// 15; every border; images narrower and shorter than the window, widths that are not a multiple of a
// segment or of a work-group, bands that do not divide the image, colour planes; float and double
// builds (8-bit results are integers: the same bytes in both). A GPU tile that does not fit the
// device's local memory is refused in one sentence.
#include <gtest/gtest.h>

#include <algorithm>

#include "filter/median_histogram.hpp"
#include "portacl/filter.hpp"
#include "support/filter_images.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

struct Layout {
    int method = 1, segment = 32, band = 5, group = 16;
};

Options histogramOptions(const Layout& l, Border b, Precision p) {
    Options o;
    o.border = b;
    o.borderValue = 200;
    o.precision = p;
    o.tuning = {{"median_histogram", l.method}, {"median_histogram_min", 3},       {"median_histogram_segment", l.segment},
                {"median_histogram_band", l.band}, {"median_histogram_group", l.group}};
    return o;
}

void expectEqualReference(const io::Image& img, int k, const Layout& l, Border b, Precision p = Precision::Float) {
    if (p == Precision::Double && !test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    // Mesa 22.3's rusticl computes the segment and column kernels wrongly in work-groups of one
    // (docs/portability.md; its profile sends no median there).
    if (l.group == 1 && l.method != 3 && test::testDeviceIsRusticl())
        GTEST_SKIP() << "rusticl's fault with the histograms in work-groups of one (docs/portability.md)";
    const std::vector<Operation> ops{parseOperation("median:" + std::to_string(k))};
    const Options o = histogramOptions(l, b, p);
    MedianHistogramLayout ml;
    ml.method = l.method;
    ml.minWindow = 3;
    ml.segment = l.segment;
    ml.band = l.band;
    ml.group = l.group;
    ASSERT_FALSE(medianHistogramKernel(ops[0], io::PixelType::U8, b, ml).name.empty()) << "median " << k << " does not take the histograms";
    Pipeline pipe(test::context(), ops, o);
    const io::Image got = pipe.run(img), want = filterReference(img, ops, o);
    const test::ByteDifference diff = test::compareBytes(got, want);
    EXPECT_EQ(diff.count, 0u) << "median " << k << " method " << l.method << " border " << borderName(b) << " image " << img.width << "x"
                              << img.height << "x" << img.channels << ", segments of " << l.segment << ", bands of " << l.band << ": "
                              << diff.first;
}

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap};

}  // namespace

TEST(FilterMedianHistogram, EveryWindowEqualsReference) {
    // Odd sizes: the last segment and work-group partial, the last band short.
    const io::Image img = test::noiseImage(71, 37, 1, 21);
    for (int method : {1, 2, 3})
        for (int k = 3; k <= 15; k += 2) expectEqualReference(img, k, Layout{method}, Border::Reflect101);
}

TEST(FilterMedianHistogram, EveryBorderEqualsReference) {
    const io::Image img = test::noiseImage(45, 29, 1, 22);
    for (int method : {1, 2, 3})
        for (Border b : kBorders)
            for (int k : {7, 15}) expectEqualReference(img, k, Layout{method, 16, 7, 8}, b);
}

TEST(FilterMedianHistogram, ImagesSmallerThanTheWindowEqualReference) {
    // Narrower and shorter than the window (the border rule applied more than once), a single row and
    // a single column, under every border.
    for (int method : {1, 2, 3})
        for (Border b : kBorders) {
            expectEqualReference(test::noiseImage(5, 4, 1, 23), 9, Layout{method}, b);
            expectEqualReference(test::noiseImage(13, 1, 1, 24), 15, Layout{method}, b);
            expectEqualReference(test::noiseImage(1, 6, 1, 25), 7, Layout{method, 1, 1, 1}, b);
        }
}

TEST(FilterMedianHistogram, LayoutsEqualReference) {
    // One segment wider than the image, segments of one column, bands of one row and one band for the
    // whole image; work-groups of one (the CPU profiles' for method 1; Mesa 22.3's rusticl gets them
    // wrong, docs/portability.md) and wider than the image; flat images (every count in one bin).
    const io::Image img = test::noiseImage(50, 23, 1, 26);
    expectEqualReference(img, 9, Layout{1, 64, 1}, Border::Reflect101);
    expectEqualReference(img, 9, Layout{1, 1, 64}, Border::Replicate);
    expectEqualReference(img, 9, Layout{1, 7, 6, 1}, Border::Reflect);
    expectEqualReference(img, 11, Layout{2, 1, 64, 1}, Border::Wrap);
    expectEqualReference(img, 11, Layout{2, 1, 1, 64}, Border::Reflect);
    expectEqualReference(img, 11, Layout{3, 1, 64, 1}, Border::Wrap);      // tiles of one column
    expectEqualReference(img, 13, Layout{3, 1, 1, 64}, Border::Reflect);   // a tile wider than the image
    expectEqualReference(img, 15, Layout{3, 1, 3, 24}, Border::Replicate); // tiles and bands that do not divide it
    // Widths and heights that are multiples of the segment or work-group and of the band.
    for (int method : {1, 2, 3}) expectEqualReference(test::noiseImage(64, 30, 1, 29), 9, Layout{method, 32, 10, 16}, Border::Wrap);
    io::Image flat = io::makeImage(40, 20, 1, io::PixelType::U8);
    for (std::size_t i = 0; i < flat.data.size(); ++i) flat.data[i] = static_cast<unsigned char>(i < 400 ? 255 : 0);
    for (int method : {1, 2, 3}) expectEqualReference(flat, 15, Layout{method}, Border::Constant);
}

TEST(FilterMedianHistogram, ColourPlanesAndDoubleBuildsEqualReference) {
    for (int method : {1, 2, 3}) {
        expectEqualReference(test::noiseImage(39, 21, 4, 27), 9, Layout{method}, Border::Constant);
        expectEqualReference(test::noiseImage(67, 19, 1, 28), 13, Layout{method}, Border::Reflect101, Precision::Double);
    }
}

// A pipeline whose profile asks for `l` is refused when it is made, in one sentence.
void expectRefusedInOneSentence(const Layout& l) {
    try {
        Pipeline pipe(test::context(), {parseOperation("median:9")}, histogramOptions(l, Border::Reflect101, Precision::Float));
        ADD_FAILURE() << "method " << l.method << " in work-groups of " << l.group << " was accepted";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("not a layout this device can run"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        EXPECT_EQ(m.back(), '.') << m;
    }
}

TEST(FilterMedianHistogram, TilesThatDoNotFitLocalMemoryAreRefused) {
    // Method 3 takes 272 bytes of local memory for each column of its tile and of the 15x15 window's
    // 7 columns either side, whatever the window: one layout serves them all.
    MedianHistogramLayout l;
    l.method = 3;
    l.group = 64;
    EXPECT_EQ(l.localBytes(), 78u * 272u);
    EXPECT_TRUE(l.fits(1024, 48 * 1024));    // NVIDIA's 48 KiB
    l.group = 256;
    EXPECT_FALSE(l.fits(1024, 48 * 1024));   // 73 KB
    EXPECT_TRUE(l.fits(1024, 256 * 1024));
    EXPECT_FALSE(l.fits(128, 256 * 1024));   // more work-items than the device takes
    l.group = 166;                           // 180 columns: 48,960 bytes, under 48 KiB by less than a column
    EXPECT_TRUE(l.fits(1024, 48 * 1024));
    l.group = 167;
    EXPECT_FALSE(l.fits(1024, 48 * 1024));
    l.method = 2;
    EXPECT_EQ(l.localBytes(), 167u * 272u);
    l.method = 1;
    EXPECT_EQ(l.localBytes(), 0u);
    // On the test device: work-groups over 1024 on every device; the widest it takes, where that
    // tile does not fit its local memory (Intel's CPU runtime, 256 KiB; NVIDIA's, 48 KiB).
    expectRefusedInOneSentence(Layout{3, 1, 32, 2048});
    const DeviceInfo& dev = test::context().device();
    const int widest = static_cast<int>(std::min<std::size_t>(dev.maxWorkGroupSize, 1024));
    if ((widest + 14u) * 272u > dev.localMemBytes) expectRefusedInOneSentence(Layout{3, 1, 32, widest});
}

TEST(FilterMedianHistogram, TakesOnlyLargeEightBitMedians) {
    MedianHistogramLayout l;
    const auto name = [&](const std::string& spec, io::PixelType t = io::PixelType::U8) {
        return medianHistogramKernel(parseOperation(spec), t, Border::Reflect101, l).name;
    };
    EXPECT_EQ(name("median:9"), "");  // method 0: off
    l.method = 1;
    l.group = 1;  // the pipeline's default for method 1
    EXPECT_EQ(name("median:9"), "median_histogram_segment");
    EXPECT_EQ(name("median:7"), "median_histogram_segment");
    EXPECT_EQ(name("median:5"), "");  // under minWindow
    EXPECT_EQ(name("median:9", io::PixelType::U16), "");
    EXPECT_EQ(name("median:9", io::PixelType::F32), "");
    EXPECT_EQ(name("box:9"), "");
    l.method = 2;
    EXPECT_EQ(name("median:15"), "median_histogram_column");
    l.method = 1;
    l.segment = 2048;  // 0.56 MB of private histograms a work-item
    EXPECT_EQ(name("median:9"), "median_histogram_segment");
    l.group = 4;  // 2.2 MB a work-group, on one CPU thread's stack: refused (it crashed PoCL)
    EXPECT_FALSE(l.valid());
    EXPECT_EQ(name("median:9"), "");
    l.segment = 256;
    l.group = 1;
    l.method = 3;
    EXPECT_EQ(name("median:15"), "median_histogram_tile");
    l.method = 4;
    EXPECT_FALSE(l.valid());
    EXPECT_EQ(name("median:9"), "");
    l.method = 1;
    EXPECT_EQ(l.bandFor(4096, 2), 512);
    EXPECT_EQ(l.bandFor(40, 2), 24);
    l.method = 2;
    EXPECT_EQ(l.bandFor(4096, 2), 24);
}

// The row-band path of 8-bit planes (cl/filter_rows.cl, the CPU profiles' choice) held to the serial
// reference, exactly: every kind of operation it takes (2-D masks in 16- and 32-bit lanes, rank-1
// masks and 1-D passes, fixed-point rank-1 masks with their column sums estimated in float or in double, OpenCV's integer Gaussians, both medians), every
// border mode, vectors of 16, 32 and 64 bytes, bands and segments that do not divide the image (so
// work-items meet at band and segment edges and the last chunk of a row overlaps the one before),
// images one vector wide and barely taller than the window's radius, colour planes, and a build in
// double as well as float (8-bit results are integers: the same bytes in both). The layouts come in through Options::tuning, so the test needs no profile file.
#include <gtest/gtest.h>


#include "filter/rows.hpp"
#include "portacl/filter.hpp"
#include "support/filter_images.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

// The bench's 9x9 user mask (not rank 1), divided by its sum.
const std::string kFilter2D =
    "conv:1,3,5,2,4,1,3,5,2;4,1,3,5,2,4,1,3,5;2,4,1,3,5,2,4,1,3;5,2,4,1,3,5,2,4,1;3,5,2,4,1,3,5,2,4;1,3,5,2,4,1,3,5,2;"
    "4,1,3,5,2,4,1,3,5;2,4,1,3,5,2,4,1,3;5,2,4,1,3,5,2,4,1:sum";
const std::string kColumn = "conv:1;8;28;56;70;56;28;8;1:sum";
const std::string kSignedMask = "conv:1,0,2,0,1;0,3,0,3,0;2,0,-9,0,2;0,3,0,3,0;1,0,2,0,1";  // 32-bit lanes, negative sums

struct Layout {
    int vector = 16, band = 7, segmentVectors = 2;
    int estimate = 1;  // cpu_rows_estimate
    int walkSegment = 0;  // cpu_rows_walk_segment
};

// Whether the test device's compiler takes vectors over 16 bytes (its profile says so).
bool extendedVectors() { return test::context().tuning().getInt("filter", "cpu_rows_extended_vectors", 0) != 0; }

Options rowsOptions(const Layout& l, Border b, Precision p) {
    Options o;
    o.border = b;
    o.borderValue = 200;
    o.precision = p;
    o.tuning = {{"cpu_rows", 1},
                {"cpu_rows_band", l.band},
                {"cpu_rows_median3_band", l.band},
                {"cpu_rows_segment", l.vector * l.segmentVectors},
                {"cpu_rows_median_vector", l.vector},
                {"cpu_rows_linear_vector", l.vector},
                {"cpu_rows_row_vector", l.vector},
                {"cpu_rows_double_vector", l.vector},
                {"cpu_rows_estimate", l.estimate},
                {"cpu_rows_walk_segment", l.walkSegment},
                {"cpu_rows_extended_vectors", extendedVectors() ? 1 : 0}};
    return o;
}

void expectRowsEqualReference(const io::Image& img, const std::string& spec, const Layout& l, Border b, Precision p = Precision::Float) {
    if (p == Precision::Double && !test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    if (l.vector > 16 && !extendedVectors()) GTEST_SKIP() << "the test device's compiler takes no vectors over 16 bytes";
    const std::vector<Operation> ops{parseOperation(spec)};
    RowsLayout rl{l.band, l.band, l.vector * l.segmentVectors, l.vector, l.vector, l.vector, l.vector};
    rl.estimate = l.estimate;
    rl.walkSegment = l.walkSegment;
    rl.extendedVectors = extendedVectors();
    const bool fp64 = test::context().device().fp64;
    if (!fp64 && rowsDefines(ops[0], io::PixelType::U8, img.width, img.height, b, rl, true).size() > 0 &&
        rowsDefines(ops[0], io::PixelType::U8, img.width, img.height, b, rl, false).empty())
        GTEST_SKIP() << spec << " takes the row-band path only on devices with fp64 (its exact column sums are in double)";
    ASSERT_FALSE(rowsDefines(ops[0], io::PixelType::U8, img.width, img.height, b, rl, fp64).empty())
        << spec << " does not take the row-band path on " << img.width << "x" << img.height;
    const Options o = rowsOptions(l, b, p);
    Pipeline pipe(test::context(), ops, o);
    const io::Image got = pipe.run(img), want = filterReference(img, ops, o);
    const test::ByteDifference diff = test::compareBytes(got, want);
    EXPECT_EQ(diff.count, 0u) << spec << " border " << borderName(b) << " image " << img.width << "x" << img.height << "x" << img.channels
                       << " vectors of " << l.vector << ", bands of " << l.band << ": " << diff.first;
}

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap};

}  // namespace

// (Each test reuses the programs of the ones before where it can: band and segment are kernel
// arguments, so only the operation, the border, the vector and the precision make a new program.)
TEST(FilterRows, EveryKindOfOperationEqualsReference) {
    const io::Image img = test::noiseImage(131, 45, 1, 1);
    for (const std::string spec : {kFilter2D, kSignedMask, kColumn, std::string("box:9"), std::string("gaussian:9:2.0"), std::string("median:3"),
                                   std::string("median:5")})
        expectRowsEqualReference(img, spec, Layout{}, Border::Reflect101);
}

TEST(FilterRows, EveryBorderEqualsReference) {
    const io::Image img = test::noiseImage(83, 29, 1, 2);
    for (Border b : kBorders) expectRowsEqualReference(img, "box:5", Layout{16, 5, 1}, b);
    expectRowsEqualReference(img, "median:5", Layout{16, 5, 1}, Border::Constant);
}

TEST(FilterRows, WideVectorsEqualReference) {
    expectRowsEqualReference(test::noiseImage(141, 23, 1, 3), "median:3", Layout{64, 6, 1}, Border::Reflect101);
    expectRowsEqualReference(test::noiseImage(141, 23, 1, 4), "median:5", Layout{64, 6, 1}, Border::Reflect101);
    expectRowsEqualReference(test::noiseImage(77, 23, 1, 5), kFilter2D, Layout{32, 6, 1}, Border::Reflect101);
}

TEST(FilterRows, SmallImagesEqualReference) {
    // One vector wide; as tall as the window's radius plus one (a 9-tap column on 5 rows, a 5x5 median
    // on 3); one band holding the whole image, and bands of one row.
    expectRowsEqualReference(test::noiseImage(16, 5, 1, 6), kColumn, Layout{16, 64, 4}, Border::Reflect101);
    expectRowsEqualReference(test::noiseImage(16, 3, 1, 7), "median:5", Layout{16, 64, 4}, Border::Constant);
    expectRowsEqualReference(test::noiseImage(17, 9, 1, 8), "gaussian:9:2.0", Layout{16, 1, 1}, Border::Reflect101);
}

TEST(FilterRows, ColourPlanesEqualReference) {
    expectRowsEqualReference(test::noiseImage(70, 21, 4, 9), "median:5", Layout{16, 4, 1}, Border::Constant);
    expectRowsEqualReference(test::noiseImage(70, 21, 3, 10), kFilter2D, Layout{16, 4, 1}, Border::Reflect101);
}

TEST(FilterRows, DoubleBuildsEqualReference) {
    expectRowsEqualReference(test::noiseImage(67, 19, 1, 11), "median:3", Layout{16, 4, 2}, Border::Reflect101, Precision::Double);
}

// A rank-1 mask of decimal weights, one of them negative: fixed point with wide column sums, which
// the float estimate does not take (its error bound needs non-negative terms).
std::string signedSeparable() { return test::rank1ConvSpec({1, 2, 3, 2, 1}, {0.5, -1.25, 2.75, -1.25, 0.5}, ":sum"); }

TEST(FilterRows, FixedPointEstimateEqualsReference) {
    // Fixed-point rank-1 masks (decimal weights): the column sums estimated in float with the exact sums in double where an
    // estimate lies near a rounding boundary (estimate 1), and every vector through the exact sums
    // (2); odd sizes, float and double builds, 16- and 32-byte vectors. (The double sums alone, 0, are
    // the signed mask's path below.)
    const io::Image img = test::noiseImage(97, 41, 1, 12);
    const std::string decimal = test::decimalRank1Mask();
    for (Precision p : {Precision::Float, Precision::Double}) expectRowsEqualReference(img, decimal, Layout{16, 7, 2, 1}, Border::Reflect101, p);
    expectRowsEqualReference(img, decimal, Layout{16, 7, 2, 2}, Border::Reflect101);
    // OpenCV's integer Gaussians (32-bit sums), odd sizes and borders.
    expectRowsEqualReference(test::noiseImage(53, 31, 1, 13), "gaussian:7:1.3", Layout{32, 5, 1, 1}, Border::Constant);
    expectRowsEqualReference(test::noiseImage(53, 31, 3, 14), "gaussian:5:0.8", Layout{16, 5, 1, 1}, Border::Wrap);
    expectRowsEqualReference(test::noiseImage(61, 27, 1, 15), signedSeparable(), Layout{16, 5, 1, 1}, Border::Reflect);
}

TEST(FilterRows, WalksAlongTheRowsEqualReference) {
    // Rank-1 masks walked along the rows (HWALK): segments of 2 vectors (the last one partial and
    // overlapping the one before) and one segment wider than the image; box masks (the column sums
    // sliding), a fixed-point mask's estimate and its exact sums, a column, a row, the signed mask's double
    // sums; odd sizes, every border among them, float and double builds.
    const io::Image img = test::noiseImage(97, 41, 1, 16);
    const auto walk = [](int vector, int segment, int estimate = 1) { return Layout{vector, 5, 2, estimate, segment}; };
    expectRowsEqualReference(img, "box:9", walk(16, 32), Border::Reflect101);
    expectRowsEqualReference(img, "box:5", walk(32, 224), Border::Wrap);
    for (Precision p : {Precision::Float, Precision::Double}) expectRowsEqualReference(img, test::decimalRank1Mask(), walk(16, 32), Border::Constant, p);
    expectRowsEqualReference(img, test::decimalRank1Mask(), walk(16, 112, 2), Border::Reflect);
    expectRowsEqualReference(img, "gaussian:9:2.0", walk(16, 32), Border::Wrap);
    expectRowsEqualReference(img, kColumn, walk(32, 64), Border::Replicate);
    expectRowsEqualReference(test::noiseImage(61, 23, 3, 17), "conv:1,2,3,4,3,2,1:sum", walk(16, 48), Border::Reflect101);
    expectRowsEqualReference(img, signedSeparable(), walk(16, 32), Border::Reflect101);
}

TEST(FilterRows, PathTakesOnlyWhatItCovers) {
    const RowsLayout l;
    const auto takes = [&](const std::string& spec, io::PixelType t = io::PixelType::U8, int w = 256, int h = 256, bool fp64 = true) {
        return rowsDefines(parseOperation(spec), t, w, h, Border::Reflect101, l, fp64);
    };
    // 16-bit lanes where every sum fits, 32-bit where it does not or a weight is negative, double
    // column sums for fixed-point rank-1 masks past 32 bits (only with fp64).
    const std::string decimal = test::decimalRank1Mask();
    EXPECT_NE(takes(kFilter2D).find("ACC=0"), std::string::npos);
    EXPECT_NE(takes(kColumn).find("ACC=0"), std::string::npos);
    EXPECT_NE(takes(kSignedMask).find("ACC=1"), std::string::npos);
    EXPECT_NE(takes(decimal).find("ACC=3"), std::string::npos);  // non-negative weights: the float estimate
    EXPECT_NE(takes("gaussian:9:2.0").find("ACC=1"), std::string::npos);  // OpenCV's integers: 32-bit sums
    EXPECT_NE(takes(signedSeparable()).find("ACC=2"), std::string::npos);
    RowsLayout exact;
    exact.estimate = 0;
    EXPECT_NE(rowsDefines(parseOperation(decimal), io::PixelType::U8, 256, 256, Border::Reflect101, exact, true).find("ACC=2"), std::string::npos);
    EXPECT_EQ(takes(decimal, io::PixelType::U8, 256, 256, false), "");
    // Not taken: other depths, two masks, masks over 9 taps, medians other than 3x3 and 5x5, images
    // narrower than a vector or not taller than the window's radius, a bad layout.
    EXPECT_EQ(takes("median:3", io::PixelType::U16), "");
    EXPECT_EQ(takes("sobel"), "");
    EXPECT_EQ(takes("box:11"), "");
    EXPECT_EQ(takes("median:7"), "");
    EXPECT_EQ(takes("median:3", io::PixelType::U8, 15, 256), "");
    EXPECT_EQ(takes(kColumn, io::PixelType::U8, 256, 4), "");
    EXPECT_EQ(rowsDefines(parseOperation("median:3"), io::PixelType::U8, 256, 256, Border::Reflect101, RowsLayout{64, 8, 40, 16, 16, 16, 16}, true), "");
    // The walk along the rows: rank-1 masks only, and segments that are a multiple of every vector.
    RowsLayout walking;
    walking.walkSegment = 4096;
    EXPECT_NE(rowsDefines(parseOperation("box:9"), io::PixelType::U8, 256, 256, Border::Reflect101, walking, true).find("HWALK=1"), std::string::npos);
    EXPECT_EQ(rowsDefines(parseOperation(kFilter2D), io::PixelType::U8, 256, 256, Border::Reflect101, walking, true).find("HWALK"), std::string::npos);
    EXPECT_EQ(rowsDefines(parseOperation("median:5"), io::PixelType::U8, 256, 256, Border::Reflect101, walking, true).find("HWALK"), std::string::npos);
    walking.walkSegment = 40;
    EXPECT_EQ(rowsDefines(parseOperation("box:9"), io::PixelType::U8, 256, 256, Border::Reflect101, walking, true), "");
    EXPECT_EQ(walking.walkBandFor(4096, 2), 512);
    EXPECT_EQ(walking.walkBandFor(40, 2), 24);
}

TEST(FilterRows, BandsGrowToTheWindowBytes) {
    RowsLayout l;
    l.windowBytes = 98304;
    const Operation gaussian = parseOperation("gaussian:9:2.0"), median3 = parseOperation("median:3");
    EXPECT_EQ(l.bandFor(gaussian, 2048, 2048, 2), 40);  // 48 rows of 2048 bytes span 96 KiB, 8 of them the window's
    EXPECT_EQ(l.bandFor(gaussian, 4096, 4096, 2), 24);  // never below `band`
    EXPECT_EQ(l.bandFor(gaussian, 2048, 2048, 64), 24);  // 4 bands per compute unit would leave 8 rows each
    EXPECT_EQ(l.bandFor(median3, 2048, 2048, 2), 8);
    l.windowBytes = 0;
    EXPECT_EQ(l.bandFor(gaussian, 2048, 2048, 2), 24);
}

TEST(FilterRows, WideVectorsOnlyWhereTheProfileSaysTheCompilerTakesThem) {
    // Vectors of 32 and 64 bytes are clang's extended vectors: a layout asking for them is refused
    // unless cpu_rows_extended_vectors = 1 (PoCL's and Intel's profiles), with one sentence before any build.
    RowsLayout l;
    l.medianVector = 32;
    EXPECT_FALSE(l.valid());
    l.extendedVectors = true;
    EXPECT_TRUE(l.valid());
    Options o = rowsOptions(Layout{32, 6, 1}, Border::Reflect101, Precision::Float);
    o.tuning["cpu_rows_extended_vectors"] = 0;
    try {
        Pipeline pipe(test::context(), {parseOperation("median:3")}, o);
        FAIL() << "a layout of 32-byte vectors without extended vectors was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cpu_rows_extended_vectors"), std::string::npos) << e.what();
    }
}

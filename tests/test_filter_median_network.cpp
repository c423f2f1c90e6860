// Medians by a tile's shared selection network (host/filter/median_network.cpp, cl/filter_median_network.cl).
// The network alone, with and without its columns' shared rows given sorted: every output of every
// tile equals the middle of its window sorted (std::sort),
// windows 3 to 15, random bytes and few distinct values (ties). On the test device, forced through
// Options::tuning: the serial reference bit for bit at odd sizes (partial work-groups and tiles) and
// at widths that are multiples of 4,
// every border, images smaller than the window, tiles and work-groups of several shapes, colour
// planes, float and double builds. A layout the device cannot run is refused in one sentence.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "filter/median_network.hpp"
#include "portacl/filter.hpp"
#include "support/filter_images.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

struct Layout {
    int tileX = 4, tileY = 2, groupX = 8, groupY = 4;
    int sortedColumns = 0;
    int largeTileX = 0;  // the tile's width from 13 x 13 (0: tileX)
};

Options networkOptions(const Layout& l, Border b, Precision p, int maxWindow = 15) {
    Options o;
    o.border = b;
    o.borderValue = 200;
    o.precision = p;
    o.tuning = {{"median_network", 1},           {"median_network_min", 3},          {"median_network_max", maxWindow},
                {"median_network_tile_x", l.tileX}, {"median_network_tile_y", l.tileY}, {"median_network_group_x", l.groupX},
                {"median_network_group_y", l.groupY}, {"median_network_sorted_columns", l.sortedColumns},
                {"median_network_tile_x_large", l.largeTileX}};
    return o;
}

void expectEqualReference(const io::Image& img, int k, const Layout& l, Border b, Precision p = Precision::Float) {
    if (p == Precision::Double && !test::hasFp64()) GTEST_SKIP() << "the test device has no fp64";
    const std::vector<Operation> ops{parseOperation("median:" + std::to_string(k))};
    const Options o = networkOptions(l, b, p);
    Pipeline pipe(test::context(), ops, o);
    const io::Image got = pipe.run(img), want = filterReference(img, ops, o);
    const test::ByteDifference diff = test::compareBytes(got, want);
    EXPECT_EQ(diff.count, 0u) << "median " << k << " border " << borderName(b) << " image " << img.width << "x" << img.height << "x"
                              << img.channels << ", tiles of " << l.tileX << "x" << l.tileY << ", work-groups of " << l.groupX << "x"
                              << l.groupY << (l.sortedColumns ? ", sorted columns" : "")
                              << (l.largeTileX ? ", tiles " + std::to_string(l.largeTileX) + " wide from 13x13" : std::string()) << ": "
                              << diff.first;
}

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap};

}  // namespace

TEST(MedianNetwork, EveryTileEqualsSortedWindows) {
    std::mt19937 rng(7);
    const std::pair<int, int> tiles[] = {{1, 1}, {2, 1}, {1, 3}, {4, 2}, {3, 3}, {8, 2}, {4, 4}, {16, 2}};
    for (int k = 3; k <= 15; k += 2)
        for (const auto& [tx, ty] : tiles)
            for (bool sortedColumns : {false, true}) {
            if (sortedColumns && ty > k) continue;  // no rows that every output row shares
            const MedianNetwork net = buildMedianNetwork(k, tx, ty, sortedColumns);
            for (int trial = 0; trial < 40; ++trial) {
                std::vector<std::uint16_t> patch(net.cells());
                const unsigned range = trial % 4 == 0 ? 2u : trial % 4 == 1 ? 5u : 256u;
                for (auto& v : patch) v = static_cast<std::uint16_t>(rng() % range);
                const std::vector<std::uint16_t> got = net.evaluate(patch);
                for (int y = 0; y < ty; ++y)
                    for (int x = 0; x < tx; ++x) {
                        std::vector<std::uint16_t> window;
                        for (int r = 0; r < k; ++r)
                            for (int c = 0; c < k; ++c) window.push_back(patch[(y + r) * net.patchWidth() + x + c]);
                        std::sort(window.begin(), window.end());
                        ASSERT_EQ(got[y * tx + x], window[window.size() / 2]) << k << "x" << k << " tile " << tx << "x" << ty << " output (" << x << ", " << y << ")"
                                                                              << (sortedColumns ? ", sorted columns" : "");
                    }
            }
            }
}

TEST(MedianNetwork, SharingCutsTheWork) {
    // The tree shares the overlap: a 4x2 tile of 9x9 medians takes well under half the min and max
    // operations per output of medians computed one by one (1270 for a lone 9x9 window).
    EXPECT_EQ(buildMedianNetwork(9, 1, 1).operations(), 1270u);
    EXPECT_LT(buildMedianNetwork(9, 4, 2).operationsPerOutput(), 1270.0 / 4);
    EXPECT_LT(buildMedianNetwork(7, 4, 2).operationsPerOutput(), buildMedianNetwork(7, 1, 1).operationsPerOutput() / 3);
}

TEST(MedianNetwork, EveryWindowEqualsReference) {
    // Odd sizes: the last work-group's tiles partly outside the image.
    const io::Image img = test::noiseImage(71, 37, 1, 31);
    for (int k = 3; k <= 11; k += 2) expectEqualReference(img, k, Layout{}, Border::Reflect101);
    // The columns' shared rows sorted once a work-group.
    for (int k : {3, 7, 9, 11}) expectEqualReference(img, k, Layout{4, 2, 8, 4, 1}, Border::Reflect101);
    expectEqualReference(img, 9, Layout{3, 3, 5, 3, 1}, Border::Wrap);
    // Widths that are multiples of 4: tiles partly outside only at the bottom.
    expectEqualReference(test::noiseImage(64, 30, 1, 39), 9, Layout{}, Border::Replicate);
    expectEqualReference(test::noiseImage(68, 30, 1, 40), 7, Layout{}, Border::Reflect);
}

TEST(MedianNetwork, EveryBorderEqualsReference) {
    const io::Image img = test::noiseImage(45, 29, 1, 32);
    for (Border b : kBorders)
        for (int k : {7, 9}) expectEqualReference(img, k, Layout{}, b);
}

TEST(MedianNetwork, ImagesSmallerThanTheWindowEqualReference) {
    for (Border b : kBorders) {
        expectEqualReference(test::noiseImage(5, 4, 1, 33), 9, Layout{}, b);
        expectEqualReference(test::noiseImage(13, 1, 1, 34), 7, Layout{}, b);
        expectEqualReference(test::noiseImage(1, 6, 1, 35), 7, Layout{1, 1, 1, 1}, b);
    }
}

TEST(MedianNetwork, LayoutsEqualReference) {
    const io::Image img = test::noiseImage(50, 23, 1, 36);
    expectEqualReference(img, 9, Layout{1, 1, 16, 2}, Border::Reflect101);
    expectEqualReference(img, 9, Layout{8, 2, 4, 4}, Border::Replicate);
    expectEqualReference(img, 7, Layout{3, 3, 5, 3}, Border::Wrap);
    expectEqualReference(img, 11, Layout{2, 4, 1, 8}, Border::Reflect);
    expectEqualReference(img, 15, Layout{2, 2, 4, 2}, Border::Constant);
    io::Image flat = io::makeImage(40, 20, 1, io::PixelType::U8);
    for (std::size_t i = 0; i < flat.data.size(); ++i) flat.data[i] = static_cast<unsigned char>(i < 400 ? 255 : 0);
    expectEqualReference(flat, 9, Layout{}, Border::Constant);
}

// Windows of 13 x 13 and up in tiles of their own width (median_network_tile_x_large), the smaller
// ones in the other width, in one pipeline's layout.
TEST(MedianNetwork, LargeWindowsInTilesOfTheirOwnWidthEqualReference) {
    const io::Image img = test::noiseImage(45, 29, 1, 39);
    const Layout l{8, 2, 4, 4, 0, 3};
    for (int k : {11, 13, 15}) expectEqualReference(img, k, l, Border::Reflect101);
    MedianNetworkLayout layout;
    layout.tileX = 8, layout.largeTileX = 3;
    EXPECT_EQ(layout.forWindow(11).tileX, 8);
    EXPECT_EQ(layout.forWindow(13).tileX, 3);
    layout.largeTileX = 0;
    EXPECT_EQ(layout.forWindow(15).tileX, 8);
}

TEST(MedianNetwork, ColourPlanesAndDoubleBuildsEqualReference) {
    expectEqualReference(test::noiseImage(39, 21, 4, 37), 9, Layout{}, Border::Constant);
    expectEqualReference(test::noiseImage(67, 19, 1, 38), 7, Layout{}, Border::Reflect101, Precision::Double);
}

TEST(MedianNetwork, TakesOnlyEightBitSquareMediansInItsWindows) {
    MedianNetworkLayout l;
    EXPECT_FALSE(l.takes(parseOperation("median:9"), io::PixelType::U8));  // off by default
    l.enabled = true;
    EXPECT_TRUE(l.takes(parseOperation("median:9"), io::PixelType::U8));
    EXPECT_TRUE(l.takes(parseOperation("median:7"), io::PixelType::U8));
    EXPECT_FALSE(l.takes(parseOperation("median:5"), io::PixelType::U8));  // under minWindow
    EXPECT_FALSE(l.takes(parseOperation("median:13"), io::PixelType::U8)); // over maxWindow
    EXPECT_FALSE(l.takes(parseOperation("median:9"), io::PixelType::U16));
    EXPECT_FALSE(l.takes(parseOperation("box:9"), io::PixelType::U8));
    EXPECT_EQ(l.localBytes(9), (16u * 4 + 8) * (8u * 4 + 8));
}

TEST(MedianNetwork, LayoutsTheDeviceCannotRunAreRefused) {
    // Tiles of more than 32 outputs (a network too long to keep in registers; the large windows' too),
    // and work-groups wider than any device takes.
    for (const Layout& l : {Layout{8, 8, 8, 4}, Layout{4, 2, 1 << 16, 1}, Layout{4, 2, 8, 4, 0, 20}}) {
        try {
            Pipeline pipe(test::context(), {parseOperation("median:9")}, networkOptions(l, Border::Reflect101, Precision::Float));
            ADD_FAILURE() << "tiles of " << l.tileX << "x" << l.tileY << " in work-groups of " << l.groupX << " were accepted";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("not a layout this device can run"), std::string::npos) << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
            EXPECT_EQ(m.back(), '.') << m;
        }
    }
}

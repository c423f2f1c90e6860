// The GPU tile kernels of 8-bit planes (cl/filter_separable_tile.cl, cl/filter_rotating_tile.cl)
// held to the serial reference, exactly: rank-1 masks up to 9x9 (fixed-point decimal masks with long
// and double column sums, OpenCV's integer Gaussians, integer masks with int sums and a divisor that is not a power of two,
// asymmetric factors of both signs, a 9x5 mask) and the rotating mask 3 to 9
// (uint and ulong keys), under every border, at sizes that are and are not multiples of the tile
// and of 4, images narrower and shorter than a tile, and colour planes. The kernels are selected
// through the [filter] keys the NVIDIA profiles set (separable_tile, rotating_tile), in
// Options::tuning, so they run on the test device (PoCL in CI); the same operations with the keys
// off take the register path and the tile kernels, which the other filter suites test.
#include <gtest/gtest.h>

#include "filter/gpu_tiles.hpp"
#include "portacl/filter.hpp"
#include "support/filter_images.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap};

Options tileOptions(Border b, std::map<std::string, long> extra = {}) {
    Options o;
    o.border = b;
    o.borderValue = 200;
    o.tuning = {{"cpu_rows", 0}, {"separable_tile", 1}, {"separable_tile_all", 1}, {"rotating_tile", 1}};
    for (const auto& [k, v] : extra) o.tuning[k] = v;
    return o;
}

// The kernel must take the operation (checked through the same selection the pipeline makes), and
// its bytes must be the reference's.
void expectTileEqualsReference(const io::Image& img, const std::string& spec, Border b, const std::map<std::string, long>& extra = {},
                               const std::string& mustDefine = "") {
    const std::vector<Operation> ops{parseOperation(spec)};
    const Options o = tileOptions(b, extra);
    const auto key = [&](const char* k, int fallback) {
        const auto it = o.tuning.find(k);
        return it == o.tuning.end() ? fallback : static_cast<int>(it->second);
    };
    const DeviceInfo& dev = test::context().device();
    TileKernel tk;
    if (ops[0].kind == Operation::Kind::RotatingMask) {
        RotatingTileLayout l;
        l.groupX = key("rotating_tile_group_x", l.groupX);
        l.groupY = key("rotating_tile_group_y", l.groupY);
        l.tileX = key("rotating_tile_x", l.tileX);
        l.smallTileX = key("rotating_tile_x_small", l.smallTileX);
        l.tileY = key("rotating_tile_y", l.tileY);
        l.walkRows = key("rotating_tile_walk", l.walkRows);
        l.dotsFrom = key("rotating_tile_dot", 0);
        l.dp4a = dev.nvidiaFrom(61);
        tk = rotatingTileKernel(ops[0], io::PixelType::U8, img.width, img.height, b, l, dev.localMemBytes);
    } else {
        SeparableTileLayout l;
        l.groupX = key("separable_tile_group_x", l.groupX);
        l.groupY = key("separable_tile_group_y", l.groupY);
        l.rows = key("separable_tile_rows", l.rows);
        l.everyMask = key("separable_tile_all", 0) != 0;
        l.doubleSums = key("separable_tile_double", 0) != 0;
        tk = separableTileKernel(ops[0], io::PixelType::U8, img.width, img.height, b, l, dev.localMemBytes, dev.fp64);
    }
    ASSERT_FALSE(tk.defines.empty()) << spec << " does not take the GPU tile on " << img.width << "x" << img.height;
    if (!mustDefine.empty()) ASSERT_NE(tk.defines.find(mustDefine), std::string::npos) << spec << ": " << tk.defines;
    Pipeline p(test::context(), ops, o);
    const io::Image got = p.run(img), want = filterReference(img, ops, o);
    const test::ByteDifference diff = test::compareBytes(got, want);
    EXPECT_EQ(diff.count, 0u) << spec << " border " << borderName(b) << " image " << img.width << "x" << img.height << "x" << img.channels
                              << ": " << diff.first;
}

}  // namespace

TEST(FilterGpuTiles, SeparableEveryBorderEqualsReference) {
    // 61 x 37: neither a multiple of 4 nor of a tile (128 x 32 outputs); the second image is whole
    // words and has interior work-groups (the aligned load and store).
    const io::Image odd = test::noiseImage(61, 37, 1, 3), whole = test::noiseImage(264, 72, 1, 5);
    const std::string decimal = test::decimalRank1Mask();
    for (Border b : kBorders) {
        expectTileEqualsReference(odd, decimal, b, {}, "ACC=1");  // fixed point: long column sums, no clamp
        expectTileEqualsReference(odd, "box:9", b, {}, "ACC=0");   // int sums, divisor 81
        expectTileEqualsReference(whole, decimal, b);
        expectTileEqualsReference(whole, "box:9", b);
    }
}

TEST(FilterGpuTiles, SeparableMasksEqualReference) {
    const io::Image img = test::noiseImage(133, 70, 1, 7);
    for (const std::string s : {"gaussian:5", "gaussian:7:1.5", "gaussian:9:2.0", "binomial:9", "box:5",
                                // a rank-1 filter2D: integer factors, divisor 625 (not a power of two)
                                "conv:1,2,3,4,5,4,3,2,1;2,4,6,8,10,8,6,4,2;3,6,9,12,15,12,9,6,3;4,8,12,16,20,16,12,8,4;5,10,15,20,25,20,15,10,5;"
                                "4,8,12,16,20,16,12,8,4;3,6,9,12,15,12,9,6,3;2,4,6,8,10,8,6,4,2;1,2,3,4,5,4,3,2,1:sum",
                                // rank 1 with asymmetric factors of both signs, 9 wide by 5 tall
                                "conv:1,-2,3,0,1,2,-1,0,1;2,-4,6,0,2,4,-2,0,2;0,0,0,0,0,0,0,0,0;-1,2,-3,0,-1,-2,1,0,-1;3,-6,9,0,3,6,-3,0,3",
                                // a decimal rank-1 mask: fixed point
                                "conv:0.01,0.02,0.04,0.02,0.01;0.02,0.04,0.08,0.04,0.02;0.04,0.08,0.16,0.08,0.04;0.02,0.04,0.08,0.04,0.02;0.01,0.02,0.04,0.02,0.01"})
        for (Border b : {Border::Reflect101, Border::Constant}) expectTileEqualsReference(img, s, b);
}

TEST(FilterGpuTiles, SeparableLayoutsAndShapesEqualReference) {
    // Other work-groups and rows a work-item (odd counts), images narrower and shorter than the
    // window's reach (reflection repeats), a single row, colour planes.
    const std::map<std::string, long> small{{"separable_tile_group_x", 8}, {"separable_tile_group_y", 4}, {"separable_tile_rows", 3}};
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{5, 5}, {9, 1}, {1, 9}, {17, 11}, {100, 3}, {3, 100}}) {
        const io::Image img = test::noiseImage(w, h, 1, static_cast<unsigned>(w * 31 + h));
        for (Border b : kBorders)
            expectTileEqualsReference(img, "gaussian:5", b, small);
    }
    expectTileEqualsReference(test::noiseImage(70, 45, 3, 9), test::decimalRank1Mask(), Border::Reflect101, small);
    expectTileEqualsReference(test::noiseImage(70, 45, 1, 9), "box:7", Border::Wrap, {{"separable_tile_rows", 8}, {"separable_tile_group_y", 2}});
}

TEST(FilterGpuTiles, SeparableTakesIntegerMasksOnlyWhenAsked) {
    // separable_tile_all = 0 (the default): masks whose column sums fit int stay on the register path.
    const io::Image img = test::noiseImage(64, 40, 1, 29);
    SeparableTileLayout l;
    const auto takes = [&](const std::string& s) {
        return !separableTileKernel(parseOperation(s), io::PixelType::U8, img.width, img.height, Border::Reflect101, l, 1 << 16, true).defines.empty();
    };
    EXPECT_TRUE(takes(test::decimalRank1Mask()));
    EXPECT_FALSE(takes("gaussian:9:2.0"));  // OpenCV's integers: int sums
    EXPECT_FALSE(takes("box:9"));
    EXPECT_FALSE(takes("binomial:7"));
    EXPECT_FALSE(takes("gaussian:3"));  // 3x3: not rank 1 in the plan (one 2-D pass)
    EXPECT_FALSE(takes("gaussian:11"));  // over 9 taps
    l.everyMask = true;
    EXPECT_TRUE(takes("box:9"));
    EXPECT_TRUE(takes("binomial:7"));
    EXPECT_TRUE(separableTileKernel(parseOperation("box:9"), io::PixelType::U16, 64, 40, Border::Reflect101, l, 1 << 16, true).defines.empty());  // 8-bit only
    EXPECT_TRUE(separableTileKernel(parseOperation("box:9"), io::PixelType::U8, 50000, 50000, Border::Reflect101, l, 1 << 16, true).defines.empty());  // int offsets
    EXPECT_TRUE(rotatingTileKernel(parseOperation("rotating:3"), io::PixelType::U8, 50000, 50000, Border::Reflect101, RotatingTileLayout{}, 1 << 16).defines.empty());
    EXPECT_FALSE(rotatingTileKernel(parseOperation("rotating:3"), io::PixelType::U8, 4096, 4096, Border::Reflect101, RotatingTileLayout{}, 1 << 16).defines.empty());
}

TEST(FilterGpuTiles, SeparableDoubleSumsEqualReference) {
    // separable_tile_double = 1: the fixed-point column sums in double (devices with fp64).
    if (!test::context().device().fp64) GTEST_SKIP() << "the device has no fp64";
    const io::Image odd = test::noiseImage(61, 37, 1, 13), whole = test::noiseImage(264, 72, 1, 15);
    for (Border b : kBorders) {
        expectTileEqualsReference(odd, test::decimalRank1Mask(), b, {{"separable_tile_double", 1}}, "ACC=2");
        expectTileEqualsReference(whole, test::decimalRank1Mask(), b, {{"separable_tile_double", 1}}, "ACC=2");
    }
    expectTileEqualsReference(odd, "box:9", Border::Reflect101, {{"separable_tile_double", 1}}, "ACC=0");  // int sums stay int
    // Fixed point with weights of both signs: negative column sums, and the clamp at both ends.
    const std::vector<double> f = {-0.1, 0.3, 0.6, 0.3, -0.1};
    const std::string spec = test::rank1ConvSpec(f, f);
    for (Border b : {Border::Reflect101, Border::Constant}) {
        expectTileEqualsReference(odd, spec, b, {{"separable_tile_double", 1}}, "ACC=2");
        expectTileEqualsReference(odd, spec, b, {}, "NO_CLAMP=0");
    }
}

TEST(FilterGpuTiles, RotatingEveryBorderEqualsReference) {
    // 3x3 carries the mean in its key; 5x5 reads it from local memory. Each with its rows' sums from
    // bytes and from whole words (byte dot products: NVIDIA's dp4a on NVIDIA devices, else spelt out).
    const io::Image odd = test::noiseImage(61, 37, 1, 17), whole = test::noiseImage(136, 72, 1, 19);
    for (Border b : kBorders)
        for (long dots : {0, 1}) {
            const std::map<std::string, long> keys{{"rotating_tile_dot", dots}};
            const std::string rowDots = "ROW_DOTS=" + std::to_string(dots);
            expectTileEqualsReference(odd, "rotating:3", b, keys, "MEAN_IN_KEY=1");
            expectTileEqualsReference(odd, "rotating:5", b, keys, "MEAN_IN_KEY=0 -D " + rowDots);
            expectTileEqualsReference(whole, "rotating:3", b, keys, rowDots);
            expectTileEqualsReference(whole, "rotating:5", b, keys, "KEY_WIDE=0");
        }
}

TEST(FilterGpuTiles, RotatingDotsFromTheProfilesWidth) {
    // rotating_tile_dot = W: windows at least W wide take the dot products, narrower ones the bytes.
    RotatingTileLayout l;
    l.dotsFrom = 5;
    const auto defines = [&](const std::string& s) { return rotatingTileKernel(parseOperation(s), io::PixelType::U8, 640, 480, Border::Reflect101, l, 1 << 16).defines; };
    EXPECT_NE(defines("rotating:3").find("ROW_DOTS=0"), std::string::npos);
    EXPECT_NE(defines("rotating:5").find("ROW_DOTS=1"), std::string::npos);
    EXPECT_NE(defines("rotating:9").find("ROW_DOTS=1"), std::string::npos);
    l.dotsFrom = 0;
    EXPECT_NE(defines("rotating:9").find("ROW_DOTS=0"), std::string::npos);
}

TEST(FilterGpuTiles, RotatingWindowsAndLayoutsEqualReference) {
    // 7x7 (uint keys, 32 bits full) and 9x9 (ulong keys); flat images, where every window ties and
    // the first in raster order must win; small tiles with walks that do not divide them; images
    // narrower and shorter than the neighbourhood.
    const io::Image img = test::noiseImage(75, 50, 1, 21);
    expectTileEqualsReference(img, "rotating:7", Border::Reflect101, {}, "KEY_WIDE=0");
    expectTileEqualsReference(img, "rotating:9", Border::Reflect101, {}, "KEY_WIDE=1");
    expectTileEqualsReference(img, "rotating:9", Border::Constant, {}, "KEY_WIDE=1");
    for (const std::string s : {"rotating:7", "rotating:9"})  // rows of two and three words' chunks
        expectTileEqualsReference(img, s, Border::Reflect, {{"rotating_tile_dot", 1}}, "ROW_DOTS=1");
    io::Image flat = test::noiseImage(40, 30, 1, 23);
    for (std::size_t i = 0; i < flat.data.size(); ++i) flat.data[i] = (i / 40) % 7 < 3 ? 90 : 91;  // bands: ties everywhere
    for (Border b : kBorders)
        for (const std::string s : {"rotating:3", "rotating:5"}) expectTileEqualsReference(flat, s, b, {{"rotating_tile_dot", b == Border::Wrap}});
    const std::map<std::string, long> small{{"rotating_tile_x", 8},       {"rotating_tile_y", 6},       {"rotating_tile_walk", 4},
                                            {"rotating_tile_group_x", 8}, {"rotating_tile_group_y", 2}};
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{5, 5}, {9, 3}, {3, 9}, {23, 19}}) {
        const io::Image im = test::noiseImage(w, h, 1, static_cast<unsigned>(w * 17 + h));
        for (Border b : kBorders)
            if (b != Border::Reflect || (w >= 5 && h >= 5)) expectTileEqualsReference(im, "rotating:3", b, small);
    }
    std::map<std::string, long> smallDots = small;
    smallDots["rotating_tile_dot"] = 1;
    expectTileEqualsReference(test::noiseImage(23, 19, 1, 27), "rotating:3", Border::Replicate, smallDots);
    // The Hopper profile's tiles of 64 x 64 and tiles 60 wide (not a multiple of 8), 3x3 and 7x7.
    const io::Image wide = test::noiseImage(190, 150, 1, 29);
    for (const std::string s : {"rotating:3", "rotating:7"}) {
        expectTileEqualsReference(wide, s, Border::Reflect101, {{"rotating_tile_y", 64}, {"rotating_tile_dot", 5}});
        expectTileEqualsReference(wide, s, Border::Constant, {{"rotating_tile_x", 60}, {"rotating_tile_y", 64}});
    }
    expectTileEqualsReference(test::noiseImage(45, 33, 3, 25), "rotating:5", Border::Reflect101, small);
    // The Hopper profile's tiles 60 wide for windows up to 5x5 only (rotating_tile_x_small).
    const std::map<std::string, long> hopper{{"rotating_tile_y", 64}, {"rotating_tile_x_small", 60}, {"rotating_tile_dot", 5}};
    expectTileEqualsReference(wide, "rotating:3", Border::Reflect, hopper, "TX=60 ");
    expectTileEqualsReference(wide, "rotating:5", Border::Wrap, hopper, "TX=60 ");
    expectTileEqualsReference(wide, "rotating:7", Border::Reflect101, hopper, "TX=64 ");
}

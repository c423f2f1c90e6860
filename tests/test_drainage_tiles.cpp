// Tiled drainage (drainage.hpp's Tiling): small tiles forced on RichDEM's and TauDEM's data and on
// random DEMs with NoData give the one-piece run's results exactly (directions, counts, edge
// contamination, weighted sums in float and double, bit for bit; the tolerance is zero), including
// flow that crosses tile edges again and again (a spiral) and a cycle of directions across tiles,
// refused with the one-piece run's sentence.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <tuple>

#include "portacl/drainage.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/runtime/error.hpp"
#include "drainage/tiles.hpp"
#include "support/drainage_cases.hpp"
#include "support/test_support.hpp"

namespace dr = portacl::drainage;
using portacl::Precision;
using portacl::io::Raster;
using portacl::test::context;
using portacl::test::dataPath;
using portacl::test::demOf;
using portacl::test::errorOf;
using portacl::test::randomDem;
using portacl::test::withGeoTransform;

namespace {

void expectSame(const dr::Accumulation& a, const dr::Accumulation& b) {
    ASSERT_EQ(a.valid, b.valid);
    ASSERT_EQ(a.counts, b.counts);
    ASSERT_EQ(a.sums.size(), b.sums.size());
    for (std::size_t i = 0; i < a.sums.size(); ++i) ASSERT_EQ(a.sums[i], b.sums[i]) << "cell " << i;  // bit for bit
}

// Counts with and without edge contamination and without the cell itself (withCounts), and weighted
// sums with edge contamination in `p`: tiled with `tiling` against the one-piece run.
void expectAccumulationTiles(const dr::DirectionGrid& g, const dr::Tiling& tiling, Precision p, unsigned seed, bool withCounts = true) {
    std::vector<double> w(g.dir.size());
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.1, 3.0);
    for (auto& x : w) x = u(rng);
    for (int variant = withCounts ? 0 : 3; variant < 4; ++variant) {
        SCOPED_TRACE("variant " + std::to_string(variant));
        dr::AccumulationOptions opt;
        opt.edgeContamination = variant == 1 || variant == 3;
        opt.includeSelf = variant != 2;
        if (variant == 3) opt.weights = &w, opt.precision = p;
        const dr::Accumulation one = dr::accumulate(context(), g, opt);
        opt.tiling = tiling;
        expectSame(dr::accumulate(context(), g, opt), one);
    }
}

}  // namespace

TEST(DrainageTiles, ParsesTheTileOption) {
    EXPECT_EQ(dr::parseTiling("7x9").rows, 7);
    EXPECT_EQ(dr::parseTiling("7x9").cols, 9);
    EXPECT_EQ(dr::parseTiling("64").cols, 64);
    for (const char* bad : {"", "0", "7x", "x9", "7x9x2", "-3", "seven"}) EXPECT_THROW(dr::parseTiling(bad), portacl::Error) << bad;
}

TEST(DrainageTiles, RandomDemsDirectionsAndAccumulation) {
    // Tiles of 7x9 cells on a larger grid; of 3x2 and of a single cell on a small one.
    for (unsigned seed = 1; seed <= 2; ++seed) {
        const Raster dem = seed == 1 ? randomDem(46, 51, seed, true) : randomDem(13, 11, seed, true);
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            const dr::DirectionGrid one = dr::d8Directions(context(), dem, p);
            ASSERT_EQ(one.dir, dr::d8DirectionsReference(dem, p).dir);
            const std::vector<dr::Tiling> tilings =
                seed == 1 ? std::vector<dr::Tiling>{{7, 9}} : std::vector<dr::Tiling>{{3, 2}, {1, 1}};
            for (dr::Tiling t : tilings) {
                SCOPED_TRACE("seed " + std::to_string(seed) + ", tiles " + std::to_string(t.rows) + "x" + std::to_string(t.cols));
                ASSERT_EQ(dr::d8Directions(context(), dem, p, t).dir, one.dir);
                expectAccumulationTiles(one, t, p, seed, p == Precision::Float);
            }
        }
    }
}

TEST(DrainageTiles, RichDemPairsInSmallTiles) {
    PORTACL_REQUIRE_DATA();
    for (const char* name : {"testdem1", "testdem5", "testdem9", "testdem12", "testdem16", "test_sw"}) {
        SCOPED_TRACE(name);
        const Raster in = portacl::io::readRaster(dataPath(std::string("dem/richdem_flow_accum/") + name + ".d8"));
        const Raster expected = portacl::io::readRaster(dataPath(std::string("dem/richdem_flow_accum/") + name + ".out"));
        const dr::DirectionGrid g = dr::decodeDirections(in, dr::Encoding::RichDem);
        dr::AccumulationOptions opt;
        opt.tiling = {7, 9};
        const dr::Accumulation a = dr::accumulate(context(), g, opt);
        for (std::size_t i = 0; i < g.dir.size(); ++i)
            if (!expected.isNoData(i)) ASSERT_EQ(double(a.counts[i]), expected.values[i]) << "cell " << i;
    }
    const Raster in = portacl::io::readRaster(dataPath("dem/richdem_flow_accum/testdem12.d8"));
    expectAccumulationTiles(dr::decodeDirections(in, dr::Encoding::RichDem), {7, 9}, Precision::Float, 3);
}

TEST(DrainageTiles, LoganAreaInTiles) {
    PORTACL_REQUIRE_DATA();
    const Raster p = portacl::io::readRaster(dataPath("dem/taudem/loganp.tif"));
    const dr::DirectionGrid g = dr::decodeDirections(p, dr::Encoding::TauDem);
    dr::AccumulationOptions opt;
    opt.edgeContamination = true;
    const dr::Accumulation one = dr::accumulate(context(), g, opt);
    opt.tiling = {300, 257};
    expectSame(dr::accumulate(context(), g, opt), one);
}

TEST(DrainageTiles, SpiralCrossesTileEdgesAgainAndAgain) {
    // One path through every cell, winding through every tile many times: the inflows of the
    // weighted sums settle only after many runs of each tile.
    const int n = 24;
    dr::DirectionGrid g;
    g.frame.rows = g.frame.cols = n;
    g.dir.assign(std::size_t(n) * n, 0);
    int top = 0, bottom = n - 1, left = 0, right = n - 1;
    while (top <= bottom && left <= right) {
        for (int c = left; c < right; ++c) g.dir[std::size_t(top) * n + c] = 0;        // E
        for (int r = top; r < bottom; ++r) g.dir[std::size_t(r) * n + right] = 6;      // S
        for (int c = right; c > left; --c) g.dir[std::size_t(bottom) * n + c] = 4;     // W
        for (int r = bottom; r > top + 1; --r) g.dir[std::size_t(r) * n + left] = 2;   // N
        g.dir[std::size_t(top + 1) * n + left] = top + 1 <= bottom - 1 ? 0 : dr::kNoFlow;
        ++top, --bottom, ++left, --right;
    }
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        expectAccumulationTiles(g, {4, 5}, p, 11, p == Precision::Float);
    }
}

TEST(DrainageTiles, CycleAcrossTilesNamedAsInOnePiece) {
    dr::DirectionGrid g;
    g.frame.rows = 6, g.frame.cols = 6;
    g.dir.assign(36, dr::kNoFlow);
    // A 2x2 cycle across the corner of four 3x3 tiles: (2,2) E, (2,3) S, (3,3) W, (3,2) N; and a cell feeding it.
    g.dir[2 * 6 + 2] = 0, g.dir[2 * 6 + 3] = 6, g.dir[3 * 6 + 3] = 4, g.dir[3 * 6 + 2] = 2, g.dir[0] = 7;
    const std::string one = errorOf([&] { dr::accumulate(context(), g); });
    ASSERT_NE(one.find("cycle"), std::string::npos) << one;
    dr::AccumulationOptions opt;
    opt.tiling = {3, 3};
    EXPECT_EQ(errorOf([&] { dr::accumulate(context(), g, opt); }), one);
    opt.tiling = {6, 6};  // inside one tile
    EXPECT_EQ(errorOf([&] { dr::accumulate(context(), g, opt); }), one);
}

TEST(DrainageTiles, FillInTilesEqualsPriorityFlood) {
    for (unsigned seed = 1; seed <= 2; ++seed) {
        // Rough terrain with nested depressions much larger than a tile, and NoData holes; 7x9 tiles on
        // a larger grid, 2x3 and single cells on a small one.
        std::mt19937 rng(seed);
        const int rows = seed == 1 ? 47 : 14, cols = seed == 1 ? 53 : 17;
        Raster dem = withGeoTransform(demOf(rows, cols, std::vector<double>(std::size_t(rows) * cols)));
        std::uniform_real_distribution<double> u(0, 40);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x)
                dem.values[std::size_t(y) * cols + x] = std::floor(u(rng)) + 30 * std::sin(x * 0.13) * std::cos(y * 0.09);
        dem.hasNoData = true, dem.noData = -1e9;
        for (int k = 0; k < rows * cols / 80; ++k) dem.values[rng() % dem.values.size()] = -1e9;
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            const Raster ref = dr::fillDepressionsReference(dem, p);
            const std::vector<dr::Tiling> tilings =
                seed == 1 ? std::vector<dr::Tiling>{{7, 9}} : std::vector<dr::Tiling>{{2, 3}, {1, 1}};
            for (dr::Tiling t : tilings) {
                SCOPED_TRACE("seed " + std::to_string(seed) + ", tiles " + std::to_string(t.rows) + "x" + std::to_string(t.cols));
                ASSERT_EQ(dr::fillDepressions(context(), dem, p, t).values, ref.values);
            }
        }
    }
}

TEST(DrainageTiles, TauDemsFilledSurfaceInTiles) {
    PORTACL_REQUIRE_DATA();
    const Raster dem = portacl::io::readRaster(dataPath("dem/taudem/MED_01_01.tif"));
    const Raster fel = portacl::io::readRaster(dataPath("dem/taudem/MED_01_01fel.tif"));
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        EXPECT_EQ(dr::fillDepressions(context(), dem, p, {61, 47}).values, fel.values);
    }
}

namespace {

// A window of a raster (a crop of a peer's DEM keeps the small-tile runs cheap).
Raster crop(const Raster& r, int r0, int c0, int rows, int cols) {
    Raster out = r;
    out.frame.rows = rows, out.frame.cols = cols;
    out.values.clear();
    for (int y = 0; y < rows; ++y)
        for (int x = 0; x < cols; ++x) out.values.push_back(r.values[std::size_t(r0 + y) * r.cols() + std::size_t(c0 + x)]);
    return out;
}

}  // namespace

TEST(DrainageTiles, WholePipelineOnPeersDemsAndTerracedRandomDems) {
    PORTACL_REQUIRE_DATA();
    const Raster pysheds = portacl::io::readRaster(dataPath("dem/pysheds/dem.tif"));
    std::vector<std::pair<Raster, dr::Tiling>> cases{{crop(pysheds, 100, 120, 56, 70), {7, 9}},
                                                      {pysheds, {93, 121}},
                                                      {portacl::io::readRaster(dataPath("dem/whitebox/DEM.tif")), {50, 41}}};
    Raster terraced = randomDem(41, 53, 5, true);
    for (auto& v : terraced.values)
        if (v != -9999) v = std::floor(v);  // wide flats
    cases.push_back({terraced, {7, 9}});
    for (const auto& [dem, tiling] : cases) {
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            SCOPED_TRACE(dem.path + " " + std::to_string(dem.rows()) + "x" + std::to_string(dem.cols()) +
                         (p == Precision::Float ? " float" : " double"));
            const Raster filled = dr::fillDepressionsReference(dem, p);
            const dr::DirectionGrid d8 = dr::d8DirectionsReference(filled, p);
            const dr::DirectionGrid flats = dr::resolveFlatsReference(filled, d8, p);
            ASSERT_EQ(dr::fillDepressions(context(), dem, p, tiling).values, filled.values);
            ASSERT_EQ(dr::d8Directions(context(), filled, p, tiling).dir, d8.dir);
            ASSERT_EQ(dr::resolveFlats(context(), filled, d8, p, tiling).dir, flats.dir);
            dr::AccumulationOptions opt;
            opt.tiling = tiling;
            expectSame(dr::accumulate(context(), flats, opt), dr::accumulateReference(flats));
        }
    }
}

TEST(DrainageTiles, CommandLineTilesGiveTheOnePieceFiles) {
    PORTACL_REQUIRE_DATA();
    char tmpl[] = "/tmp/portacl-drainage-tiles-XXXXXX";
    const std::string dir = mkdtemp(tmpl) ? tmpl : "/tmp";
    auto run = [&](const std::string& args) { return portacl::test::runDrainageCli(dir, args); };
    const std::string dem = dataPath("dem/whitebox/DEM.tif");
    const std::vector<std::string> outputs{"filled", "directions", "accumulation", "streams", "order", "watersheds"};
    const std::vector<std::string> dinfOutputs{"filled", "directions", "accumulation"};
    auto args = [&](const std::string& tag, const std::vector<std::string>& names) {
        std::string a = dem + (tag[1] == 'd' ? " --method dinf" : " --flats --threshold 50") + " --precision float";
        for (const std::string& o : names) a += " --" + o + " " + dir + "/" + o + tag + ".tif";
        return a;
    };
    for (const auto& [tag, names] : {std::pair{std::string("_"), outputs}, std::pair{std::string("_dinf"), dinfOutputs}}) {
        auto one = run(args(tag + "one", names));
        ASSERT_EQ(one.first, 0) << one.second;
        auto tiled = run(args(tag + "tiled", names) + " --tile 23x31");
        ASSERT_EQ(tiled.first, 0) << tiled.second;
        for (const std::string& o : names) {
            const Raster a = portacl::io::readRaster(dir + "/" + o + tag + "one.tif");
            const Raster b = portacl::io::readRaster(dir + "/" + o + tag + "tiled.tif");
            EXPECT_EQ(a.values, b.values) << o << tag;
            std::remove((dir + "/" + o + tag + "one.tif").c_str());
            std::remove((dir + "/" + o + tag + "tiled.tif").c_str());
        }
    }
    for (const std::string bad : {dem + " --accumulation " + dir + "/x.tif --tile 0", dem + " --accumulation " + dir + "/x.tif --tile 7x",
                                  dem + " --accumulation " + dir + "/x.tif --tile 8 --serial"}) {
        const auto r = run(bad);
        EXPECT_EQ(r.first, 1) << bad;
        EXPECT_EQ(std::count(r.second.begin(), r.second.end(), '\n'), 1) << r.second;
        EXPECT_NE(r.second.find("--tile"), std::string::npos) << r.second;
    }
    std::ifstream probe(dir + "/x.tif");
    EXPECT_FALSE(probe.good());
    std::remove((dir + "/out.txt").c_str());
    std::remove((dir + "/err.txt").c_str());
    rmdir(dir.c_str());
}

TEST(DrainageTiles, TilesChosenWhenTheGridExceedsTheDevice) {
    // planTiles' choice for a device of given memory: one piece while the grid's buffers fit it (and
    // the grid has fewer than 2^31 cells); otherwise square tiles that cover the grid once, each
    // window within half the device's memory and its largest buffer.
    namespace dd = portacl::drainage::detail;
    const std::uint64_t gib = std::uint64_t(1) << 30;
    portacl::io::RasterFrame f;
    f.rows = 5000, f.cols = 7000;
    EXPECT_TRUE(dd::planTilesFor(f, {}, {22, 22, 8, 1}, 4 * gib, gib, "test").empty());
    // One piece judged by its own bytes a cell (filling: fewer than its tiles' labels take).
    EXPECT_TRUE(dd::planTilesFor(f, {}, {9, 17, 4, 0}, 35000000ull * 10, gib, "test").empty());
    EXPECT_FALSE(dd::planTilesFor(f, {}, {11, 17, 4, 0}, 35000000ull * 10, gib, "test").empty());
    for (auto [rows, cols, device, alloc] : {std::tuple{5000, 7000, gib / 2, gib / 8}, std::tuple{100000, 70000, 16 * gib, 4 * gib},
                                             std::tuple{50000, 50000, 1000 * gib, 1000 * gib}}) {
        f.rows = rows, f.cols = cols;
        const auto tiles = dd::planTilesFor(f, {}, {22, 22, 8, 1}, device, alloc, "test");
        ASSERT_FALSE(tiles.empty()) << rows << "x" << cols;
        std::size_t covered = 0;
        for (const auto& t : tiles) {
            const std::size_t window = std::size_t(t.rows + 2) * std::size_t(t.cols + 2);
            EXPECT_LE(window * 22, device / 2);
            EXPECT_LE(window * 8, alloc);
            EXPECT_LT(window, std::size_t(1) << 31);
            covered += std::size_t(t.rows) * std::size_t(t.cols);
        }
        EXPECT_EQ(covered, f.size());
        EXPECT_EQ(tiles.back().r0 + tiles.back().rows, rows);
        EXPECT_EQ(tiles.back().c0 + tiles.back().cols, cols);
    }
    // A forced tiling is kept, clipped to the grid; a device too small for a 16x16 tile is one sentence.
    f.rows = 20, f.cols = 8;
    const auto forced = dd::planTilesFor(f, {7, 9}, {22, 22, 8, 1}, 1000 * gib, 1000 * gib, "test");
    ASSERT_EQ(forced.size(), 3u);
    EXPECT_EQ(forced.back().rows, 6);
    EXPECT_EQ(forced.back().cols, 8);
    EXPECT_THROW(dd::planTilesFor(f, {}, {22, 22, 8, 1}, 1000, 1000, "test"), portacl::Error);
}

TEST(DrainageTiles, FlatsTooLargeForTheDeviceResolvedOnTheHost) {
    // pysheds' DEM, filled, in 9x11 tiles: its wide flats' windows exceed a tile; with a device said
    // to hold 4 KiB they are resolved by the serial reference, the others on the device.
    PORTACL_REQUIRE_DATA();
    const Raster dem = crop(portacl::io::readRaster(dataPath("dem/pysheds/dem.tif")), 100, 120, 56, 70);
    const Raster filled = dr::fillDepressionsReference(dem, Precision::Float);
    const dr::DirectionGrid d8 = dr::d8DirectionsReference(filled, Precision::Float);
    const auto tiles = portacl::drainage::detail::planTilesFor(dem.frame, {9, 11}, {}, 0, 0, "flats");
    const dr::DirectionGrid want = dr::resolveFlatsReference(filled, d8, Precision::Float);
    EXPECT_EQ(portacl::drainage::detail::resolveFlatsTiled(context(), filled, d8, Precision::Float, tiles, 4096).dir, want.dir);
    EXPECT_EQ(portacl::drainage::detail::resolveFlatsTiled(context(), filled, d8, Precision::Float, tiles).dir, want.dir);
}

namespace {

// Strahler order (the stream cells of `threshold`) and watersheds (every basin, then `outlets`) of g
// in `tiling` against the one-piece run, which is held to the serial reference.
void expectNetworkTiles(const dr::DirectionGrid& g, const dr::Tiling& tiling, double threshold, const std::vector<std::size_t>& outlets) {
    const auto s = dr::streams(dr::accumulateReference(g), threshold);
    const auto order = dr::strahlerOrder(context(), g, s);
    ASSERT_EQ(order, dr::strahlerOrderReference(g, s));
    EXPECT_EQ(dr::strahlerOrder(context(), g, s, tiling), order);
    for (const auto& o : {std::vector<std::size_t>{}, outlets}) {
        SCOPED_TRACE(std::to_string(o.size()) + " outlets");
        const auto one = dr::watersheds(context(), g, o);
        ASSERT_EQ(one, dr::watershedsReference(g, o));
        EXPECT_EQ(dr::watersheds(context(), g, o, tiling), one);
    }
}

// Cells with data spread over the grid (one of them twice: the first mention numbers it).
std::vector<std::size_t> someOutlets(const dr::DirectionGrid& g) {
    std::vector<std::size_t> out;
    for (std::size_t i = g.dir.size() / 7; i < g.dir.size() && out.size() < 5; i += g.dir.size() / 6 + 1)
        if (g.dir[i] != dr::kNoData) out.push_back(i);
    if (!out.empty()) out.push_back(out.front());
    return out;
}

// The filled DEM's directions with flats resolved (serial references: the tiles of those are tested above).
dr::DirectionGrid routed(const Raster& dem) {
    const Raster filled = dr::fillDepressionsReference(dem, Precision::Double);
    return dr::resolveFlatsReference(filled, dr::d8DirectionsReference(filled, Precision::Double), Precision::Double);
}

// D∞ directions of `dem` in `tiling` and their accumulation (cells; weights; cells without the cell
// itself) against the one-piece run, bit for bit.
void expectDinfTiles(const Raster& dem, const dr::Tiling& tiling, Precision p) {
    const dr::DinfGrid one = dr::dinfDirections(context(), dem, p);
    ASSERT_EQ(dr::dinfDirections(context(), dem, p, tiling).angle, one.angle);
    std::vector<double> w(dem.size());
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.1, 3.0);
    for (auto& x : w) x = u(rng);
    for (int variant = 0; variant < 3; ++variant) {
        SCOPED_TRACE("variant " + std::to_string(variant));
        dr::AccumulationOptions opt;
        opt.precision = p;
        if (variant == 1) opt.weights = &w;
        opt.includeSelf = variant != 2;
        const dr::Accumulation whole = dr::dinfAccumulate(context(), one, opt);
        opt.tiling = tiling;
        expectSame(dr::dinfAccumulate(context(), one, opt), whole);
    }
}

std::string tilingName(const dr::Tiling& t) { return std::to_string(t.rows) + "x" + std::to_string(t.cols); }

}  // namespace

TEST(DrainageTiles, StrahlerOrderAndWatershedsOnRandomDems) {
    // 7x9 tiles on a larger grid; 3x2 and single cells on a small one.
    const std::vector<std::pair<Raster, std::vector<dr::Tiling>>> cases{{randomDem(46, 51, 1, true), {{7, 9}}},
                                                                         {randomDem(13, 11, 2, true), {{3, 2}, {1, 1}}}};
    for (const auto& [dem, tilings] : cases) {
        const dr::DirectionGrid g = routed(dem);
        for (const dr::Tiling& t : tilings) {
            SCOPED_TRACE(std::to_string(dem.rows()) + "x" + std::to_string(dem.cols()) + " in tiles of " + tilingName(t));
            expectNetworkTiles(g, t, 3, someOutlets(g));
        }
    }
}

TEST(DrainageTiles, StrahlerOrderAndWatershedsOnPeersGrids) {
    PORTACL_REQUIRE_DATA();
    const Raster pysheds = portacl::io::readRaster(dataPath("dem/pysheds/dem.tif"));
    {
        SCOPED_TRACE("pysheds crop");
        const dr::DirectionGrid g = routed(crop(pysheds, 100, 120, 56, 70));
        expectNetworkTiles(g, {7, 9}, 20, someOutlets(g));
    }
    {
        SCOPED_TRACE("RichDEM testdem12");
        const Raster in = portacl::io::readRaster(dataPath("dem/richdem_flow_accum/testdem12.d8"));
        const dr::DirectionGrid g = dr::decodeDirections(in, dr::Encoding::RichDem);
        expectNetworkTiles(g, {7, 9}, 2, someOutlets(g));
    }
    {
        SCOPED_TRACE("TauDEM Logan");
        const dr::DirectionGrid g = dr::decodeDirections(portacl::io::readRaster(dataPath("dem/taudem/loganp.tif")), dr::Encoding::TauDem);
        expectNetworkTiles(g, {300, 257}, 1000, someOutlets(g));
    }
}

TEST(DrainageTiles, NetworkCycleAcrossTilesNamedAsInOnePiece) {
    dr::DirectionGrid g;
    g.frame.rows = 6, g.frame.cols = 6;
    g.dir.assign(36, dr::kNoFlow);
    g.dir[2 * 6 + 2] = 0, g.dir[2 * 6 + 3] = 6, g.dir[3 * 6 + 3] = 4, g.dir[3 * 6 + 2] = 2, g.dir[0] = 7;
    const std::vector<std::uint8_t> s(36, 1);
    const std::string order = errorOf([&] { dr::strahlerOrder(context(), g, s); });
    const std::string basins = errorOf([&] { dr::watersheds(context(), g); });
    ASSERT_NE(order.find("cycle"), std::string::npos) << order;
    EXPECT_EQ(errorOf([&] { dr::strahlerOrder(context(), g, s, {3, 3}); }), order);
    EXPECT_EQ(errorOf([&] { dr::watersheds(context(), g, {}, {3, 3}); }), basins);
}

TEST(DrainageTiles, DinfDirectionsAndAccumulationOnRandomAndPeersDems) {
    std::vector<std::pair<Raster, std::vector<dr::Tiling>>> cases{{randomDem(46, 51, 1, true), {{7, 9}}},
                                                                   {randomDem(9, 8, 2, true), {{3, 2}, {1, 1}}}};
    if (portacl::test::hasData())
        cases.push_back({crop(portacl::io::readRaster(dataPath("dem/pysheds/dem.tif")), 100, 120, 56, 70), {{7, 9}}});
    for (const auto& [dem, tilings] : cases)
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            const Raster filled = dr::fillDepressionsReference(dem, p);
            for (const dr::Tiling& t : tilings) {
                SCOPED_TRACE(std::to_string(dem.rows()) + "x" + std::to_string(dem.cols()) + " in tiles of " + tilingName(t) +
                             (p == Precision::Float ? " float" : " double"));
                expectDinfTiles(filled, t, p);
            }
        }
}

TEST(DrainageTiles, DinfSpiralAndCycleAcrossTiles) {
    // The D8 spiral as D∞ angles (each cell all to one neighbour, square cells): one path winding
    // through every tile many times (many more cells than a tile's margin), the tiles running again
    // until their inflows settle.
    const int n = 48;
    const double quarter = std::acos(-1.0) / 4;
    dr::DinfGrid g;
    g.frame.rows = g.frame.cols = n;
    g.angle.assign(std::size_t(n) * n, 0);
    int top = 0, bottom = n - 1, left = 0, right = n - 1;
    while (top <= bottom && left <= right) {
        for (int c = left; c < right; ++c) g.angle[std::size_t(top) * n + c] = 0;               // E
        for (int r = top; r < bottom; ++r) g.angle[std::size_t(r) * n + right] = 6 * quarter;   // S
        for (int c = right; c > left; --c) g.angle[std::size_t(bottom) * n + c] = 4 * quarter;  // W
        for (int r = bottom; r > top + 1; --r) g.angle[std::size_t(r) * n + left] = 2 * quarter;  // N
        g.angle[std::size_t(top + 1) * n + left] = top + 1 <= bottom - 1 ? 0 : dr::kDinfNoFlow;
        ++top, --bottom, ++left, --right;
    }
    // Split flow too: every fifth cell of the top rows sends part of its flow to the south-east.
    for (int c = 1; c < n - 3; c += 5) g.angle[std::size_t(1) * n + c] = 7 * quarter + 0.3;
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        dr::AccumulationOptions opt;
        opt.precision = p;
        const dr::Accumulation one = dr::dinfAccumulate(context(), g, opt);
        opt.tiling = {4, 5};
        expectSame(dr::dinfAccumulate(context(), g, opt), one);
    }
    // A cycle across the corner of four 3x3 tiles, fed by a cell: the one-piece sentence; then with
    // part of the flow leaving the cycle to the north-east, the one-piece run names that cell (row 1,
    // column 3: the first cell its order never reaches).
    dr::DinfGrid cycle;
    cycle.frame.rows = cycle.frame.cols = 6;
    cycle.angle.assign(36, dr::kDinfNoFlow);
    cycle.angle[2 * 6 + 2] = 0, cycle.angle[2 * 6 + 3] = 6 * quarter, cycle.angle[3 * 6 + 3] = 4 * quarter;
    cycle.angle[3 * 6 + 2] = 2 * quarter, cycle.angle[0] = 7 * quarter;
    for (double split : {0.0, 0.3}) {
        cycle.angle[2 * 6 + 2] = split;
        dr::AccumulationOptions opt;
        if (!portacl::test::hasFp64()) opt.precision = Precision::Float;
        const std::string one = errorOf([&] { dr::dinfAccumulate(context(), cycle, opt); });
        ASSERT_NE(one.find(split > 0 ? "row 1, column 3" : "row 2, column 2"), std::string::npos) << one;
        opt.tiling = {3, 3};
        EXPECT_EQ(errorOf([&] { dr::dinfAccumulate(context(), cycle, opt); }), one);
    }
}

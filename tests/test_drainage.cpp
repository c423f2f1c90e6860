// Drainage: accumulation from given directions equals RichDEM's 24 test pairs and TauDEM's Logan
// contributing area (with its edge contamination) cell for cell; the slides' 3x3 example (the
// accumulation at (0,0) is 8 once all water has left); D8 directions and accumulation on random DEMs
// equal the serial reference exactly (directions and counts are integers; weighted sums add in one
// fixed order in float and in double, so the tolerance is zero); the slides' iterative push and pull
// give the same counts; rasters keep NoData, geotransform and coordinate system; the network's lines
// read back from a GeoPackage and a Shapefile; the pipeline that keeps the grids on the device equals
// the references step by step; a folder of DEMs on two contexts equals each DEM run alone; D∞ angles
// on planes are the planes' own and its
// accumulation conserves the flow; bad input is one sentence naming the file and the cell.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <fstream>
#include <random>

#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#include "portacl/drainage.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/io/vector_lines.hpp"
#include "portacl/runtime/error.hpp"
#include "support/drainage_cases.hpp"
#include "support/test_support.hpp"

namespace dr = portacl::drainage;
using portacl::Precision;
using portacl::io::Raster;
using portacl::io::RasterFrame;
using portacl::test::context;
using portacl::test::dataPath;
using portacl::test::demOf;
using portacl::test::errorOf;
using portacl::test::randomDem;

namespace {

std::string scratchDir() {
    static std::string dir = [] {
        char tmpl[] = "/tmp/portacl-drainage-XXXXXX";
        const char* d = mkdtemp(tmpl);
        return std::string(d ? d : "/tmp");
    }();
    return dir;
}

std::vector<std::string> filesIn(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d))
            if (e->d_name[0] != '.') names.push_back(e->d_name);
        closedir(d);
    }
    return names;
}

dr::DirectionGrid gridOf(int rows, int cols, const std::vector<int>& dirs) {
    dr::DirectionGrid g;
    g.frame.rows = rows, g.frame.cols = cols;
    g.dir.assign(dirs.begin(), dirs.end());
    return g;
}

void expectSameAccumulation(const dr::Accumulation& a, const dr::Accumulation& b) {
    ASSERT_EQ(a.valid, b.valid);
    if (a.weighted()) {
        ASSERT_EQ(a.sums.size(), b.sums.size());
        for (std::size_t i = 0; i < a.sums.size(); ++i)
            if (a.valid[i]) ASSERT_EQ(a.sums[i], b.sums[i]) << "cell " << i;
    } else {
        for (std::size_t i = 0; i < a.counts.size(); ++i)
            if (a.valid[i]) ASSERT_EQ(a.counts[i], b.counts[i]) << "cell " << i;
    }
}

// The slides' push scheme needs 64-bit atomics (it refuses elsewhere, e.g. on Mesa's llvmpipe).
bool hasInt64Atomics() {
    return context().device().device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos;
}

const char* kRichDemCases[] = {"test_east", "test_ne",   "test_north", "test_nw",   "test_se",   "test_south",
                               "test_sw",   "test_west", "testdem1",   "testdem10", "testdem11", "testdem12",
                               "testdem13", "testdem14", "testdem15",  "testdem16", "testdem2",  "testdem3",
                               "testdem4",  "testdem5",  "testdem6",   "testdem7",  "testdem8",  "testdem9"};

}  // namespace

TEST(DrainageRichDem, TwentyFourPairsCellForCell) {
    PORTACL_REQUIRE_DATA();
    for (const char* name : kRichDemCases) {
        SCOPED_TRACE(name);
        const Raster in = portacl::io::readRaster(dataPath(std::string("dem/richdem_flow_accum/") + name + ".d8"));
        const Raster expected = portacl::io::readRaster(dataPath(std::string("dem/richdem_flow_accum/") + name + ".out"));
        const dr::DirectionGrid g = dr::decodeDirections(in, dr::Encoding::RichDem);
        const dr::Accumulation dev = dr::accumulate(context(), g);
        const dr::Accumulation ref = dr::accumulateReference(g);
        expectSameAccumulation(dev, ref);
        ASSERT_EQ(expected.size(), g.dir.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const double want = expected.values[i];
            const double got = dev.valid[i] ? double(dev.counts[i]) : -1;
            ASSERT_EQ(got, want) << "row " << i / expected.cols() << ", column " << i % expected.cols();
        }
    }
}

TEST(DrainageTauDem, LoganContributingAreaWithEdgeContamination) {
    PORTACL_REQUIRE_DATA();
    const Raster p = portacl::io::readRaster(dataPath("dem/taudem/loganp.tif"));
    const Raster ad8 = portacl::io::readRaster(dataPath("dem/taudem/loganad8.tif"));
    const dr::DirectionGrid g = dr::decodeDirections(p, dr::Encoding::TauDem);
    dr::AccumulationOptions opt;
    opt.edgeContamination = true;
    const dr::Accumulation a = dr::accumulate(context(), g, opt);
    std::size_t valid = 0;
    std::uint64_t largest = 0;
    for (std::size_t i = 0; i < a.valid.size(); ++i) {
        ASSERT_EQ(bool(a.valid[i]), !ad8.isNoData(i)) << "row " << i / ad8.cols() << ", column " << i % ad8.cols();
        if (!a.valid[i]) continue;
        ASSERT_EQ(double(a.counts[i]), ad8.values[i]) << "row " << i / ad8.cols() << ", column " << i % ad8.cols();
        ++valid;
        largest = std::max(largest, a.counts[i]);
    }
    EXPECT_EQ(valid, 1587804u);
    EXPECT_EQ(largest, 623717u);
    // Without the rule, the largest area is the one the data's notes give.
    const dr::Accumulation all = dr::accumulate(context(), g);
    EXPECT_EQ(*std::max_element(all.counts.begin(), all.counts.end()), 623788u);
    expectSameAccumulation(a, dr::accumulateReference(g, opt));
}

TEST(DrainageSlides, WorkedExampleEndsWithEightAtTheOutlet) {
    // The slide's directions (the centre drains NW; (0,0) W and (2,0)... as drawn): W W W / N NW W / N N W.
    const int W = 4, N = 2, NW = 3;
    const dr::DirectionGrid g = gridOf(3, 3, {W, W, W, N, NW, W, N, N, W});
    dr::AccumulationOptions moved;
    moved.includeSelf = false;
    const std::vector<std::uint64_t> expected{8, 1, 0, 1, 3, 0, 0, 1, 0};
    EXPECT_EQ(dr::accumulate(context(), g, moved).counts, expected);
    EXPECT_EQ(dr::accumulateReference(g, moved).counts, expected);
    int launches = 0;
    EXPECT_EQ(dr::accumulateIterative(context(), g, dr::Iterative::Pull, &launches), expected);
    EXPECT_EQ(launches, 4);  // three moves of water, and the launch that finds none left
    if (hasInt64Atomics()) EXPECT_EQ(dr::accumulateIterative(context(), g, dr::Iterative::Push), expected);
    // Strict D8 on the slide's DEM differs where the notes say: (1,2) drains NW, (2,1) W.
    const Raster dem = demOf(3, 3, {90, 95, 110, 95, 101, 115, 95, 101, 110});
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        const auto d = dr::d8Directions(context(), dem, p);
        EXPECT_EQ(d.dir[5], NW);
        EXPECT_EQ(d.dir[7], W);
        EXPECT_EQ(d.dir[0], dr::kNoFlow);  // the lowest cell: a pit at the edge
        EXPECT_EQ(d.dir, dr::d8DirectionsReference(dem, p).dir);
    }
}

TEST(DrainageRandom, DirectionsAndAccumulationEqualTheReference) {
    for (unsigned seed = 1; seed <= 4; ++seed)
        for (bool holes : {false, true}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + (holes ? " with NoData" : ""));
            const Raster dem = randomDem(37 + int(seed) * 11, 53 + int(seed) * 7, seed, holes);
            for (Precision p : {Precision::Float, Precision::Double}) {
                if (p == Precision::Double && !portacl::test::hasFp64()) continue;
                const dr::DirectionGrid g = dr::d8Directions(context(), dem, p);
                ASSERT_EQ(g.dir, dr::d8DirectionsReference(dem, p).dir);
                for (bool edge : {false, true}) {
                    dr::AccumulationOptions opt;
                    opt.edgeContamination = edge;
                    expectSameAccumulation(dr::accumulate(context(), g, opt), dr::accumulateReference(g, opt));
                    std::vector<double> w(dem.size());
                    std::mt19937 rng(seed);
                    std::uniform_real_distribution<double> u(0.1, 3.0);
                    for (auto& x : w) x = u(rng);
                    opt.weights = &w;
                    opt.precision = p;
                    expectSameAccumulation(dr::accumulate(context(), g, opt), dr::accumulateReference(g, opt));
                }
                dr::AccumulationOptions moved;
                moved.includeSelf = false;
                const auto counts = dr::accumulateReference(g, moved).counts;
                std::vector<std::uint64_t> withData(counts.size());
                for (std::size_t i = 0; i < counts.size(); ++i) withData[i] = g.dir[i] == dr::kNoData ? 0 : counts[i];
                EXPECT_EQ(dr::accumulateIterative(context(), g, dr::Iterative::Pull), withData);
                if (hasInt64Atomics()) EXPECT_EQ(dr::accumulateIterative(context(), g, dr::Iterative::Push), withData);
            }
        }
}

TEST(DrainageRandom, LongChainsAndWideFans) {
    // A spiral: one path through every cell (the longest chain a grid holds), and a comb of columns.
    const int n = 48;
    std::vector<int> spiral(std::size_t(n) * n, 0);
    int top = 0, bottom = n - 1, left = 0, right = n - 1;
    while (top <= bottom && left <= right) {
        for (int c = left; c < right; ++c) spiral[std::size_t(top) * n + c] = 0;         // E
        for (int r = top; r < bottom; ++r) spiral[std::size_t(r) * n + right] = 6;       // S
        for (int c = right; c > left; --c) spiral[std::size_t(bottom) * n + c] = 4;      // W
        for (int r = bottom; r > top + 1; --r) spiral[std::size_t(r) * n + left] = 2;    // N
        spiral[std::size_t(top + 1) * n + left] = top + 1 <= bottom - 1 ? 0 : 8;          // into the next ring
        ++top, --bottom, ++left, --right;
    }
    const dr::DirectionGrid g = gridOf(n, n, spiral);
    const auto ref = dr::accumulateReference(g);
    expectSameAccumulation(dr::accumulate(context(), g), ref);
    EXPECT_EQ(*std::max_element(ref.counts.begin(), ref.counts.end()), std::uint64_t(n) * n);
}

TEST(DrainageFill, TauDemsFilledSurfaceOfMed0101) {
    PORTACL_REQUIRE_DATA();
    const Raster dem = portacl::io::readRaster(dataPath("dem/taudem/MED_01_01.tif"));
    const Raster fel = portacl::io::readRaster(dataPath("dem/taudem/MED_01_01fel.tif"));
    ASSERT_FALSE(dem.hasNoData);  // its NoData tag (-3.4e38) is no Int16 value
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        const Raster ref = dr::fillDepressionsReference(dem, p);
        const Raster dev = dr::fillDepressions(context(), dem, p);
        std::size_t raised = 0;
        for (std::size_t i = 0; i < dem.size(); ++i) {
            ASSERT_EQ(ref.values[i], fel.values[i]) << "row " << i / dem.cols() << ", column " << i % dem.cols();
            ASSERT_EQ(dev.values[i], ref.values[i]) << "row " << i / dem.cols() << ", column " << i % dem.cols();
            raised += ref.values[i] > dem.values[i];
        }
        EXPECT_EQ(raised, 1527u);
    }
}

TEST(DrainageFill, RandomDemsWithNoDataEqualPriorityFlood) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
        // Rough terrain: many nested depressions, some larger than a device tile.
        std::mt19937 rng(seed);
        const int rows = 70 + int(seed) * 9, cols = 90 - int(seed) * 7;
        Raster dem = demOf(rows, cols, std::vector<double>(std::size_t(rows) * cols));
        std::uniform_real_distribution<double> u(0, 40);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x)
                dem.values[std::size_t(y) * cols + x] = std::floor(u(rng)) + 30 * std::sin(x * 0.13) * std::cos(y * 0.09);
        dem.hasNoData = true, dem.noData = -1e9;
        for (int k = 0; k < 40; ++k) dem.values[rng() % dem.values.size()] = -1e9;
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            const Raster ref = dr::fillDepressionsReference(dem, p);
            EXPECT_EQ(dr::fillDepressions(context(), dem, p).values, ref.values);
            // Filled: every cell with data has a neighbour no higher on a path to an outlet, so D8
            // leaves only flats without flow, never a pit below all its neighbours.
            for (int y = 1; y + 1 < rows; ++y)
                for (int x = 1; x + 1 < cols; ++x) {
                    const std::size_t i = std::size_t(y) * cols + x;
                    if (ref.isNoData(i)) continue;
                    bool lowerOrEqual = false;
                    for (int k = 0; k < 8; ++k) {
                        const std::size_t m = std::size_t(y + dr::kRowOffset[k]) * cols + (x + dr::kColOffset[k]);
                        lowerOrEqual |= ref.isNoData(m) || ref.values[m] <= ref.values[i];
                    }
                    ASSERT_TRUE(lowerOrEqual) << "a pit at row " << y << ", column " << x;
                }
        }
    }
}

// Every cell with data reaches the grid's edge or NoData along its directions (none stops inside).
void expectEveryCellDrains(const dr::DirectionGrid& g) {
    const int rows = g.frame.rows, cols = g.frame.cols;
    for (std::size_t i = 0; i < g.dir.size(); ++i) {
        if (g.dir[i] != dr::kNoFlow) continue;
        const int r = int(i / cols), c = int(i % cols);
        bool leaves = false;
        for (int k = 0; k < 8; ++k) {
            const int rr = r + dr::kRowOffset[k], cc = c + dr::kColOffset[k];
            leaves |= rr < 0 || rr >= rows || cc < 0 || cc >= cols || g.dir[std::size_t(rr) * cols + cc] == dr::kNoData;
        }
        ASSERT_TRUE(leaves) << "no flow at row " << r << ", column " << c;
    }
}

TEST(DrainageFlats, FilledDemsDrainEverywhereAndEqualTheReference) {
    PORTACL_REQUIRE_DATA();
    std::vector<Raster> dems{portacl::io::readRaster(dataPath("dem/taudem/MED_01_01.tif")),
                             portacl::io::readRaster(dataPath("dem/pysheds/dem.tif"))};
    for (unsigned seed = 1; seed <= 2; ++seed) {
        Raster d = randomDem(61, 83, seed, true);
        for (auto& v : d.values)
            if (v != -9999) v = std::floor(v);  // wide flats
        dems.push_back(d);
    }
    for (const Raster& dem : dems) {
        SCOPED_TRACE(dem.path);
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            const Raster filled = dr::fillDepressionsReference(dem, p);
            const dr::DirectionGrid d8 = dr::d8DirectionsReference(filled, p);
            const dr::DirectionGrid ref = dr::resolveFlatsReference(filled, d8, p);
            EXPECT_EQ(dr::resolveFlats(context(), filled, d8, p).dir, ref.dir);
            expectEveryCellDrains(ref);
            // Cells D8 gave a direction keep it.
            for (std::size_t i = 0; i < d8.dir.size(); ++i)
                if (d8.dir[i] < dr::kNoFlow) ASSERT_EQ(ref.dir[i], d8.dir[i]);
            EXPECT_NO_THROW(dr::accumulateReference(ref));  // no cycle
        }
    }
}

// The pipeline (grids kept on the device between the steps) against the serial references run one
// after the other: the filled surface, the directions, the accumulation (counts; weighted sums
// without their own share; edge contamination), the Strahler order and the watersheds (every basin,
// and given outlets), cell for cell, in float and double.
TEST(DrainagePipeline, EveryStepEqualsTheSerialReferences) {
    for (unsigned seed = 1; seed <= 2; ++seed) {
        Raster dem = randomDem(53, 71, seed, true);
        for (auto& v : dem.values)
            if (v != -9999) v = std::floor(v * (seed == 1 ? 1 : 4)) / 2;  // flats and depressions
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (p == Precision::Double && !portacl::test::hasFp64()) continue;
            SCOPED_TRACE(std::to_string(seed) + (p == Precision::Float ? " float" : " double"));
            const Raster filled = dr::fillDepressionsReference(dem, p);
            const dr::DirectionGrid d8 = dr::d8DirectionsReference(filled, p);
            const dr::DirectionGrid ref = dr::resolveFlatsReference(filled, d8, p);
            std::vector<double> weights(dem.size());
            for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 0.1 * double(i % 7) + 0.3;
            dr::AccumulationOptions weighted;
            weighted.weights = &weights;
            weighted.includeSelf = false;
            weighted.precision = p;
            dr::AccumulationOptions tainted;
            tainted.edgeContamination = true;
            const dr::Accumulation counts = dr::accumulateReference(ref);
            const auto stream = dr::streams(counts, 12);
            const std::vector<std::size_t> outlets{std::size_t(40 * 71 + 30), 5, std::size_t(20 * 71 + 60)};

            dr::Pipeline pipe(context(), dem, p);
            pipe.fillDepressions();
            pipe.d8Directions();
            EXPECT_EQ(pipe.directions().dir, d8.dir);
            pipe.resolveFlats();
            EXPECT_EQ(pipe.directions().dir, ref.dir);
            expectSameAccumulation(pipe.accumulate(), counts);
            expectSameAccumulation(pipe.accumulate(weighted), dr::accumulateReference(ref, weighted));
            expectSameAccumulation(pipe.accumulate(tainted), dr::accumulateReference(ref, tainted));
            EXPECT_EQ(pipe.strahlerOrder(stream), dr::strahlerOrderReference(ref, stream));
            EXPECT_EQ(pipe.watersheds(), dr::watershedsReference(ref));
            EXPECT_EQ(pipe.watersheds(outlets), dr::watershedsReference(ref, outlets));
            EXPECT_EQ(pipe.heights().values, filled.values);
        }
    }
    // Without filling, the DEM's own heights; a step before the directions is refused.
    const Raster dem = randomDem(20, 30, 3, true);
    dr::Pipeline pipe(context(), dem, Precision::Float);
    EXPECT_NE(errorOf([&] { pipe.accumulate(); }).find("d8Directions"), std::string::npos);
    pipe.d8Directions();
    EXPECT_EQ(pipe.directions().dir, dr::d8DirectionsReference(dem, Precision::Float).dir);
}

TEST(DrainageFlats, TheGradientRunsTowardsLowerAndAwayFromHigher) {
    // A 5x7 flat at 5 m, walled at 9 m on three sides, its outlet the cell (2,0) at 4 m on the west edge.
    std::vector<double> z(5 * 7, 9.0);
    for (int r = 1; r < 4; ++r)
        for (int c = 1; c < 6; ++c) z[std::size_t(r) * 7 + c] = 5;
    z[2 * 7 + 0] = 4;
    const Raster dem = demOf(5, 7, z);
    const Precision p = portacl::test::hasFp64() ? Precision::Double : Precision::Float;
    const dr::DirectionGrid d8 = dr::d8DirectionsReference(dem, p);
    const dr::DirectionGrid g = dr::resolveFlatsReference(dem, d8, p);
    EXPECT_EQ(dr::resolveFlats(context(), dem, d8, p).dir, g.dir);
    expectEveryCellDrains(g);
    EXPECT_EQ(g.dir[2 * 7 + 1], 4);  // the cell beside the outlet: W, down to it
    // Far from the outlet the flow heads back west, along the middle row (away from the walls).
    EXPECT_EQ(g.dir[2 * 7 + 5], 4);
    EXPECT_EQ(g.dir[2 * 7 + 3], 4);
    dr::AccumulationOptions opt;
    const auto a = dr::accumulateReference(g, opt);
    EXPECT_EQ(a.counts[2 * 7 + 0], 35u);  // the whole grid (walls, flat, outlet) drains through the outlet
}

TEST(DrainageNetwork, PyshedsCatchmentsAndLargestAccumulation) {
    PORTACL_REQUIRE_DATA();
    const Raster dir = portacl::io::readRaster(dataPath("dem/pysheds/dir.asc"));
    const dr::DirectionGrid g = dr::decodeDirections(dir, dr::Encoding::Esri);
    const std::size_t cols = std::size_t(g.frame.cols);
    // pysheds' test: the catchment of the cell (row 101, column 229) holds 11422 cells; the cell
    // (100, 228) drains 11430 (the data's notes).
    const std::vector<std::size_t> outlets{101 * cols + 229, 100 * cols + 228};
    for (std::size_t j = 0; j < outlets.size(); ++j) {
        const auto dev = dr::watersheds(context(), g, {outlets[j]});
        EXPECT_EQ(dev, dr::watershedsReference(g, {outlets[j]}));
        EXPECT_EQ(std::count(dev.begin(), dev.end(), 1), j == 0 ? 11422 : 11430);
    }
    // A plain self-inclusive accumulation of the same directions peaks at 77260 (row 39, column 366).
    const auto a = dr::accumulate(context(), g);
    const auto top = std::max_element(a.counts.begin(), a.counts.end());
    EXPECT_EQ(*top, 77260u);
    EXPECT_EQ(std::size_t(top - a.counts.begin()), 39 * cols + 366);
    // Every basin: the device's labels are the reference's, and each basin's size is its outlet's accumulation.
    const auto basins = dr::watersheds(context(), g);
    ASSERT_EQ(basins, dr::watershedsReference(g));
    std::vector<std::uint64_t> size(g.dir.size() + 1, 0);
    for (auto b : basins)
        if (b > 0) ++size[std::size_t(b)];
    for (std::size_t i = 0; i < g.dir.size(); ++i) {
        const bool outlet = g.dir[i] != dr::kNoData && basins[i] > 0 &&
                            (g.dir[i] == dr::kNoFlow || [&] {
                                const int r = int(i / cols) + dr::kRowOffset[g.dir[i]], c = int(i % cols) + dr::kColOffset[g.dir[i]];
                                return r < 0 || r >= g.frame.rows || c < 0 || c >= int(cols) || g.dir[std::size_t(r) * cols + c] == dr::kNoData;
                            }());
        if (outlet) ASSERT_EQ(size[std::size_t(basins[i])], a.counts[i]) << "basin of the outlet at cell " << i;
    }
}

TEST(DrainageNetwork, StrahlerOrderOfAForkAndOfRandomNetworks) {
    // Sources at (0,0) and (4,0) meet at (2,2) (order 2); the source (4,3) joins at (2,4) (order
    // stays 2); the stream runs east along row 2.
    const int rows = 5, cols = 6;
    std::vector<int> d(rows * cols, 8);
    std::vector<std::uint8_t> stream(rows * cols, 0);
    auto set = [&](int r, int c, int k) { d[std::size_t(r) * cols + c] = k, stream[std::size_t(r) * cols + c] = 1; };
    set(0, 0, 7), set(1, 1, 7), set(4, 0, 1), set(3, 1, 1), set(2, 2, 0), set(2, 3, 0), set(2, 4, 0), set(2, 5, 0), set(4, 3, 2), set(3, 3, 1);
    const dr::DirectionGrid g = gridOf(rows, cols, d);
    const auto o = dr::strahlerOrder(context(), g, stream);
    EXPECT_EQ(o, dr::strahlerOrderReference(g, stream));
    EXPECT_EQ(o[0], 1);
    EXPECT_EQ(o[1 * cols + 1], 1);
    EXPECT_EQ(o[2 * cols + 2], 2);
    EXPECT_EQ(o[3 * cols + 3], 1);
    EXPECT_EQ(o[2 * cols + 4], 2);
    EXPECT_EQ(o[2 * cols + 5], 2);
    EXPECT_EQ(o[4], 0);  // not a stream cell
    for (unsigned seed = 1; seed <= 3; ++seed) {
        const Raster dem = randomDem(80, 90, seed, true);
        const Raster filled = dr::fillDepressionsReference(dem);
        const dr::DirectionGrid r = dr::resolveFlatsReference(filled, dr::d8DirectionsReference(filled));
        const auto s = dr::streams(dr::accumulateReference(r), 8);
        const auto ref = dr::strahlerOrderReference(r, s);
        EXPECT_EQ(dr::strahlerOrder(context(), r, s), ref);
        EXPECT_GE(*std::max_element(ref.begin(), ref.end()), 3);
        EXPECT_EQ(dr::watersheds(context(), r), dr::watershedsReference(r));
    }
    // The fork's links: numbered by their first cell, each ending at the next junction.
    const auto links = dr::streamLinks(g, stream, o);
    ASSERT_EQ(links.size(), 5u);
    const std::vector<std::vector<std::size_t>> cells{{0, 7, 14}, {14, 15, 16}, {16, 17}, {24, 19, 14}, {27, 21, 16}};
    const std::vector<std::int64_t> downstream{2, 3, 0, 2, 3};
    const std::vector<int> orders{1, 2, 2, 1, 1};
    for (std::size_t k = 0; k < links.size(); ++k) {
        EXPECT_EQ(links[k].id, std::int64_t(k) + 1);
        EXPECT_EQ(links[k].cells, cells[k]) << "link " << k + 1;
        EXPECT_EQ(links[k].downstream, downstream[k]) << "link " << k + 1;
        EXPECT_EQ(links[k].order, orders[k]) << "link " << k + 1;
    }
    // An outlet outside the grid, and a cycle, in one sentence.
    EXPECT_NE(errorOf([&] { dr::watersheds(context(), g, {std::size_t(rows * cols)}); }).find("lies outside the 5x6 grid"),
              std::string::npos);
    const dr::DirectionGrid cycle = gridOf(3, 4, {6, 6, 6, 6, 6, 0, 4, 6, 8, 8, 8, 8});
    EXPECT_NE(errorOf([&] { dr::watersheds(context(), cycle); }).find("cycle of directions through row 1, column 1"), std::string::npos);
}

TEST(DrainagePicture, HillshadeLitFromTheNorthWestWithBlueStreams) {
    // Two planes: the west half faces north-west (towards the light), the east half south-east.
    const int n = 16;
    std::vector<double> z(std::size_t(n) * n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) z[std::size_t(r) * n + c] = c < n / 2 ? 100.0 + r + c : 100.0 - r - c + 2 * n;
    Raster dem = demOf(n, n, z);
    dem.hasNoData = true, dem.noData = -1;
    dem.values[0] = -1;
    std::vector<std::uint8_t> s(dem.size(), 0);
    s[5 * n + 3] = 1;
    const portacl::io::Image img = dr::drainagePicture(dem, s);
    ASSERT_EQ(img.width, n);
    ASSERT_EQ(img.height, n);
    ASSERT_EQ(img.channels, 3);
    const unsigned char* p = img.samples<unsigned char>();
    auto grey = [&](int r, int c) { return int(p[3 * (std::size_t(r) * n + c)]); };
    EXPECT_GT(grey(8, 3), grey(8, 12) + 100);  // lit slope much brighter than the shaded one
    EXPECT_EQ(grey(0, 0), 255);                // NoData white
    EXPECT_EQ(int(p[3 * (5 * n + 3) + 2]), 220);  // the stream cell blue
    EXPECT_EQ(int(p[3 * (5 * n + 3) + 0]), 30);
}

TEST(DrainageEncodings, EveryEncodingRoundTrips) {
    for (auto e : {dr::Encoding::Esri, dr::Encoding::TauDem, dr::Encoding::RichDem, dr::Encoding::Whitebox}) {
        for (std::uint8_t d = 0; d <= dr::kNoFlow; ++d) EXPECT_EQ(dr::decodeDirection(dr::encodeDirection(d, e), e), d);
        EXPECT_EQ(dr::parseEncoding(dr::encodingName(e)), e);
    }
    // The peers' own tables: N is 64 (ESRI), 3 (TauDEM), 3 (RichDEM), 128 (Whitebox); SE 2, 8, 6, 4.
    EXPECT_EQ(dr::encodeDirection(2, dr::Encoding::Esri), 64);
    EXPECT_EQ(dr::encodeDirection(2, dr::Encoding::TauDem), 3);
    EXPECT_EQ(dr::encodeDirection(2, dr::Encoding::RichDem), 3);
    EXPECT_EQ(dr::encodeDirection(2, dr::Encoding::Whitebox), 128);
    EXPECT_EQ(dr::encodeDirection(7, dr::Encoding::Esri), 2);
    EXPECT_EQ(dr::encodeDirection(7, dr::Encoding::TauDem), 8);
    EXPECT_EQ(dr::encodeDirection(7, dr::Encoding::RichDem), 6);
    EXPECT_EQ(dr::encodeDirection(7, dr::Encoding::Whitebox), 4);
    EXPECT_NE(errorOf([] { dr::parseEncoding("arcgis"); }).find("esri, taudem, richdem or whitebox"), std::string::npos);
}

TEST(DrainageRasters, GeoTiffAndAsciiKeepNoDataGeotransformAndCrs) {
    PORTACL_REQUIRE_DATA();
    const Raster p = portacl::io::readRaster(dataPath("dem/taudem/loganp.tif"));
    EXPECT_EQ(p.rows(), 1660);
    EXPECT_EQ(p.cols(), 985);
    EXPECT_TRUE(p.hasNoData);
    EXPECT_EQ(p.noData, -32768);
    EXPECT_NE(p.frame.crsWkt.find("26912"), std::string::npos);
    for (const char* ext : {"tif", "asc"}) {
        SCOPED_TRACE(ext);
        const std::string out = scratchDir() + "/logan." + ext;
        portacl::io::writeRaster(out, p.frame, p.values, portacl::io::RasterType::Int16, true, -32768);
        const Raster back = portacl::io::readRaster(out);
        EXPECT_EQ(back.values, p.values);
        EXPECT_TRUE(back.hasNoData);
        EXPECT_EQ(back.noData, -32768);
        for (int k = 0; k < 6; ++k) EXPECT_NEAR(back.frame.geoTransform[k], p.frame.geoTransform[k], 1e-6);
        EXPECT_NE(back.frame.crsWkt.find("UTM zone 12N"), std::string::npos) << back.frame.crsWkt;
    }
    // No temporaries left: only the two grids and the ASCII grid's .prj.
    auto names = filesIn(scratchDir());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"logan.asc", "logan.prj", "logan.tif"}));
    // RichDEM's grids are ESRI ASCII grids whatever their extension.
    const Raster d8 = portacl::io::readRaster(dataPath("dem/richdem_flow_accum/testdem9.d8"));
    EXPECT_EQ(d8.rows(), 10);
    EXPECT_EQ(d8.noData, 9);
    for (const auto& name : names) std::remove((scratchDir() + "/" + name).c_str());
    rmdir(scratchDir().c_str());
}

// Several grids written together in every compression: each reads back cell for cell, in its type,
// with NoData, geotransform and coordinate system, compressed as asked in tiles of 256 x 256; when one
// of them cannot be written, none is replaced and no temporary is left.
TEST(DrainageRasters, EveryCompressionWritesTogetherOrNotAtAll) {
    namespace io = portacl::io;
    char tmpl[] = "/tmp/portacl-drainage-write-XXXXXX";
    const std::string dir = mkdtemp(tmpl) ? tmpl : "/tmp";
    RasterFrame frame;
    frame.rows = 300, frame.cols = 260;  // more than one tile each way, and partial tiles
    frame.geoTransform = {430000, 30, 0, 4620000, 0, -30};
    frame.hasGeoTransform = true;
    {
        OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
        ASSERT_EQ(OSRImportFromEPSG(srs, 26912), OGRERR_NONE);
        char* wkt = nullptr;
        OSRExportToWkt(srs, &wkt);
        frame.crsWkt = wkt;
        CPLFree(wkt);
        OSRDestroySpatialReference(srs);
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> height(-50, 3000);
    const std::size_t n = frame.size();
    std::vector<double> heights(n);
    std::vector<float> sums(n);
    std::vector<std::uint8_t> codes(n);
    std::vector<std::int16_t> shorts(n);
    std::vector<std::int32_t> labels(n);
    for (std::size_t i = 0; i < n; ++i) {
        heights[i] = i % 97 == 0 ? -9999 : double(float(height(rng)));
        sums[i] = i % 89 == 0 ? -FLT_MAX : float(height(rng) * 1e3);
        codes[i] = std::uint8_t(i % 131 == 0 ? 255 : 1 << (rng() % 8));
        shorts[i] = std::int16_t(i % 71 == 0 ? -32768 : int(rng() % 9));
        labels[i] = i % 53 == 0 ? -1 : std::int32_t(rng() % 100000);
    }
    struct Want {
        std::string name;
        io::RasterCells cells;
        io::RasterType type;
        double noData;
    };
    const std::vector<Want> wants{{"heights.tif", heights, io::RasterType::Float32, -9999},
                                  {"sums.tif", sums, io::RasterType::Float32, -FLT_MAX},
                                  {"codes.tif", codes, io::RasterType::Byte, 255},
                                  {"taudem.tif", shorts, io::RasterType::Int16, -32768},
                                  {"labels.tif", labels, io::RasterType::Int32, -1},
                                  {"wide.tif", heights, io::RasterType::Float64, -9999},
                                  {"labels.asc", labels, io::RasterType::Int32, -1}};
    auto valueOf = [](const io::RasterCells& c, std::size_t i) {
        switch (c.type) {
            case io::RasterType::Float64: return static_cast<const double*>(c.data)[i];
            case io::RasterType::Float32: return double(static_cast<const float*>(c.data)[i]);
            case io::RasterType::Byte: return double(static_cast<const std::uint8_t*>(c.data)[i]);
            case io::RasterType::Int16: return double(static_cast<const std::int16_t*>(c.data)[i]);
            default: return double(static_cast<const std::int32_t*>(c.data)[i]);
        }
    };
    const std::pair<const char*, const char*> compressions[] = {{"deflate", "DEFLATE"}, {"zstd", "ZSTD"}, {"lzw", "LZW"}, {"none", nullptr}};
    for (const auto& [name, gdalName] : compressions) {
        SCOPED_TRACE(name);
        std::vector<io::RasterOutput> outputs;
        for (const auto& w : wants) outputs.push_back({dir + "/" + w.name, &frame, w.cells, w.type, true, w.noData});
        io::writeRasters(outputs, io::parseRasterCompression(name));
        for (const auto& w : wants) {
            SCOPED_TRACE(w.name);
            const Raster back = io::readRaster(dir + "/" + w.name);
            ASSERT_EQ(back.size(), n);
            EXPECT_EQ(back.type, w.type);
            EXPECT_TRUE(back.hasNoData);
            EXPECT_EQ(back.noData, w.noData);
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back.values[i], valueOf(w.cells, i)) << "cell " << i;
            for (int k = 0; k < 6; ++k) EXPECT_EQ(back.frame.geoTransform[k], frame.geoTransform[k]);
            EXPECT_NE(back.frame.crsWkt.find("UTM zone 12N"), std::string::npos) << back.frame.crsWkt;
            if (w.name.find(".tif") == std::string::npos) continue;
            GDALDatasetH ds = GDALOpen((dir + "/" + w.name).c_str(), GA_ReadOnly);
            ASSERT_NE(ds, nullptr);
            const char* compression = GDALGetMetadataItem(ds, "COMPRESSION", "IMAGE_STRUCTURE");
            if (gdalName) EXPECT_STREQ(compression, gdalName);
            else EXPECT_EQ(compression, nullptr);
            int bx = 0, by = 0;
            GDALGetBlockSize(GDALGetRasterBand(ds, 1), &bx, &by);
            EXPECT_EQ(bx, 256);
            EXPECT_EQ(by, 256);
            GDALClose(ds);
        }
    }
    // One output in a folder that does not exist: the others keep their previous contents.
    std::vector<std::int32_t> other(n, 7);
    const std::string missing = dir + "/missing/labels.tif";
    const std::string e = errorOf([&] {
        io::writeRasters({{dir + "/labels.tif", &frame, other, io::RasterType::Int32, true, -1},
                          {missing, &frame, other, io::RasterType::Int32, true, -1}});
    });
    EXPECT_EQ(e.rfind("cannot write " + missing + ": ", 0), 0u) << e;
    EXPECT_EQ(io::readRaster(dir + "/labels.tif").values[1], double(labels[1]));
    EXPECT_NE(errorOf([] { io::parseRasterCompression("gzip"); }).find("deflate, zstd, lzw or none, not 'gzip'"), std::string::npos);
    auto names = filesIn(dir);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"codes.tif", "heights.tif", "labels.asc", "labels.prj", "labels.tif", "sums.tif",
                                               "taudem.tif", "wide.tif"}));
    for (const auto& f : names) std::remove((dir + "/" + f).c_str());
    rmdir(dir.c_str());
}

// A GeoTIFF of more than a million cells is read in bands of block rows by several threads: tiled and
// compressed, and in strips without compression (as tifffile and most tools write), every cell back.
TEST(DrainageRasters, LargeGeoTiffsReadInBandsCellForCell) {
    namespace io = portacl::io;
    char tmpl[] = "/tmp/portacl-drainage-read-XXXXXX";
    const std::string dir = mkdtemp(tmpl) ? tmpl : "/tmp";
    RasterFrame frame;
    frame.rows = 1201, frame.cols = 1000;  // 1.2 million cells, a last band shorter than the others
    frame.geoTransform = {500, 10, 0, 12010, 0, -10};
    frame.hasGeoTransform = true;
    std::vector<float> z(frame.size());
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0, 100);
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = float(i / 1000) + u(rng);
    io::writeRaster(dir + "/tiled.tif", frame, z, io::RasterType::Float32, false, 0);
    {
        GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), (dir + "/strips.tif").c_str(), frame.cols, frame.rows, 1,
                                     GDT_Float32, nullptr);
        ASSERT_NE(ds, nullptr);
        ASSERT_EQ(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, frame.cols, frame.rows, z.data(), frame.cols, frame.rows,
                               GDT_Float32, 0, 0),
                  CE_None);
        GDALClose(ds);
    }
    for (const char* name : {"tiled.tif", "strips.tif"}) {
        SCOPED_TRACE(name);
        const Raster back = io::readRaster(dir + "/" + name);
        ASSERT_EQ(back.size(), z.size());
        for (std::size_t i = 0; i < z.size(); ++i) ASSERT_EQ(back.values[i], double(z[i])) << "cell " << i;
        std::remove((dir + "/" + name).c_str());
    }
    rmdir(dir.c_str());
}

// D∞ (Tarboton 1997) on planes, where the angle is the plane's own: every interior cell's angle is the
// direction of steepest descent, on the device and in the reference, in float and double; due east,
// each cell's accumulation is its column plus one; on any plane, the flow that leaves the grid is the
// number of cells (nothing is lost or made). Random real-valued DEMs with NoData: the device's
// angles equal the reference's within 1e-4 rad (float) and 1e-9 (double), its accumulation of the
// reference's angles within 1e-5 and 1e-12 relative. A cycle and a bad angle in one sentence.
TEST(DrainageDinf, PlanesRandomDemsAndCycles) {
    const int rows = 17, cols = 23;
    const double pi = std::acos(-1.0);
    auto plane = [&](double theta) {
        Raster r = demOf(rows, cols, std::vector<double>(std::size_t(rows) * cols));
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x)  // x east, north up: row y lies at -y cells north
                r.values[std::size_t(y) * cols + x] = 400 - (std::cos(theta) * x * 10 + std::sin(theta) * (-y) * 10) * 0.37;
        r.frame.geoTransform = {0, 10, 0, 10.0 * rows, 0, -10};
        r.frame.hasGeoTransform = true;
        return r;
    };
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (p == Precision::Double && !portacl::test::hasFp64()) continue;
        SCOPED_TRACE(p == Precision::Float ? "float" : "double");
        const double tol = p == Precision::Float ? 1e-4 : 1e-9;
        for (double theta : {0.3, 1.0, 2.5, 3.5, 4.0, 5.5}) {
            SCOPED_TRACE(theta);
            const Raster dem = plane(theta);
            for (const dr::DinfGrid& g : {dr::dinfDirections(context(), dem, p), dr::dinfDirectionsReference(dem, p)})
                for (int y = 1; y + 1 < rows; ++y)
                    for (int x = 1; x + 1 < cols; ++x) ASSERT_NEAR(g.angle[std::size_t(y) * cols + x], theta, tol) << y << "," << x;
            // What leaves the grid: each cell's share towards a neighbour off the grid, and all of a cell without flow.
            dr::AccumulationOptions opt;
            opt.precision = p;
            const dr::DinfGrid g = dr::dinfDirectionsReference(dem, p);
            const dr::Accumulation a = dr::dinfAccumulate(context(), g, opt);
            double out = 0;
            for (int y = 0; y < rows; ++y)
                for (int x = 0; x < cols; ++x) {
                    const std::size_t i = std::size_t(y) * cols + x;
                    const double angle = g.angle[i];
                    if (angle < 0) {
                        out += a.sums[i];
                        continue;
                    }
                    const int k = std::min(int(std::floor(angle / (pi / 4))), 7);
                    const double f = angle / (pi / 4) - k;
                    for (auto [d, share] : {std::pair<int, double>{k, 1 - f}, {(k + 1) & 7, f}}) {
                        const int yy = y + dr::kRowOffset[d], xx = x + dr::kColOffset[d];
                        if (yy < 0 || yy >= rows || xx < 0 || xx >= cols) out += a.sums[i] * share;
                    }
                }
            EXPECT_NEAR(out, rows * cols, rows * cols * (p == Precision::Float ? 1e-5 : 1e-12));
        }
        // Due east: every cell sends all its flow east; the last column has no lower facet.
        const dr::DinfGrid east = dr::dinfDirections(context(), plane(0), p);
        dr::AccumulationOptions opt;
        opt.precision = p;
        const dr::Accumulation a = dr::dinfAccumulate(context(), east, opt);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                EXPECT_EQ(east.angle[std::size_t(y) * cols + x], x + 1 < cols ? 0.0 : dr::kDinfNoFlow) << y << "," << x;
                ASSERT_EQ(a.sums[std::size_t(y) * cols + x], x + 1) << y << "," << x;
            }
        // Random real heights (no ties) with NoData holes.
        for (unsigned seed = 1; seed <= 3; ++seed) {
            std::mt19937 rng(seed);
            std::uniform_real_distribution<double> u(0, 1);
            Raster dem = demOf(31, 37, std::vector<double>(31 * 37));
            dem.hasNoData = true, dem.noData = -9999;
            dem.frame.geoTransform = {100, 30, 0, 500, 0, -25};
            dem.frame.hasGeoTransform = true;
            for (int y = 0; y < 31; ++y)
                for (int x = 0; x < 37; ++x) dem.values[std::size_t(y) * 37 + x] = 0.3 * y + 0.2 * x + 2 * u(rng);
            for (int k = 0; k < 40; ++k) dem.values[rng() % dem.values.size()] = -9999;
            const dr::DinfGrid ref = dr::dinfDirectionsReference(dem, p);
            const dr::DinfGrid dev = dr::dinfDirections(context(), dem, p);
            for (std::size_t i = 0; i < ref.angle.size(); ++i) ASSERT_NEAR(dev.angle[i], ref.angle[i], tol) << "cell " << i;
            std::vector<double> w(dem.size());
            for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5 + double(i % 5);
            for (bool weighted : {false, true}) {
                dr::AccumulationOptions o;
                o.precision = p;
                if (weighted) o.weights = &w;
                const dr::Accumulation want = dr::dinfAccumulateReference(ref, o), got = dr::dinfAccumulate(context(), ref, o);
                ASSERT_EQ(got.valid, want.valid);
                for (std::size_t i = 0; i < want.sums.size(); ++i)
                    ASSERT_NEAR(got.sums[i], want.sums[i], std::abs(want.sums[i]) * (p == Precision::Float ? 1e-5 : 1e-12)) << "cell " << i;
            }
        }
    }
    // A cycle: E, S, W, N around a 2x2 block.
    dr::DinfGrid cycle;
    cycle.frame.rows = 2, cycle.frame.cols = 2;
    cycle.angle = {0, 3 * pi / 2, pi / 2, pi};
    const std::string want = "has a cycle of D-infinity directions through row 0, column 0";
    dr::AccumulationOptions widest;  // double, or float on a device without fp64
    widest.precision = portacl::test::hasFp64() ? Precision::Double : Precision::Float;
    EXPECT_NE(errorOf([&] { dr::dinfAccumulate(context(), cycle, widest); }).find(want), std::string::npos);
    EXPECT_NE(errorOf([&] { dr::dinfAccumulateReference(cycle, widest); }).find(want), std::string::npos);
    cycle.angle[3] = 7;
    EXPECT_NE(errorOf([&] { dr::dinfAccumulate(context(), cycle, widest); }).find("angle at row 1, column 1 is 7"), std::string::npos);
}

// The network's lines as a GeoPackage and as a Shapefile, read back through OGR: the features, their
// attributes, points and coordinate system; a rewrite replaces them; no temporary is left.
TEST(DrainageRasters, NetworkAsGeoPackageAndShapefileReadsBack) {
    char tmpl[] = "/tmp/portacl-drainage-lines-XXXXXX";
    const std::string dir = mkdtemp(tmpl) ? tmpl : "/tmp";
    const std::vector<std::string> ints{"link", "downstream", "strahler", "cells"}, reals{"length"};
    std::vector<portacl::io::LineFeature> lines(3);
    for (std::size_t k = 0; k < lines.size(); ++k) {
        for (int p = 0; p <= int(k) + 1; ++p) lines[k].points.emplace_back(430000.5 + 30 * p, 4620000.25 - 30 * p * double(k));
        lines[k].integers = {std::int64_t(k) + 1, k == 0 ? 0 : 1, std::int64_t(k % 2) + 1, std::int64_t(k) + 2};
        lines[k].reals = {42.5 * double(k + 1)};
    }
    for (const char* ext : {"gpkg", "shp"}) {
        SCOPED_TRACE(ext);
        const std::string path = dir + "/net." + ext;
        for (std::size_t count : {lines.size(), std::size_t(1)}) {  // the second write replaces the first
            const std::vector<portacl::io::LineFeature> some(lines.begin(), lines.begin() + long(count));
            portacl::io::writeLines(path, "EPSG:26912", "streams", ints, reals, some);
            GDALDatasetH ds = GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
            ASSERT_NE(ds, nullptr);
            ASSERT_EQ(GDALDatasetGetLayerCount(ds), 1);
            OGRLayerH layer = GDALDatasetGetLayer(ds, 0);
            EXPECT_EQ(OGR_L_GetFeatureCount(layer, TRUE), GIntBig(count));
            OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(layer);
            ASSERT_NE(srs, nullptr);
            EXPECT_STREQ(OSRGetAuthorityCode(srs, nullptr), "26912");
            OGR_L_ResetReading(layer);
            for (std::size_t k = 0; k < count; ++k) {
                OGRFeatureH f = OGR_L_GetNextFeature(layer);
                ASSERT_NE(f, nullptr);
                for (std::size_t j = 0; j < ints.size(); ++j)
                    EXPECT_EQ(OGR_F_GetFieldAsInteger64(f, OGR_F_GetFieldIndex(f, ints[j].c_str())), lines[k].integers[j]) << ints[j];
                EXPECT_EQ(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "length")), lines[k].reals[0]);
                OGRGeometryH g = OGR_F_GetGeometryRef(f);
                ASSERT_EQ(OGR_G_GetPointCount(g), int(lines[k].points.size()));
                for (int p = 0; p < OGR_G_GetPointCount(g); ++p) {
                    EXPECT_EQ(OGR_G_GetX(g, p), lines[k].points[std::size_t(p)].first);
                    EXPECT_EQ(OGR_G_GetY(g, p), lines[k].points[std::size_t(p)].second);
                }
                OGR_F_Destroy(f);
            }
            GDALClose(ds);
        }
    }
    auto names = filesIn(dir);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    for (const char* want : {"net.dbf", "net.gpkg", "net.prj", "net.shp", "net.shx"})
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
    for (const auto& name : names) std::remove((dir + "/" + name).c_str());
    rmdir(dir.c_str());
}

// The command line: TauDEM's Logan area from its pointers, in area units too; refusals in one line,
// before any output is written.
TEST(DrainageCli, LoganAreaAndOneLineRefusals) {
    PORTACL_REQUIRE_DATA();
    char tmpl[] = "/tmp/portacl-drainage-cli-XXXXXX";
    const std::string dir = mkdtemp(tmpl) ? tmpl : "/tmp";
    auto run = [&](const std::string& args) { return portacl::test::runDrainageCli(dir, args); };
    const std::string p = dataPath("dem/taudem/loganp.tif");
    auto ok = run("--pointers " + p + " --encoding taudem --edge-contamination --accumulation " + dir + "/ad8.tif");
    ASSERT_EQ(ok.first, 0) << ok.second;
    const Raster got = portacl::io::readRaster(dir + "/ad8.tif"), want = portacl::io::readRaster(dataPath("dem/taudem/loganad8.tif"));
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got.isNoData(i) ? -1.0 : got.values[i], want.values[i]) << i;
    ok = run("--pointers " + p + " --encoding taudem --accumulation " + dir + "/area.tif --units area");
    ASSERT_EQ(ok.first, 0) << ok.second;
    const Raster area = portacl::io::readRaster(dir + "/area.tif");
    EXPECT_EQ(*std::max_element(area.values.begin(), area.values.end()), 623788.0 * 900);  // 30 m cells
    // --compress zstd: the same cells, Zstd-compressed.
    ok = run("--pointers " + p + " --encoding taudem --edge-contamination --accumulation " + dir + "/ad8.tif --compress zstd");
    ASSERT_EQ(ok.first, 0) << ok.second;
    EXPECT_EQ(portacl::io::readRaster(dir + "/ad8.tif").values, got.values);
    GDALDatasetH zstd = GDALOpen((dir + "/ad8.tif").c_str(), GA_ReadOnly);
    ASSERT_NE(zstd, nullptr);
    EXPECT_STREQ(GDALGetMetadataItem(zstd, "COMPRESSION", "IMAGE_STRUCTURE"), "ZSTD");
    GDALClose(zstd);
    for (const std::string bad : {"/nonexistent/dem.tif --accumulation " + dir + "/x.tif",
                                  "--pointers " + p + " --accumulation " + dir + "/x.tif",  // TauDEM codes read as ESRI's
                                  "--pointers " + p + " --encoding taudem --streams " + dir + "/x.tif",
                                  "--pointers " + p + " --encoding taudem --accumulation " + dir + "/x.tif --compress gzip"}) {
        const auto r = run(bad);
        EXPECT_EQ(r.first, 1) << bad;
        EXPECT_EQ(std::count(r.second.begin(), r.second.end(), '\n'), 1) << r.second;
        EXPECT_NE(r.second.find("portacl drainage: "), std::string::npos) << r.second;
    }
    auto names = filesIn(dir);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"ad8.tif", "area.tif", "err.txt", "out.txt"}));  // no x.tif, no temporaries
    for (const auto& name : names) std::remove((dir + "/" + name).c_str());
    rmdir(dir.c_str());
}

// A folder of DEMs is a batch over two contexts: each DEM's rasters are those of its own run on one
// device, and a DEM that cannot be read fails alone, in one sentence, the others written.
TEST(DrainageCli, AFolderOfDemsOnTwoContextsEqualsEachDemAlone) {
    char tmpl[] = "/tmp/portacl-drainage-batch-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    for (const char* sub : {"dems", "dir", "acc", "streams", "alone"}) mkdir((dir + "/" + sub).c_str(), 0755);
    for (int k = 0; k < 3; ++k) {
        const Raster dem = portacl::test::withGeoTransform(portacl::test::randomDem(21 + 9 * k, 17 + 6 * k, 40u + k, k == 1));
        portacl::io::writeRaster(dir + "/dems/dem" + std::to_string(k) + ".tif", dem.frame, dem.values, portacl::io::RasterType::Float64,
                                 dem.hasNoData, dem.noData);
    }
    auto run = [&](const std::string& args) {
        const int raw = std::system((std::string(PORTACL_CLI_PATH) + " drainage " + args + " >" + dir + "/out.txt 2>" + dir + "/err.txt").c_str());
        std::ifstream err(dir + "/err.txt");
        return std::make_pair(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, std::string(std::istreambuf_iterator<char>(err), {}));
    };
    const std::string outputs = " --fill --flats --threshold 6 --directions " + dir + "/dir --accumulation " + dir + "/acc --streams " + dir + "/streams";
    auto r = run(dir + "/dems" + outputs + " --device 'pocl*2'");
    ASSERT_EQ(r.first, 0) << r.second;
    EXPECT_NE(r.second.find("3 items"), std::string::npos) << r.second;
    for (int k = 0; k < 3; ++k) {
        const std::string name = "dem" + std::to_string(k) + ".tif", a = dir + "/alone/" + std::to_string(k);
        r = run(dir + "/dems/" + name + " --fill --flats --threshold 6 --directions " + a + "dir.tif --accumulation " + a + "acc.tif --streams " + a +
                "streams.tif --device pocl");
        ASSERT_EQ(r.first, 0) << r.second;
        for (const std::string what : {"dir", "acc", "streams"}) {
            const Raster batch = portacl::io::readRaster(dir + "/" + what + "/" + name), alone = portacl::io::readRaster(a + what + ".tif");
            EXPECT_EQ(batch.values, alone.values) << what << " of " << name;
            EXPECT_EQ(batch.type, alone.type) << what << " of " << name;
            EXPECT_EQ(batch.frame.geoTransform, alone.frame.geoTransform) << what << " of " << name;
        }
    }
    // A DEM that cannot be read: the others are written, and one sentence names it.
    std::ofstream(dir + "/dems/dem9.tif") << "not a raster\n";
    r = run(dir + "/dems" + outputs + " --device 'pocl*2'");
    EXPECT_EQ(r.first, 1);
    EXPECT_NE(r.second.find("1 of 4 DEMs failed, the first '" + dir + "/dems/dem9.tif'"), std::string::npos) << r.second;
    const std::string removeAll = "rm -rf '" + dir + "'";
    EXPECT_EQ(std::system(removeAll.c_str()), 0);
}

TEST(DrainageBadInput, OneSentenceNamingTheFileAndTheCell) {
    PORTACL_REQUIRE_DATA();
    EXPECT_NE(errorOf([] { portacl::io::readRaster("/nonexistent/dem.tif"); }).find("No such file"), std::string::npos);
    {
        const std::string junk = "/tmp/portacl-drainage-junk-" + std::to_string(getpid()) + ".tif";
        std::ofstream(junk) << "not a raster at all\n";
        const std::string e = errorOf([&] { portacl::io::readRaster(junk); });
        EXPECT_EQ(e.rfind("cannot read " + junk + ": ", 0), 0u) << e;
        std::remove(junk.c_str());
    }
    // A code outside the encoding: RichDEM's grids read as ESRI codes have 3, 5 and 7.
    const Raster in = portacl::io::readRaster(dataPath("dem/richdem_flow_accum/testdem11.d8"));
    const std::string bad = errorOf([&] { dr::decodeDirections(in, dr::Encoding::Esri); });
    EXPECT_NE(bad.find("testdem11.d8 has the code 5 at row 0, column 4"), std::string::npos) << bad;
    EXPECT_NE(bad.find("not a D8 direction in the esri encoding"), std::string::npos) << bad;
    // A cycle: two cells draining into each other, named on the device and in the reference.
    const dr::DirectionGrid cycle = gridOf(3, 4, {6, 6, 6, 6, 6, 0, 4, 6, 8, 8, 8, 8});
    const std::string dev = errorOf([&] { dr::accumulate(context(), cycle); });
    EXPECT_NE(dev.find("cycle of directions through row 1, column 1"), std::string::npos) << dev;
    EXPECT_EQ(dev, errorOf([&] { dr::accumulateReference(cycle); }));
    EXPECT_EQ(dev, errorOf([&] { dr::accumulateIterative(context(), cycle, dr::Iterative::Pull); }));
    // All NoData, and a NaN height that is not NoData.
    Raster empty = demOf(2, 2, {-1, -1, -1, -1});
    empty.hasNoData = true, empty.noData = -1;
    EXPECT_NE(errorOf([&] { dr::d8Directions(context(), empty, Precision::Float); }).find("every cell is NoData"), std::string::npos);
    const Raster nan = demOf(2, 2, {1, 2, std::nan(""), 4});
    EXPECT_NE(errorOf([&] { dr::d8Directions(context(), nan, Precision::Float); }).find("NaN height at row 1, column 0"),
              std::string::npos);
}

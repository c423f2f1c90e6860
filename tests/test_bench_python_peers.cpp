// The bench's Python peers (host/bench/python_peer.hpp, tools/bench/python_peers.py): each library's
// answer, read back through the files the bench exchanges with it, equals the serial reference of the
// same algorithm (scikit-image's Lee skeleton, WhiteboxTools' D8 accumulation and basins, porespy's
// box counts); a library that is not installed skips its test, saying so.
#include <random>

#include <gtest/gtest.h>

#include "bench/python_peer.hpp"
#include "drainage/whitebox_peer.hpp"
#include "portacl/box_count.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/skeleton.hpp"

namespace portacl {
namespace {

// Python with the libraries Debian packages (python3-skimage), as the suites that compare with
// scikit-image use.
struct SystemPython {
    SystemPython() { ::setenv("PORTACL_PYTHON", PORTACL_PYTHON3, 0); }
} systemPython;

io::BinaryVolume randomBalls(int n, unsigned seed) {
    io::BinaryVolume v;
    v.nz = v.ny = v.nx = n;
    v.mask.assign(v.size(), 0);
    std::mt19937 rng(seed);
    for (int ball = 0; ball < n; ++ball) {
        const int cz = int(rng() % unsigned(n)), cy = int(rng() % unsigned(n)), cx = int(rng() % unsigned(n)), r = 2 + int(rng() % 4);
        for (int z = 0; z < n; ++z)
            for (int y = 0; y < n; ++y)
                for (int x = 0; x < n; ++x)
                    if ((z - cz) * (z - cz) + (y - cy) * (y - cy) + (x - cx) * (x - cx) <= r * r) v.mask[v.index(z, y, x)] = 1;
    }
    return v;
}

io::Raster randomDem(int n, unsigned seed) {
    io::Raster dem;
    dem.frame.rows = dem.frame.cols = n;
    dem.frame.geoTransform = {0, 10, 0, 10.0 * n, 0, -10};
    dem.frame.hasGeoTransform = true;
    std::mt19937 rng(seed);
    for (int i = 0; i < n * n; ++i) dem.values.push_back(double(i % n + i / n) + double(rng() % 1000) / 100.0);
    return dem;
}

TEST(BenchPythonPeers, AnUnknownLibraryOrOperationSaysWhy) {
    const bench::PythonPeer unknown("no-such-library");
    EXPECT_FALSE(unknown.available());
    EXPECT_NE(unknown.name().find("no-such-library"), std::string::npos) << unknown.name();

    const bench::PythonPeer skimage("scikit-image");
    if (!skimage.available()) GTEST_SKIP() << skimage.name();
    bench::writeVolumeNpy(skimage.file("v.npy"), randomBalls(8, 1));
    std::string failure;
    EXPECT_TRUE(std::isnan(skimage.time("no-such-operation", skimage.file("v.npy"), skimage.file("o.npy"), 1, 1, "", failure)));
    EXPECT_NE(failure.find("no-such-operation"), std::string::npos) << failure;
}

TEST(BenchPythonPeers, ScikitImageSkeletonIsLeesReference) {
    const bench::PythonPeer peer("scikit-image");
    if (!peer.available()) GTEST_SKIP() << peer.name();
    const io::BinaryVolume v = randomBalls(40, 7);
    bench::writeVolumeNpy(peer.file("v.npy"), v);
    std::string failure;
    const double seconds = peer.time("skeleton-lee", peer.file("v.npy"), peer.file("s.npy"), 1, 1, "", failure);
    ASSERT_FALSE(std::isnan(seconds)) << failure;
    const io::Volume theirs = io::readNpy(peer.file("s.npy"));
    const io::BinaryVolume ours = skeleton::thinReference(v);
    ASSERT_EQ(theirs.size(), ours.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) differing += (theirs.data[i] != 0) != (ours.mask[i] != 0);
    EXPECT_EQ(differing, 0u) << "of " << ours.count() << " skeleton voxels";
    EXPECT_GT(ours.count(), 0u);
}

TEST(BenchPythonPeers, PorespyCountsAreTheMixedBoxes) {
    const bench::PythonPeer peer("porespy");
    if (!peer.available()) GTEST_SKIP() << peer.name();
    const io::BinaryVolume v = randomBalls(36, 3);
    bench::writeVolumeNpy(peer.file("v.npy"), v);
    boxcount::Options opt;
    opt.count = boxcount::Count::Mixed;
    opt.sizes = {3, 5, 8, 13, 36};
    std::string failure;
    ASSERT_FALSE(std::isnan(peer.time("boxcount", peer.file("v.npy"), peer.file("c.npy"), 1, 1, "3,5,8,13,36", failure))) << failure;
    const io::Volume theirs = io::readNpy(peer.file("c.npy"));
    const boxcount::Result ours = boxcount::boxCountReference(v, opt);
    ASSERT_EQ(theirs.size(), ours.counts.size());
    for (std::size_t i = 0; i < ours.counts.size(); ++i) EXPECT_EQ(theirs.data[i], double(ours.counts[i])) << "side " << opt.sizes[i];
}

TEST(BenchPythonPeers, WhiteboxAccumulationAndBasinsOfOurPointers) {
    drainage::WhiteboxPeer peer(1, 1);
    const io::Raster dem = drainage::fillDepressionsReference(randomDem(48, 5), Precision::Double);
    const drainage::DirectionGrid d8 = drainage::d8DirectionsReference(dem, Precision::Double);
    io::Raster theirs;
    if (!peer.run("d8-accumulation", d8.frame, drainage::whiteboxPointers(d8), io::RasterType::Float64, theirs)) {
        BenchRecord why;
        peer.column(why);
        GTEST_SKIP() << why.peer;
    }
    const drainage::Accumulation ours = drainage::accumulateReference(d8);
    for (std::size_t i = 0; i < ours.counts.size(); ++i) ASSERT_EQ(theirs.values[i], double(ours.counts[i])) << "cell " << i;
    ASSERT_TRUE(peer.run("basins", d8.frame, drainage::whiteboxPointers(d8), io::RasterType::Float64, theirs));
    EXPECT_EQ(drainage::partitionDifference(drainage::watershedsReference(d8), theirs.values), "");
    BenchRecord rec;
    peer.column(rec);
    EXPECT_NE(rec.peer.find("WhiteboxTools"), std::string::npos) << rec.peer;
    EXPECT_FALSE(std::isnan(rec.peerSeconds));
}

TEST(BenchPythonPeers, PartitionsCompareAsPartitions) {
    EXPECT_EQ(drainage::partitionDifference({1, 1, 2, 2}, {5, 5, 7, 7}), "");
    EXPECT_NE(drainage::partitionDifference({1, 1, 2, 2}, {5, 5, 5, 7}), "");  // two of ours in one of theirs
    EXPECT_NE(drainage::partitionDifference({1, 1, 1, 2}, {5, 6, 6, 7}), "");  // one of ours split
}

}  // namespace
}  // namespace portacl

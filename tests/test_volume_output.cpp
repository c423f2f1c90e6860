// Binary volumes written as TIFF stacks, NIfTI-1 (.nii, .nii.gz), HDF5 and .npy keep their voxels,
// their voxel size and its unit (and in NIfTI their place in the world): read back here, read by the readers users have (tifffile, nibabel,
// h5py through tests/scripts/volume_metadata.py), and the TIFF tags held to what ImageJ writes. TIFF
// stacks written by hand as ImageJ and as other programs write them give their spacing. A name the
// writers cannot make is refused; a failed write leaves nothing.
#include <gtest/gtest.h>
#include <tiffio.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unistd.h>

#include "portacl/io/binary_volume.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"

using portacl::io::BinaryVolume;

namespace {

struct TempDir {
    std::filesystem::path p = std::filesystem::temp_directory_path() / ("portacl_volume_out_" + std::to_string(getpid()));
    TempDir() { std::filesystem::create_directories(p); }
    ~TempDir() { std::filesystem::remove_all(p); }
    std::string at(const std::string& name) const { return (p / name).string(); }
};

// A 5x4x3 (z, y, x) mask with a diagonal and a corner: no two slices alike, so a swapped axis shows.
BinaryVolume sample() {
    BinaryVolume v;
    v.nz = 5, v.ny = 4, v.nx = 3;
    v.mask.assign(v.size(), 0);
    for (int z = 0; z < v.nz; ++z) v.mask[v.index(z, z % v.ny, z % v.nx)] = 1;
    v.mask[v.index(4, 3, 0)] = 1;
    v.spacing = {2.5, 0.5, 0.25};
    v.unit = "mm";
    return v;
}

void expectSameVoxels(const portacl::io::Volume& got, const BinaryVolume& want, double on) {
    ASSERT_EQ(got.nz, want.nz);
    ASSERT_EQ(got.ny, want.ny);
    ASSERT_EQ(got.nx, want.nx);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got.data[i], want.mask[i] ? on : 0.0) << i;
}

void expectSpacing(const std::array<double, 3>& got, const std::array<double, 3>& want) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], want[k], 1e-6 * want[k]) << "axis " << k;
}

// The peer reader's line for a file, or "" when its Python module is missing.
std::string peerLine(const std::string& path, const std::string& dataset = "") {
    const std::string cmd = std::string("/usr/bin/python3 ") + PORTACL_SOURCE_DIR + "/tests/scripts/volume_metadata.py " + path + " " + dataset;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe) return "";
    char buf[512] = {};
    const bool got = std::fgets(buf, sizeof buf, pipe.get()) != nullptr;
    const int rc = pclose(pipe.release());
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) return "";
    EXPECT_EQ(rc, 0) << cmd;
    std::string line = got ? buf : "";
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
}

}  // namespace

TEST(VolumeOutput, TiffStackKeepsSpacingAsImageJWritesIt) {
    TempDir dir;
    const auto v = sample();
    const std::string path = dir.at("s.tif");
    portacl::io::writeBinaryVolume(path, v);
    const auto back = portacl::io::readVolume(path);
    expectSameVoxels(back, v, 255);
    expectSpacing(back.spacing, v.spacing);
    EXPECT_EQ(back.unit, "mm");

    // The tags: pixels per unit, no unit of their own, and ImageJ's description on the first page.
    TIFF* tif = TIFFOpen(path.c_str(), "r");
    ASSERT_NE(tif, nullptr);
    float xres = 0, yres = 0;
    std::uint16_t unit = 0;
    char* text = nullptr;
    ASSERT_EQ(TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xres), 1);
    ASSERT_EQ(TIFFGetField(tif, TIFFTAG_YRESOLUTION, &yres), 1);
    ASSERT_EQ(TIFFGetField(tif, TIFFTAG_RESOLUTIONUNIT, &unit), 1);
    ASSERT_EQ(TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &text), 1);
    EXPECT_FLOAT_EQ(xres, 4.0f);
    EXPECT_FLOAT_EQ(yres, 2.0f);
    EXPECT_EQ(unit, RESUNIT_NONE);
    EXPECT_EQ(std::string(text), "ImageJ=1.54f\nimages=5\nslices=5\nunit=mm\nspacing=2.5\nloop=false\n");
    TIFFClose(tif);

    const std::string peer = peerLine(path);
    if (peer.empty()) GTEST_SKIP() << "needs tifffile (Debian's python3-tifffile) for the peer reader's check";
    EXPECT_EQ(peer, "shape=5,4,3 sum=6 spacing=2.5,0.5,0.25 unit=mm");
}

// Stacks as Fiji saves them (µm escaped, spacing in the description) and as other programs do
// (resolution in pixels per centimetre, no z spacing: cubic voxels).
TEST(VolumeOutput, TiffStackSpacingFromImageJAndResolutionTags) {
    TempDir dir;
    auto write = [&](const std::string& path, float xres, float yres, std::uint16_t resUnit, const char* description) {
        TIFF* tif = TIFFOpen(path.c_str(), "w");
        ASSERT_NE(tif, nullptr);
        const unsigned char row[2] = {0, 1};
        for (int z = 0; z < 3; ++z) {
            TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, 2u);
            TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 1u);
            TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
            TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
            TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
            TIFFSetField(tif, TIFFTAG_XRESOLUTION, xres);
            TIFFSetField(tif, TIFFTAG_YRESOLUTION, yres);
            TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, resUnit);
            if (z == 0 && description) TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, description);
            TIFFWriteScanline(tif, const_cast<unsigned char*>(row), 0, 0);
            TIFFWriteDirectory(tif);
        }
        TIFFClose(tif);
    };
    write(dir.at("fiji.tif"), 8.0f, 8.0f, RESUNIT_NONE, "ImageJ=1.54f\nimages=3\nslices=3\nunit=\\u00B5m\nspacing=0.375\nloop=false\n");
    auto v = portacl::io::readVolume(dir.at("fiji.tif"));
    expectSpacing(v.spacing, {0.375, 0.125, 0.125});
    EXPECT_EQ(v.unit, "micron");

    write(dir.at("cm.tif"), 10.0f, 20.0f, RESUNIT_CENTIMETER, nullptr);
    v = portacl::io::readVolume(dir.at("cm.tif"));
    expectSpacing(v.spacing, {0.1, 0.05, 0.1});
    EXPECT_EQ(v.unit, "cm");

    write(dir.at("zero.tif"), 0.0f, 0.0f, RESUNIT_NONE, "ImageJ=1.54f\nspacing=-2\n");  // nonsense stays 1
    v = portacl::io::readVolume(dir.at("zero.tif"));
    expectSpacing(v.spacing, {1.0, 1.0, 1.0});
}

// The voxel-to-world matrix of a NIfTI input: turned 90 degrees about z and moved, voxels 0.25 x 0.5
// x 2.5 mm (x, y, z); written as the sform and the qform, so viewers lay the skeleton on its input.
TEST(VolumeOutput, NiftiKeepsVoxelsSpacingUnitAndPlace) {
    TempDir dir;
    auto v = sample();
    v.worldCode = 2;  // NIFTI_XFORM_ALIGNED_ANAT
    v.worldFromVoxel = {0, -0.5, 0, 10, 0.25, 0, 0, -20, 0, 0, 2.5, 5, 0, 0, 0, 1};
    for (const std::string name : {"s.nii", "s.nii.gz"}) {
        const std::string path = dir.at(name);
        portacl::io::writeBinaryVolume(path, v);
        const auto back = portacl::io::readVolume(path);  // the NIfTI reference library
        expectSameVoxels(back, v, 1);
        EXPECT_EQ(back.elementType, "uint8");
        expectSpacing(back.spacing, v.spacing);
        EXPECT_EQ(back.unit, "mm");
        EXPECT_EQ(back.worldCode, 2);
        for (std::size_t i = 0; i < 16; ++i) EXPECT_NEAR(back.worldFromVoxel[i], v.worldFromVoxel[i], 1e-6) << i;
        const std::string peer = peerLine(path);
        if (peer.empty()) GTEST_SKIP() << "needs nibabel (Debian's python3-nibabel) for the peer reader's check";
        EXPECT_EQ(peer, "shape=5,4,3 sum=6 spacing=2.5,0.5,0.25 unit=mm sform=2:0,-0.5,0,10,0.25,0,0,-20,0,0,2.5,5 "
                        "qform=2:0,-0.5,0,10,0.25,0,0,-20,0,0,2.5,5") << name;
    }
    EXPECT_EQ(std::filesystem::file_size(dir.at("s.nii")), 352u + v.size());
}

TEST(VolumeOutput, Hdf5KeepsVoxelsAndSpacingInMicrometres) {
    TempDir dir;
    const auto v = sample();
    const std::string path = dir.at("s.h5");
    portacl::io::writeBinaryVolume(path, v, "skeleton");
    const auto back = portacl::io::readVolume(path, "skeleton");
    expectSameVoxels(back, v, 1);
    expectSpacing(back.spacing, {2500, 500, 250});  // element_size_um, read first
    EXPECT_EQ(back.unit, "micron");
    const std::string peer = peerLine(path, "skeleton");
    if (peer.empty()) GTEST_SKIP() << "needs h5py (Debian's python3-h5py) for the peer reader's check";
    EXPECT_EQ(peer, "shape=5,4,3 sum=6 spacing=2500,500,250 unit=micron");
}

TEST(VolumeOutput, UnknownUnitAndNpy) {
    TempDir dir;
    auto v = sample();
    v.unit.clear();
    portacl::io::writeBinaryVolume(dir.at("u.h5"), v);
    const auto h5 = portacl::io::readVolume(dir.at("u.h5"));  // no element_size_um: the spacing attribute
    expectSpacing(h5.spacing, v.spacing);
    EXPECT_EQ(h5.unit, "");
    portacl::io::writeBinaryVolume(dir.at("u.nii"), v);
    EXPECT_EQ(portacl::io::readVolume(dir.at("u.nii")).unit, "");
    EXPECT_EQ(portacl::io::readVolume(dir.at("u.nii")).worldCode, 0);  // no place given, none written
    portacl::io::writeBinaryVolume(dir.at("u.npy"), v);
    expectSameVoxels(portacl::io::readVolume(dir.at("u.npy")), v, 1);
}

TEST(VolumeOutput, RefusesNamesItCannotWriteAndLeavesNothingOnFailure) {
    EXPECT_NO_THROW(portacl::io::checkBinaryVolumeOutputName("/tmp/a.nii.gz", "-o"));
    EXPECT_NO_THROW(portacl::io::checkBinaryVolumeOutputName("/tmp/A.NII.GZ", "-o"));
    EXPECT_NO_THROW(portacl::io::checkBinaryVolumeOutputName("/tmp/a.hdf5", "-o"));
    EXPECT_THROW(portacl::io::checkBinaryVolumeOutputName("/tmp/a.gz", "-o"), portacl::Error);
    EXPECT_THROW(portacl::io::checkBinaryVolumeOutputName("/tmp/a.png", "-o"), portacl::Error);

    // Shapes the formats cannot hold, refused from the shape alone (before a command's work).
    EXPECT_THROW(portacl::io::checkBinaryVolumeFits("/tmp/a.nii.gz", 2, 3, 40000, "-o"), portacl::Error);
    EXPECT_THROW(portacl::io::checkBinaryVolumeFits("/tmp/a.tif", 2048, 2048, 1025, "-o"), portacl::Error);
    EXPECT_NO_THROW(portacl::io::checkBinaryVolumeFits("/tmp/a.tif", 1024, 1024, 1024, "-o"));
    EXPECT_NO_THROW(portacl::io::checkBinaryVolumeFits("/tmp/a.h5", 2048, 2048, 40000, "-o"));

    TempDir dir;
    auto v = sample();
    v.nx = 40000, v.ny = 1, v.nz = 1;  // beyond NIfTI-1's 32767 a side: refused before any byte
    v.mask.assign(v.size(), 0);
    EXPECT_THROW(portacl::io::writeBinaryVolume(dir.at("big.nii"), v), portacl::Error);
    EXPECT_TRUE(std::filesystem::is_empty(dir.p));
}

// The projections along z, y and x side by side (8-pixel margins, `scale` pixels a voxel): red where
// an overlay voxel lies on the ray, grey where only object voxels do, white elsewhere.
TEST(VolumeOutput, ProjectionPictureShowsObjectAndOverlay) {
    TempDir dir;
    BinaryVolume object;
    object.nz = 3, object.ny = 4, object.nx = 5;
    object.mask.assign(object.size(), 0);
    for (int x = 0; x < 5; ++x) object.mask[object.index(1, 2, x)] = 1;  // a rod along x at z 1, y 2
    BinaryVolume overlay = object;
    overlay.mask.assign(overlay.size(), 0);
    overlay.mask[overlay.index(1, 2, 4)] = 1;  // its last voxel
    portacl::io::writeProjectionPicture(dir.at("p.png"), object, overlay, 2);
    const auto img = portacl::io::readImage(dir.at("p.png"));
    ASSERT_EQ(img.channels, 3);
    EXPECT_EQ(img.width, 4 * 8 + (5 + 5 + 4) * 2);
    EXPECT_EQ(img.height, 2 * 8 + 4 * 2);
    auto rgb = [&](int x, int y) {
        const unsigned char* p = img.data.data() + (std::size_t(y) * img.width + x) * 3;
        return std::array<int, 3>{p[0], p[1], p[2]};
    };
    const std::array<int, 3> white{255, 255, 255}, grey{190, 190, 190}, red{220, 30, 30};
    // Along z (rows y, columns x): the rod grey at y 2, its end red, row 0 white.
    EXPECT_EQ(rgb(8 + 0 * 2, 8 + 2 * 2), grey);
    EXPECT_EQ(rgb(8 + 4 * 2 + 1, 8 + 2 * 2 + 1), red);
    EXPECT_EQ(rgb(8 + 0 * 2, 8 + 0 * 2), white);
    // Along y (rows z, columns x), second panel from 8 + 10 + 8: the rod at z 1.
    EXPECT_EQ(rgb(26 + 1 * 2, 8 + 1 * 2), grey);
    EXPECT_EQ(rgb(26 + 4 * 2, 8 + 1 * 2), red);
    EXPECT_EQ(rgb(26 + 1 * 2, 8 + 2 * 2), white);
    // Along x (rows z, columns y), third panel from 26 + 10 + 8: the whole rod is one pixel, red.
    EXPECT_EQ(rgb(44 + 2 * 2, 8 + 1 * 2), red);
    EXPECT_EQ(rgb(44 + 1 * 2, 8 + 1 * 2), white);
    EXPECT_THROW(portacl::io::writeProjectionPicture(dir.at("q.png"), object, sample(), 2), portacl::Error);
}

// Image I/O: every format round-trips the sample values it can hold; truncated, empty and unsupported
// files give one sentence; writes leave no file behind on failure. The cross-check against an
// independent decoder is OpenCV (cv2.imread) on the shared images when Debian's python3 has it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "portacl/io/image.hpp"
#include "portacl/runtime/error.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::io;

namespace {

std::string tempPath(const std::string& name) {
    return (testing::TempDir().empty() ? std::string("/tmp/") : testing::TempDir()) + "portacl_io_" +
           std::to_string(::getpid()) + "_" + name;
}

bool exists(const std::string& p) { return std::ifstream(p).good(); }

Image pattern(int w, int h, int c, PixelType t) {
    Image img = makeImage(w, h, c, t);
    for (std::size_t i = 0; i < img.sampleCount(); ++i) {
        const unsigned v = static_cast<unsigned>(i * 2654435761u >> 7);
        if (t == PixelType::U8) img.data[i] = static_cast<unsigned char>(v);
        else if (t == PixelType::U16) img.samples<unsigned short>()[i] = static_cast<unsigned short>(v);
        else img.samples<float>()[i] = static_cast<float>(v % 100000) * 0.37f - 1000.0f;
    }
    return img;
}

void expectSame(const Image& a, const Image& b) {
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    ASSERT_EQ(a.channels, b.channels);
    ASSERT_EQ(a.type, b.type);
    EXPECT_EQ(a.data, b.data);
}

void roundTrip(const std::string& ext, int c, PixelType t) {
    const Image img = pattern(37, 23, c, t);
    const std::string p = tempPath("rt_" + std::to_string(c) + pixelTypeName(t) + "." + ext);
    writeImage(p, img);
    expectSame(readImage(p), img);
    std::remove(p.c_str());
}

void truncate(const std::string& from, const std::string& to, double keep) {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(to, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() * keep));
}

}  // namespace

TEST(ImageIo, PngRoundTripsEveryDepthAndChannelCount) {
    for (PixelType t : {PixelType::U8, PixelType::U16})
        for (int c = 1; c <= 4; ++c) roundTrip("png", c, t);
}

TEST(ImageIo, TiffRoundTripsIntegerAndFloat) {
    for (PixelType t : {PixelType::U8, PixelType::U16, PixelType::F32})
        for (int c = 1; c <= 4; ++c) roundTrip("tif", c, t);
}

TEST(ImageIo, PnmRoundTripsGreyAndColour) {
    for (PixelType t : {PixelType::U8, PixelType::U16}) {
        roundTrip("pgm", 1, t);
        roundTrip("ppm", 3, t);
    }
}

TEST(ImageIo, BmpRoundTripsColourAndKeepsGreyValues) {
    roundTrip("bmp", 3, PixelType::U8);
    roundTrip("bmp", 4, PixelType::U8);
    // stb writes grey as 24-bit RGB: the values come back in three equal channels.
    const Image grey = pattern(19, 11, 1, PixelType::U8);
    const std::string p = tempPath("grey.bmp");
    writeImage(p, grey);
    const Image back = readImage(p);
    ASSERT_EQ(back.channels, 3);
    for (std::size_t i = 0; i < grey.pixelCount(); ++i)
        for (int k = 0; k < 3; ++k) ASSERT_EQ(back.data[3 * i + k], grey.data[i]);
    std::remove(p.c_str());
}

TEST(ImageIo, ReadsTheSharedPngImages) {
    PORTACL_REQUIRE_DATA();
    const Image cam = readImage(test::dataPath("images/camera.png"));
    EXPECT_EQ(cam.width, 512);
    EXPECT_EQ(cam.height, 512);
    EXPECT_EQ(cam.channels, 1);
    const Image chelsea = readImage(test::dataPath("images/chelsea.png"));
    EXPECT_EQ(chelsea.channels, 3);
}

TEST(ImageIo, TruncatedFilesAreRefusedWithOneSentence) {
    for (const std::string ext : {"png", "tif", "bmp", "pgm"}) {
        const Image img = pattern(64, 48, ext == "pgm" ? 1 : 3, PixelType::U8);
        const std::string full = tempPath("full." + ext), cut = tempPath("cut." + ext);
        writeImage(full, img);
        truncate(full, cut, 0.6);
        try {
            readImage(cut);
            ADD_FAILURE() << "a truncated ." << ext << " was accepted";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(cut), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        }
        std::remove(full.c_str());
        std::remove(cut.c_str());
    }
}

TEST(ImageIo, MissingEmptyAndForeignFilesAreRefused) {
    EXPECT_THROW(readImage(tempPath("does_not_exist.png")), Error);
    const std::string empty = tempPath("empty.png");
    std::ofstream(empty).close();
    EXPECT_THROW(readImage(empty), Error);
    const std::string text = tempPath("text.png");
    std::ofstream(text) << "hello, not an image\n";
    EXPECT_THROW(readImage(text), Error);
    std::remove(empty.c_str());
    std::remove(text.c_str());
}

TEST(ImageIo, UnwritableCombinationsLeaveNoFile) {
    const std::string p1 = tempPath("float.png"), p2 = tempPath("rgba.ppm"), p3 = tempPath("grey.ppm"),
                      p4 = tempPath("x.jpg"), p5 = tempPath("deep.bmp");
    EXPECT_THROW(writeImage(p1, pattern(8, 8, 1, PixelType::F32)), Error);
    EXPECT_THROW(writeImage(p2, pattern(8, 8, 4, PixelType::U8)), Error);
    EXPECT_THROW(writeImage(p3, pattern(8, 8, 1, PixelType::U8)), Error);
    EXPECT_THROW(writeImage(p4, pattern(8, 8, 1, PixelType::U8)), Error);
    EXPECT_THROW(writeImage(p5, pattern(8, 8, 3, PixelType::U16)), Error);
    for (const auto& p : {p1, p2, p3, p4, p5}) EXPECT_FALSE(exists(p)) << p;
    EXPECT_THROW(writeImage("/nonexistent_dir/x.png", pattern(8, 8, 1, PixelType::U8)), Error);
}

TEST(ImageIo, AgreesWithOpenCvDecoding) {
    PORTACL_REQUIRE_DATA();
    if (std::system("/usr/bin/python3 -c 'import cv2' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "/usr/bin/python3 has no cv2 (install python3-opencv) - OpenCV cross-check skipped";
    // OpenCV re-encodes a shared image as PGM/PPM/BMP/TIFF; ours must read the same samples from all.
    const Image ref = readImage(test::dataPath("images/chelsea.png"));
    const std::string base = tempPath("cv");
    const std::string cmd = "/usr/bin/python3 -c \"import cv2,sys; im=cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED); "
                            "[cv2.imwrite(sys.argv[2]+e, im) for e in ('.ppm','.bmp','.tif')]\" " +
                            test::dataPath("images/chelsea.png") + " " + base;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    for (const std::string ext : {".ppm", ".bmp", ".tif"}) {
        expectSame(readImage(base + ext), ref);
        std::remove((base + ext).c_str());
    }
    // A grey image: OpenCV writes an 8-bit palette BMP (the thesis's format) and a PGM; both come
    // back with one channel.
    const Image grey = readImage(test::dataPath("images/camera.png"));
    const std::string cmdGrey = "/usr/bin/python3 -c \"import cv2,sys; im=cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE); "
                                "[cv2.imwrite(sys.argv[2]+e, im) for e in ('.pgm','.bmp')]\" " +
                                test::dataPath("images/camera.png") + " " + base;
    ASSERT_EQ(std::system(cmdGrey.c_str()), 0);
    for (const std::string ext : {".pgm", ".bmp"}) {
        expectSame(readImage(base + ext), grey);
        std::remove((base + ext).c_str());
    }
}

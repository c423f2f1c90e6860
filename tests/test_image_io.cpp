// Image I/O: every format round-trips the sample values it can hold; truncated, empty and unsupported
// files give one sentence; writes leave no file behind on failure. The cross-check against an
// independent decoder is OpenCV (cv2.imread) on the shared images when Debian's python3 has it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "portacl/io/image.hpp"
#include "portacl/io/image_stack.hpp"
#include "portacl/runtime/error.hpp"
#include "support/cli_run.hpp"
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

// A stack's pages compressed apart (on any thread) and appended as they are make the file that
// appending the images makes, byte for byte: several strips, every sample type, grey to RGBA.
TEST(ImageIo, TiffStackPagesEncodedApartMakeTheSameFile) {
    const std::vector<Image> pages = {pattern(300, 700, 1, PixelType::U8), pattern(64, 33, 3, PixelType::U16),
                                      pattern(129, 257, 4, PixelType::U8), pattern(90, 41, 1, PixelType::F32),
                                      pattern(17, 1000, 2, PixelType::U8)};
    const std::string a = tempPath("stack_a.tif"), b = tempPath("stack_b.tif");
    {
        TiffStackWriter whole(a), encoded(b);
        for (const Image& p : pages) {
            whole.append(p);
            encoded.append(TiffStackWriter::encode(p));
        }
        whole.commit();
        encoded.commit();
    }
    const std::string bytesA = test::readWhole(a), bytesB = test::readWhole(b);
    EXPECT_GT(bytesA.size(), 1000u);
    EXPECT_TRUE(bytesA == bytesB) << bytesA.size() << " and " << bytesB.size() << " bytes";
    for (std::size_t i = 0; i < pages.size(); ++i) expectSame(readTiffPage(b, i), pages[i]);
    EXPECT_THROW(TiffStackWriter::encode(makeImage(0, 0, 1, PixelType::U8)), Error);
    std::remove(a.c_str());
    std::remove(b.c_str());
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

// libnetpbm fills the caller's pam structure up to the length it is given, which must not come from
// netpbm's PAM_STRUCT_SIZE(tuple_type): that macro is a member access through a null pointer, which
// clang's UndefinedBehaviorSanitizer reports on this test (scripts/sanitize.sh runs it). Every PNM read
// passes through that call: a PAM file with a tuple type (the last member the length must cover),
// 16-bit samples, and the plain (ASCII) PGM and PPM headers, each against sample values written here.
TEST(ImageIo, PamAndPlainPnmHeadersReadTheirSamples) {
    auto write = [](const std::string& path, const std::string& bytes) {
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    };
    // PAM, grey + alpha, 8-bit, 3 x 2.
    const std::string pam8 = write(tempPath("ga.pam"),
        "P7\nWIDTH 3\nHEIGHT 2\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n" +
        std::string("\x00\xff\x10\x80\x20\x40\x30\x01\x40\x02\xfe\x03", 12));
    Image a = readImage(pam8);
    ASSERT_EQ(a.width, 3);
    ASSERT_EQ(a.height, 2);
    ASSERT_EQ(a.channels, 2);
    ASSERT_EQ(a.type, PixelType::U8);
    const unsigned char want8[] = {0x00, 0xff, 0x10, 0x80, 0x20, 0x40, 0x30, 0x01, 0x40, 0x02, 0xfe, 0x03};
    EXPECT_TRUE(std::equal(a.data.begin(), a.data.end(), want8));
    // PAM, RGB, 16-bit (big-endian samples), 2 x 1.
    const std::string pam16 = write(tempPath("rgb16.pam"),
        "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 65535\nTUPLTYPE RGB\nENDHDR\n" +
        std::string("\x00\x01\x12\x34\xff\xff\x80\x00\x00\x00\xab\xcd", 12));
    Image b = readImage(pam16);
    ASSERT_EQ(b.channels, 3);
    ASSERT_EQ(b.type, PixelType::U16);
    const unsigned short want16[] = {0x0001, 0x1234, 0xffff, 0x8000, 0x0000, 0xabcd};
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(b.samples<unsigned short>()[i], want16[i]) << i;
    // Plain PGM with a comment, and plain PPM.
    Image c = readImage(write(tempPath("plain.pgm"), "P2\n# a comment\n2 2\n15\n0 7\n15 3\n"));
    ASSERT_EQ(c.channels, 1);
    const unsigned char wantGrey[] = {0, 7, 15, 3};  // maxvals other than 255 are kept as read
    EXPECT_TRUE(std::equal(c.data.begin(), c.data.end(), wantGrey));
    Image d = readImage(write(tempPath("plain.ppm"), "P3\n1 2\n255\n1 2 3\n250 251 252\n"));
    ASSERT_EQ(d.channels, 3);
    const unsigned char wantColour[] = {1, 2, 3, 250, 251, 252};
    EXPECT_TRUE(std::equal(d.data.begin(), d.data.end(), wantColour));
    // Raw PGM and PPM, whose rasters of maxval 255 and 65535 are read in one block: 16-bit big-endian
    // grey, 8-bit colour, and a maxval of 100 (through libnetpbm's rows, values kept as read).
    Image e = readImage(write(tempPath("raw16.pgm"), "P5\n# c\n3 1\n65535\n" + std::string("\x01\x02\xff\xfe\x00\x07", 6)));
    ASSERT_EQ(e.type, PixelType::U16);
    EXPECT_EQ(e.samples<unsigned short>()[0], 0x0102);
    EXPECT_EQ(e.samples<unsigned short>()[1], 0xfffe);
    EXPECT_EQ(e.samples<unsigned short>()[2], 0x0007);
    Image f = readImage(write(tempPath("raw.ppm"), "P6\n2 1\n255\n" + std::string("\x01\x02\x03\xfa\xfb\xfc", 6)));
    ASSERT_EQ(f.channels, 3);
    EXPECT_TRUE(std::equal(f.data.begin(), f.data.end(), wantColour));
    Image g = readImage(write(tempPath("raw100.pgm"), "P5\n2 2\n100\n" + std::string("\x00\x07\x64\x03", 4)));
    const unsigned char want100[] = {0, 7, 100, 3};
    EXPECT_TRUE(std::equal(g.data.begin(), g.data.end(), want100));
    for (const std::string& p : {pam8, pam16, tempPath("plain.pgm"), tempPath("plain.ppm"), tempPath("raw16.pgm"), tempPath("raw.ppm"),
                                 tempPath("raw100.pgm")})
        std::remove(p.c_str());
}

// PGM and PPM files read and written on many threads at once (a batch's members and writers) give
// every file its own samples: libnetpbm's process-wide state is used by one thread at a time.
TEST(ImageIo, PnmOnManyThreadsAtOnce) {
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([t, &wrong] {
            for (int round = 0; round < 20; ++round) {
                const std::string ext = (t + round) % 2 ? "pgm" : "ppm";
                const Image img = pattern(37 + t, 23 + round, ext == "pgm" ? 1 : 3, round % 3 ? PixelType::U8 : PixelType::U16);
                const std::string path = tempPath("threads" + std::to_string(t) + "." + ext);
                writeImage(path, img);
                const Image back = readImage(path);
                if (back.data != img.data || back.width != img.width || back.type != img.type) ++wrong;
                std::remove(path.c_str());
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
}

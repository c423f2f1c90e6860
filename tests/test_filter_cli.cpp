// `portacl filter` from the outside: a pipeline writes the reference's image; the pages of a
// multi-page TIFF, a batch on two contexts, give a stack whose every page is that page filtered
// alone; bad input (even, non-numeric or oversized mask, truncated or unsupported file, unknown
// border, a stack with a page that fails) ends in one sentence on stderr, a non-zero exit and no
// output file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "portacl/filter.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/image_stack.hpp"
#include "support/test_support.hpp"

using namespace portacl;

namespace {

std::string scratch(const std::string& name) { return testing::TempDir() + "portacl_fcli_" + std::to_string(::getpid()) + "_" + name; }

bool exists(const std::string& p) { return std::ifstream(p).good(); }

struct Result {
    int status;
    std::string err;
};

Result runCli(const std::string& args) {
    const std::string errFile = scratch("stderr.txt");
    const std::string cmd = std::string(PORTACL_CLI_PATH) + " filter " + args + " >/dev/null 2>" + errFile;
    const int raw = std::system(cmd.c_str());
    std::ifstream in(errFile);
    std::stringstream ss;
    ss << in.rdbuf();
    std::remove(errFile.c_str());
    std::string err = ss.str();
    // The device notice ("portacl: no GPU found; ...") is not the error.
    std::string kept, line;
    std::istringstream ls(err);
    while (std::getline(ls, line))
        if (line.find("no GPU found") == std::string::npos) kept += line + "\n";
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, kept};
}

void expectRefused(const std::string& args, const std::string& out, const std::string& mention) {
    const Result r = runCli(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
    EXPECT_FALSE(exists(out)) << out;
    EXPECT_FALSE(exists(out + ".tmp." + std::to_string(::getpid())));
}

}  // namespace

TEST(FilterCli, PipelineWritesTheReferenceImage) {
    PORTACL_REQUIRE_DATA();
    const std::string in = test::dataPath("images/coins.png"), out = scratch("out.png");
    const Result r = runCli(in + " " + out + " --op median:5 --op sobel --border reflect101");
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<filter::Operation> ops{filter::parseOperation("median:5"), filter::parseOperation("sobel")};
    EXPECT_EQ(io::readImage(out).data, filter::filterReference(io::readImage(in), ops, {}).data);
    std::remove(out.c_str());
}

TEST(FilterCli, ListNamesEveryOperation) {
    const std::string listFile = scratch("list.txt");
    ASSERT_EQ(std::system((std::string(PORTACL_CLI_PATH) + " filter --list >" + listFile).c_str()), 0);
    std::ifstream in(listFile);
    std::stringstream ss;
    ss << in.rdbuf();
    for (const auto& h : filter::operationList()) EXPECT_NE(ss.str().find(h.syntax), std::string::npos) << h.syntax;
    std::remove(listFile.c_str());
}

TEST(FilterCli, BadInputIsOneSentenceAndNoOutput) {
    PORTACL_REQUIRE_DATA();
    const std::string img = test::dataPath("images/camera.png"), out = scratch("bad.png");
    const std::string even = scratch("even.txt"), text = scratch("text.txt");
    std::ofstream(even) << "1 2\n3 4\n";
    std::ofstream(text) << "1 2 1\n2 four 2\n1 2 1\n";
    expectRefused(img + " " + out + " --op conv:" + even, out, "odd");
    expectRefused(img + " " + out + " --op conv:" + text, out, "not a number");
    expectRefused(img + " " + out + " --op median:4", out, "odd");
    expectRefused(img + " " + out + " --op frobnicate", out, "unknown operation");
    expectRefused(img + " " + out + " --op box:3 --border mirror", out, "border");

    // A mask larger than the image is computed, as OpenCV computes it (the border rule applied again
    // and again): 1xN, Nx1 and 5x4 images under a 7x7 box, a Gaussian and a median equal the serial
    // reference.
    for (const auto& [w, h] : {std::pair<int, int>{1, 9}, {9, 1}, {5, 4}}) {
        const std::string tiny = scratch("tiny.png"), ref = scratch("tiny_ref.png");
        io::Image t = io::makeImage(w, h, 1, io::PixelType::U8);
        for (int i = 0; i < w * h; ++i) t.samples<unsigned char>()[i] = static_cast<unsigned char>((i * 73 + 11) % 251);
        io::writeImage(tiny, t);
        for (const std::string op : {"box:7", "gaussian:5:1.5", "median:5", "sobel"}) {
            const Result r = runCli(tiny + " -o " + out + " --op " + op), s = runCli(tiny + " -o " + ref + " --op " + op + " --serial");
            ASSERT_EQ(r.status, 0) << w << "x" << h << " " << op << ": " << r.err;
            ASSERT_EQ(s.status, 0) << s.err;
            const io::Image a = io::readImage(out), b = io::readImage(ref);
            EXPECT_EQ(a.data, b.data) << w << "x" << h << " " << op;
            std::remove(out.c_str());
            std::remove(ref.c_str());
        }
    }

    // A truncated file.
    const std::string cut = scratch("cut.png");
    {
        std::ifstream src(img, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
        std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    }
    expectRefused(cut + " " + out + " --op box:3", out, cut);

    // An unsupported depth: a 1-bit PBM.
    const std::string pbm = scratch("bits.pbm");
    std::ofstream(pbm, std::ios::binary) << "P4\n8 2\n" << '\xAA' << '\x55';
    expectRefused(pbm + " " + out + " --op box:3", out, "supported");

    // A missing file.
    expectRefused(scratch("missing.png") + " " + out + " --op box:3", out, "missing.png");
    for (const auto& f : {even, text, cut, pbm}) std::remove(f.c_str());
}

namespace {

// Pages of different sizes and kinds (RGB and RGBA 8-bit, RGB 16-bit), random samples; `greyAt`
// makes that page grey instead.
std::vector<io::Image> stackPages(int n, int greyAt = -1) {
    std::mt19937 rng(29);
    std::vector<io::Image> pages;
    for (int i = 0; i < n; ++i) {
        const io::PixelType type = i == 2 ? io::PixelType::U16 : io::PixelType::U8;
        io::Image img = io::makeImage(37 + 11 * i, 23 + 7 * i, i == greyAt ? 1 : (i == 1 ? 4 : 3), type);
        for (auto& b : img.data) b = static_cast<unsigned char>(rng() & 0xff);
        pages.push_back(std::move(img));
    }
    return pages;
}

void writeStack(const std::string& path, const std::vector<io::Image>& pages) {
    io::TiffStackWriter w(path);
    for (const auto& p : pages) w.append(p);
    w.commit();
}

void expectSameImage(const io::Image& a, const io::Image& b, const std::string& what) {
    EXPECT_EQ(a.width, b.width) << what;
    EXPECT_EQ(a.height, b.height) << what;
    EXPECT_EQ(a.channels, b.channels) << what;
    EXPECT_EQ(a.type, b.type) << what;
    EXPECT_TRUE(a.data == b.data) << what;
}

}  // namespace

TEST(FilterCli, MultiPageTiffIsABatchOfPagesEachAsFilteredAlone) {
    const std::string stack = scratch("stack.tif"), out = scratch("stack_out.tif"), alone = scratch("pages"), aloneOut = scratch("pages_out");
    const std::vector<io::Image> pages = stackPages(4);
    writeStack(stack, pages);
    ASSERT_EQ(io::tiffPageCount(stack), pages.size());
    const std::string ops = " --op median:3 --op sobel";
    const Result r = runCli(stack + " -o " + out + ops + " --device 'pocl*2'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("4 items"), std::string::npos) << r.err;
    ASSERT_EQ(io::tiffPageCount(out), pages.size());
    // Each page as a file of its own, filtered on one device (a folder: one process for them all).
    std::filesystem::create_directories(alone);
    std::filesystem::create_directories(aloneOut);
    for (std::size_t k = 0; k < pages.size(); ++k) io::writeImage(alone + "/page" + std::to_string(k) + ".tif", pages[k]);
    const Result each = runCli(alone + " -o " + aloneOut + ops + " --device pocl");
    ASSERT_EQ(each.status, 0) << each.err;
    std::vector<filter::Operation> parsed{filter::parseOperation("median:3"), filter::parseOperation("sobel")};
    for (std::size_t k = 0; k < pages.size(); ++k) {
        const io::Image fromStack = io::readTiffPage(out, k);
        const std::string what = "page " + std::to_string(k + 1);
        expectSameImage(fromStack, io::readImage(aloneOut + "/page" + std::to_string(k) + ".tif"), what + " against the page alone");
        expectSameImage(fromStack, filter::filterReference(pages[k], parsed, {}), what + " against the reference");
    }
    for (const auto& p : {stack, out, alone, aloneOut}) std::filesystem::remove_all(p);
}

TEST(FilterCli, MultiPageTiffWithAFailingPageWritesNothing) {
    const std::string stack = scratch("badstack.tif"), out = scratch("badstack_out.tif");
    writeStack(stack, stackPages(4, 2));  // page 3 is grey: 'grey' needs colour
    const Result r = runCli(stack + " -o " + out + " --op grey --device 'pocl*2'");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("1 of 4 pages failed, the first page 3 of"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(out));
    const std::string name = std::filesystem::path(out).filename().string();
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path()))
        EXPECT_NE(e.path().filename().string().rfind(name, 0), 0u) << "left behind: " << e.path();  // no temporary either
    expectRefused(stack + " -o " + scratch("stack.png") + " --op grey", scratch("stack.png"), "multi-page TIFF");
    std::remove(stack.c_str());
}

// `portacl filter` from the outside: a pipeline writes the reference's image; bad input (even,
// non-numeric or oversized mask, truncated or unsupported file, unknown border) ends in one
// sentence on stderr, a non-zero exit and no output file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "portacl/filter.hpp"
#include "portacl/io/image.hpp"
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

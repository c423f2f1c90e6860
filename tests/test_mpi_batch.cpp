// Batches over the ranks of an MPI job (`mpirun -n 2 --oversubscribe portacl ...` on PoCL): the
// frames of a multi-model structure (text and HDF5), a folder of images and the pages of a TIFF
// stack give, byte for byte, what one process gives; an output that fails on a rank's writers is
// named by rank 0; a straggling rank's chunk is copied by rank 0 and the job does not wait for it; a rank whose
// device fails (an injected fault) hands its items back and none is lost; a
// rank that dies ends the job with a non-zero status, no output and no hang; a
// rank that sees no device ends the job in one sentence from rank 0, with a non-zero status and no
// output; a command that does not spread over ranks is refused once.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "portacl/io/image.hpp"
#include "portacl/io/image_stack.hpp"
#include "portacl/runtime/host_cores.hpp"
#include "support/cli_run.hpp"
#include "support/test_support.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) { return test::scratchPath("portacl_mpi_", name); }
using test::ShellResult;

ShellResult run(const std::string& cmd) { return test::runShell(cmd); }

const std::string cli = PORTACL_CLI_PATH;
// Two ranks on this machine, whatever its cores, as root in CI containers. Open MPI's own messages
// about a failed job go to the log, not to the checks below (they look for portacl's sentence).
const std::string mpirun = std::string(PORTACL_MPIEXEC) + " --oversubscribe --allow-run-as-root --mca btl self,vader ";

// Rank 0 and rank 1 with different environments (Open MPI's MPMD form).
std::string twoRanks(const std::string& env0, const std::string& env1, const std::string& args) {
    return std::string(PORTACL_MPIEXEC) + " --oversubscribe --allow-run-as-root --mca btl self,vader -n 1 " + env0 + " " + cli + " " + args +
           " : -n 1 " + env1 + " " + cli + " " + args;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// A folder of n random 8-bit grey images of different sizes.
void makeImages(const std::string& dir, int n) {
    fs::create_directories(dir);
    std::mt19937 rng(11);
    for (int i = 0; i < n; ++i) {
        io::Image img = io::makeImage(30 + 7 * i, 20 + 3 * i, 1, io::PixelType::U8);
        for (auto& b : img.data) b = static_cast<unsigned char>(rng() & 0xff);
        io::writeImage(dir + "/img" + std::to_string(i) + ".png", img);
    }
}

}  // namespace

TEST(MpiBatch, VoronoiFramesOverTwoRanksEqualOneProcess) {
    PORTACL_REQUIRE_DATA();
    const std::string one = scratch("vone"), two = scratch("vtwo"), pdb = scratch("10models.pdb");
    fs::create_directories(one);
    fs::create_directories(two);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 10, pdb);
    ShellResult r = run(cli + " voronoi " + pdb + " -o " + one + "/v.txt --edges " + one + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = run(mpirun + "-n 2 " + cli + " voronoi " + pdb + " -o " + two + "/v.txt --edges " + two + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("on 2 ranks"), std::string::npos) << r.err;
    test::expectSameFolders(one, two);
    for (const auto& d : {one, two, pdb}) fs::remove_all(d);
}

// Rank 0 writes the frames as the ranks' diagrams arrive, HDF5 files included (after the batch).
TEST(MpiBatch, VoronoiHdf5FramesOverTwoRanksEqualOneProcess) {
    PORTACL_REQUIRE_DATA();
    const std::string one = scratch("hone"), two = scratch("htwo"), pdb = scratch("5models.pdb");
    fs::create_directories(one);
    fs::create_directories(two);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 5, pdb);
    ShellResult r = run(cli + " voronoi " + pdb + " -o " + one + "/v.h5 --edges " + one + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = run(mpirun + "-n 2 " + cli + " voronoi " + pdb + " -o " + two + "/v.h5 --edges " + two + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("on 2 ranks"), std::string::npos) << r.err;
    test::expectSameFolders(one, two);
    for (const auto& d : {one, two, pdb}) fs::remove_all(d);
}

// An output that fails while a rank writes it behind its devices (a 16-bit image cannot be a BMP)
// reaches rank 0, which names it in the job's one sentence; the other images are written.
TEST(MpiBatch, AnOutputThatFailsBehindARanksDevicesIsReportedByRankZero) {
    const std::string in = scratch("win"), out = scratch("wout");
    makeImages(in, 6);
    io::Image deep = io::makeImage(24, 16, 1, io::PixelType::U16);
    io::writeImage(in + "/deep.png", deep);
    fs::rename(in + "/deep.png", in + "/img3deep.bmp");  // a PNG by its content, a BMP by its name
    fs::create_directories(out);
    const ShellResult r = run(twoRanks("env PORTACL_BATCH_SLOW=0:0.3", "", "filter " + in + " -o " + out + " --op box:3 --device pocl"));
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("1 of 7 images failed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("img3deep.bmp"), std::string::npos) << r.err;
    for (int i = 0; i < 6; ++i) EXPECT_TRUE(fs::exists(out + "/img" + std::to_string(i) + ".png")) << i;
    EXPECT_FALSE(fs::exists(out + "/img3deep.bmp"));
    for (const auto& d : {in, out}) fs::remove_all(d);
}

TEST(MpiBatch, FilterFolderOverTwoRanksSurvivesAFailedRank) {
    const std::string in = scratch("in"), one = scratch("fone"), two = scratch("ftwo");
    makeImages(in, 9);
    for (const auto& d : {one, two}) fs::create_directories(d);
    const std::string ops = " --op median:3 --op sobel --device pocl";
    ShellResult r = run(cli + " filter " + in + " -o " + one + ops);
    ASSERT_EQ(r.status, 0) << r.err;
    // Rank 1's only device fails on its first image: it hands its images back and rank 0 filters them.
    // Rank 0's device waits half a second before each image, so that it cannot have filtered every
    // image, rank 1's chunk included, before rank 1 has started.
    r = run(twoRanks("env PORTACL_BATCH_SLOW=0:0.5", "env PORTACL_BATCH_FAULT=0:1", "filter " + in + " -o " + two + ops));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("injected fault"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rank 1 0 (failed"), std::string::npos) << r.err;
    test::expectSameFolders(one, two);
    for (const auto& d : {in, one, two}) fs::remove_all(d);
}

// The pages of a multi-page TIFF: rank 1 filters pages too (rank 0's device waits a second before
// each call), they travel to rank 0, and its stack is the one process's, byte for byte.
TEST(MpiBatch, FilterTiffStackOverTwoRanksEqualsOneProcess) {
    const std::string in = scratch("pages"), dir = scratch("stack");
    makeImages(in, 8);
    fs::create_directories(dir);
    {
        io::TiffStackWriter stack(dir + "/stack.tif");
        for (int i = 0; i < 8; ++i) stack.append(io::readImage(in + "/img" + std::to_string(i) + ".png"));
        stack.commit();
    }
    const std::string ops = " --op median:3 --op sobel --device pocl";
    ShellResult r = run(cli + " filter " + dir + "/stack.tif -o " + dir + "/one.tif" + ops);
    ASSERT_EQ(r.status, 0) << r.err;
    r = run(twoRanks("env PORTACL_BATCH_SLOW=0:1", "", "filter " + dir + "/stack.tif -o " + dir + "/two.tif" + ops));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("on 2 ranks"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("rank 1 0"), std::string::npos) << "rank 1 filtered no page: " << r.err;
    const std::string a = test::readWhole(dir + "/one.tif");
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(a == test::readWhole(dir + "/two.tif"));
    for (const auto& d : {in, dir}) fs::remove_all(d);
}

// A straggling rank (PORTACL_BATCH_SLOW: rank 1's device waits 60 s before each chunk) does not
// hold the job: rank 0 computes a copy of its chunk, keeps it and tells rank 1 to stop.
TEST(MpiBatch, AStragglingRanksChunkIsCopiedAndTheJobEndsWithoutIt) {
    const std::string in = scratch("sin"), one = scratch("sone"), two = scratch("stwo");
    makeImages(in, 7);
    for (const auto& d : {one, two}) fs::create_directories(d);
    const std::string ops = " --op median:3 --device pocl";
    ShellResult r = run(cli + " filter " + in + " -o " + one + ops);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto t0 = std::chrono::steady_clock::now();
    r = run("timeout 120 " + twoRanks("", "env PORTACL_BATCH_SLOW=0:60", "filter " + in + " -o " + two + ops));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 40.0) << r.err;
    EXPECT_NE(r.err.find("rank 0 7, rank 1 0"), std::string::npos) << r.err;
    test::expectSameFolders(one, two);
    for (const auto& d : {in, one, two}) fs::remove_all(d);
}

// A rank bound to fewer cores than its share of the node (mpirun binds a job of one or two ranks to
// one core each) is told so once, with the launch that gives it its cores; an unbound one is not.
TEST(MpiBatch, ARankBoundToOneCoreIsToldHowToStartTheJob) {
    if (machineCores() < 2) GTEST_SKIP() << "one core: a rank bound to it has its whole share";
    const std::string job = std::string(PORTACL_MPIEXEC) + " --allow-run-as-root --mca btl self,vader -n 1 ";
    ShellResult r = run(job + "--bind-to core " + cli + " vector-sum -n 1000 --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count(r.err, "bound each rank to 1 core of this node's " + std::to_string(machineCores())), 1u) << r.err;
    EXPECT_NE(r.err.find("--bind-to none"), std::string::npos) << r.err;
    r = run(job + "--bind-to none " + cli + " vector-sum -n 1000 --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("bound each rank"), std::string::npos) << r.err;
}

TEST(MpiBatch, ARankThatDiesEndsTheJobWithoutOutputOrHang) {
    PORTACL_REQUIRE_DATA();
    const std::string out = scratch("dout"), pdb = scratch("6models.pdb");
    fs::create_directories(out);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 6, pdb);
    // Rank 1 dies on its first frame; Open MPI's launcher ends the job (the ranks' run is bounded by
    // `timeout` so that a hang fails the test instead of stalling it).
    const auto t0 = std::chrono::steady_clock::now();
    const ShellResult r = run("timeout 120 " + twoRanks("", "env PORTACL_BATCH_FAULT=0:1:die", "voronoi " + pdb + " -o " + out + "/v.txt --device pocl"));
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_NE(r.status, 124) << "the job hung";
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 100.0);
    EXPECT_TRUE(fs::is_empty(out));  // Voronoi's files are written only once every frame is in
    fs::remove_all(out);
    fs::remove(pdb);
}

TEST(MpiBatch, ARankWithoutADeviceEndsTheJobInOneSentence) {
    const std::string in = scratch("nin"), out = scratch("nout");
    makeImages(in, 2);
    fs::create_directories(out);
    const ShellResult r = run(twoRanks("", "env PORTACL_DEVICE=no-such-device", "filter " + in + " -o " + out + " --op box:3"));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(count(r.err, "portacl filter:"), 1u) << r.err;
    EXPECT_NE(r.err.find("rank 1 on "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no-such-device"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(out));
    // A command that does not spread over ranks is refused, once.
    const ShellResult single = run(mpirun + "-n 2 " + cli + " vector-sum --size 100");
    EXPECT_EQ(single.status, 2);
    EXPECT_EQ(count(single.err, "does not spread over MPI ranks"), 1u) << single.err;
    EXPECT_TRUE(fs::is_empty(out));
    fs::remove_all(in);
    fs::remove_all(out);
}

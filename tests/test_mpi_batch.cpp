// Batches over the ranks of an MPI job (`mpirun -n 2 --oversubscribe portacl ...` on PoCL): the
// frames of a multi-model structure and a folder of images give, byte for byte, what one process
// gives; a rank whose device fails (an injected fault) hands its items back and none is lost; a
// rank that dies ends the job with a non-zero status, no output and no hang; a
// rank that sees no device ends the job in one sentence from rank 0, with a non-zero status and no
// output; a command that does not spread over ranks is refused once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "portacl/io/image.hpp"
#include "support/test_support.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) {
    const std::string p = testing::TempDir() + "portacl_mpi_" + std::to_string(::getpid()) + "_" + name;
    fs::remove_all(p);
    return p;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Result {
    int status;
    std::string err;
};

Result run(const std::string& cmd) {
    const std::string errFile = scratch("stderr.txt");
    const int raw = std::system((cmd + " >/dev/null 2>" + errFile).c_str());
    std::string err = readAll(errFile);
    std::remove(errFile.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, err};
}

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

// The first `models` models of a multi-model PDB file, written to `path` (a shorter batch for the tests).
void firstModels(const std::string& from, int models, const std::string& path) {
    std::ifstream in(from);
    std::ofstream out(path);
    std::string line;
    int seen = 0;
    while (std::getline(in, line)) {
        if (line.rfind("MODEL", 0) == 0 && ++seen > models) break;
        out << line << "\n";
    }
    out << "END\n";
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

void expectSameFolders(const std::string& a, const std::string& b) {
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(a)) {
        const std::string name = e.path().filename().string();
        EXPECT_TRUE(fs::exists(b + "/" + name)) << name;
        EXPECT_TRUE(readAll(e.path().string()) == readAll(b + "/" + name)) << name;
        ++files;
    }
    EXPECT_GT(files, 0u);
    EXPECT_EQ(files, static_cast<std::size_t>(std::distance(fs::directory_iterator(b), fs::directory_iterator())));
}

}  // namespace

TEST(MpiBatch, VoronoiFramesOverTwoRanksEqualOneProcess) {
    PORTACL_REQUIRE_DATA();
    const std::string one = scratch("vone"), two = scratch("vtwo"), pdb = scratch("10models.pdb");
    fs::create_directories(one);
    fs::create_directories(two);
    firstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 10, pdb);
    Result r = run(cli + " voronoi " + pdb + " -o " + one + "/v.txt --edges " + one + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = run(mpirun + "-n 2 " + cli + " voronoi " + pdb + " -o " + two + "/v.txt --edges " + two + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("on 2 ranks"), std::string::npos) << r.err;
    expectSameFolders(one, two);
    for (const auto& d : {one, two, pdb}) fs::remove_all(d);
}

TEST(MpiBatch, FilterFolderOverTwoRanksSurvivesAFailedRank) {
    const std::string in = scratch("in"), one = scratch("fone"), two = scratch("ftwo");
    makeImages(in, 9);
    for (const auto& d : {one, two}) fs::create_directories(d);
    const std::string ops = " --op median:3 --op sobel --device pocl";
    Result r = run(cli + " filter " + in + " -o " + one + ops);
    ASSERT_EQ(r.status, 0) << r.err;
    // Rank 1's only device fails on its first image: it hands its images back and rank 0 filters them.
    r = run(twoRanks("", "env PORTACL_BATCH_FAULT=0:1", "filter " + in + " -o " + two + ops));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("injected fault"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rank 1 0 (failed"), std::string::npos) << r.err;
    expectSameFolders(one, two);
    for (const auto& d : {in, one, two}) fs::remove_all(d);
}

TEST(MpiBatch, ARankThatDiesEndsTheJobWithoutOutputOrHang) {
    PORTACL_REQUIRE_DATA();
    const std::string out = scratch("dout"), pdb = scratch("6models.pdb");
    fs::create_directories(out);
    firstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 6, pdb);
    // Rank 1 dies on its first frame; Open MPI's launcher ends the job (the ranks' run is bounded by
    // `timeout` so that a hang fails the test instead of stalling it).
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = run("timeout 120 " + twoRanks("", "env PORTACL_BATCH_FAULT=0:1:die", "voronoi " + pdb + " -o " + out + "/v.txt --device pocl"));
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
    const Result r = run(twoRanks("", "env PORTACL_DEVICE=no-such-device", "filter " + in + " -o " + out + " --op box:3"));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(count(r.err, "portacl filter:"), 1u) << r.err;
    EXPECT_NE(r.err.find("rank 1 on "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no-such-device"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(out));
    // A command that does not spread over ranks is refused, once.
    const Result single = run(mpirun + "-n 2 " + cli + " vector-sum --size 100");
    EXPECT_EQ(single.status, 2);
    EXPECT_EQ(count(single.err, "does not spread over MPI ranks"), 1u) << single.err;
    EXPECT_TRUE(fs::is_empty(out));
    fs::remove_all(in);
    fs::remove_all(out);
}

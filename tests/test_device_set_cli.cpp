// The batch commands on a device set, from the outside: a folder of images filtered on several
// devices, the frames of a multi-model structure traced on several devices and the lineal path of a
// folder of microstructures and an ensemble of reconstructions give, file for file and byte for byte,
// what one device gives (the filters and the lineal path what the serial reference gives); a
// member failing mid-batch (an injected fault) loses no output; a straggler's image is copied and the
// batch does not wait for it; a double run on a set with a member
// lacking fp64 is refused in one sentence naming it, or runs on the rest with --skip-no-fp64.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "portacl/filter.hpp"
#include "portacl/io/image.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/runtime/error.hpp"
#include "support/cli_run.hpp"
#include "support/test_support.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

// Rusticl lists its llvmpipe device only with RUSTICL_ENABLE set (the children inherit it).
const bool rusticlEnabled = [] { return setenv("RUSTICL_ENABLE", "llvmpipe", 0) == 0; }();

std::string scratch(const std::string& name) { return test::scratchPath("portacl_dscli_", name); }
using test::readWhole;

test::ShellResult runCli(const std::string& args, const std::string& env = "") {
    return test::runShell(env + " " + std::string(PORTACL_CLI_PATH) + " " + args);
}

bool has(const std::string& spec) {
    try {
        selectDevice(spec);
        return true;
    } catch (const Error&) {
        return false;
    }
}

// The device-set spec of these tests: two contexts on PoCL's device, and Intel's CPU runtime and
// rusticl when installed (integer filters and mixed-precision Voronoi give the same bytes on each).
std::string setSpec(bool withRusticl) {
    std::string spec = "pocl*2";
    if (has("Intel(R) OpenCL")) spec += ",Intel(R) OpenCL";
    if (withRusticl && has("rusticl")) spec += ",rusticl";
    return "'" + spec + "'";
}

// A folder of n random 8-bit images of different sizes (grey and RGB; PGM, PPM and PNG, so that a
// batch reads and writes the formats on several threads at once).
std::vector<std::string> makeImages(const std::string& dir, int n) {
    fs::create_directories(dir);
    std::mt19937 rng(7);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
        io::Image img = io::makeImage(40 + 9 * i, 31 + 5 * i, i % 2 ? 3 : 1, io::PixelType::U8);
        for (auto& b : img.data) b = static_cast<unsigned char>(rng() & 0xff);
        const std::string name = "img" + std::to_string(i) + (i % 4 == 0 ? ".pgm" : i % 4 == 1 ? ".ppm" : ".png");
        io::writeImage(dir + "/" + name, img);
        names.push_back(name);
    }
    return names;
}

}  // namespace

TEST(DeviceSetCli, FilterFolderOnSeveralDevicesEqualsOneDeviceAndTheReference) {
    const std::string in = scratch("in"), one = scratch("one"), set = scratch("set");
    const auto names = makeImages(in, 7);
    fs::create_directories(one);
    fs::create_directories(set);
    const std::string ops = " --op median:3 --op sobel";
    test::ShellResult r = runCli("filter " + in + " -o " + one + ops + " --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli("filter " + in + " -o " + set + ops + " --device " + setSpec(true));
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<filter::Operation> parsed = {filter::parseOperation("median:3"), filter::parseOperation("sobel")};
    for (const auto& name : names) {
        ASSERT_TRUE(fs::exists(set + "/" + name)) << name;
        EXPECT_TRUE(readWhole(one + "/" + name) == readWhole(set + "/" + name)) << name;
        const io::Image want = filter::filterReference(io::readImage(in + "/" + name), parsed, {});
        EXPECT_TRUE(io::readImage(set + "/" + name).data == want.data) << name;
    }
    EXPECT_NE(r.err.find("7 items"), std::string::npos) << r.err;
    fs::remove_all(in);
    fs::remove_all(one);
    fs::remove_all(set);
}

TEST(DeviceSetCli, AnInjectedFaultMidBatchLosesNoImage) {
    const std::string in = scratch("fin"), out = scratch("fout");
    const auto names = makeImages(in, 6);
    fs::create_directories(out);
    // Member 0 waits before each image, so that member 1 surely takes one (and fails on it) before
    // member 0 has done them all.
    const test::ShellResult r = runCli("filter " + in + " -o " + out + " --op box:3 --device 'pocl*2'",
                                       "PORTACL_BATCH_SLOW=0:0.2 PORTACL_BATCH_FAULT=1:1");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("injected fault"), std::string::npos) << r.err;
    for (const auto& name : names) {
        const io::Image want = filter::filterReference(io::readImage(in + "/" + name), {filter::parseOperation("box:3")}, {});
        EXPECT_TRUE(io::readImage(out + "/" + name).data == want.data) << name;
    }
    fs::remove_all(in);
    fs::remove_all(out);
}

// A straggler (PORTACL_BATCH_SLOW: the second member waits 60 s before each image) does not hold the
// batch: the first member filters a copy of its image, whose output is the one written.
TEST(DeviceSetCli, AStragglersImageIsCopiedAndTheBatchEndsWithoutIt) {
    const std::string in = scratch("sin"), out = scratch("sout");
    const auto names = makeImages(in, 5);
    fs::create_directories(out);
    const auto t0 = std::chrono::steady_clock::now();
    const test::ShellResult r = runCli("filter " + in + " -o " + out + " --op box:3 --device 'pocl*2'", "PORTACL_BATCH_SLOW=1:60");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0) << r.err;
    EXPECT_NE(r.err.find("1 kept from a faster device's copy"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stopped 1 time"), std::string::npos) << r.err;
    for (const auto& name : names) {
        const io::Image want = filter::filterReference(io::readImage(in + "/" + name), {filter::parseOperation("box:3")}, {});
        EXPECT_TRUE(io::readImage(out + "/" + name).data == want.data) << name;
    }
    for (const auto& e : fs::directory_iterator(out)) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    fs::remove_all(in);
    fs::remove_all(out);
}

TEST(DeviceSetCli, ABrokenImageEndsInOneSentenceAndTheOthersAreWritten) {
    const std::string in = scratch("bin"), out = scratch("bout");
    const auto names = makeImages(in, 3);
    { std::ofstream(in + "/broken.png") << "\x89PNG\r\n\x1a\n not really"; }
    fs::create_directories(out);
    const test::ShellResult r = runCli("filter " + in + " -o " + out + " --op box:3 --device 'pocl*2'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("broken.png"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 of 4 images failed"), std::string::npos) << r.err;
    for (const auto& name : names) EXPECT_TRUE(fs::exists(out + "/" + name)) << name;
    EXPECT_FALSE(fs::exists(out + "/broken.png"));
    for (const auto& e : fs::directory_iterator(out)) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    // An output folder that is not one: refused before any work.
    const test::ShellResult bad = runCli("filter " + in + " -o " + out + "/nowhere --op box:3 --device 'pocl*2'");
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("existing folder"), std::string::npos) << bad.err;
    fs::remove_all(in);
    fs::remove_all(out);
}

TEST(DeviceSetCli, LinealPathOfAFolderOnSeveralDevicesEqualsTheSerialReference) {
    // Random two-phase images (0/1) of different shapes, as .npy and .png.
    const std::string in = scratch("lin"), dev = scratch("lset"), ref = scratch("lref");
    fs::create_directories(in);
    std::mt19937 rng(3);
    for (int i = 0; i < 5; ++i) {
        io::Image img = io::makeImage(24 + 5 * i, 20 + 3 * i, 1, io::PixelType::U8);
        for (auto& b : img.data) b = static_cast<unsigned char>(rng() % 3 == 0);
        io::writeImage(in + "/m" + std::to_string(i) + ".png", img);
    }
    fs::create_directories(dev);
    fs::create_directories(ref);
    const std::string common = "lineal-path " + in + " --phase 1 --max-length 6 --periodic --format csv";
    test::ShellResult r = runCli(common + " -o " + dev + " --device " + setSpec(true));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("5 items"), std::string::npos) << r.err;
    r = runCli(common + " -o " + ref + " --serial");
    ASSERT_EQ(r.status, 0) << r.err;
    for (int i = 0; i < 5; ++i) {
        const std::string name = "/m" + std::to_string(i) + ".csv";
        const std::string want = readWhole(ref + name);
        EXPECT_FALSE(want.empty()) << name;
        EXPECT_TRUE(readWhole(dev + name) == want) << name;
    }
    for (const auto& d : {in, dev, ref}) fs::remove_all(d);
}

TEST(DeviceSetCli, AnEnsembleOfReconstructionsEqualsEachSeedRunAlone) {
    const std::string dir = scratch("rec");
    fs::create_directories(dir);
    std::mt19937 rng(9);
    io::Image target = io::makeImage(32, 32, 1, io::PixelType::U8);
    for (auto& b : target.data) b = static_cast<unsigned char>(rng() % 3 == 0);
    io::writeImage(dir + "/target.png", target);
    const std::string common = "reconstruct " + dir + "/target.png --phase 1 --max-length 4 --size 24x24 --steps 1500";
    test::ShellResult r = runCli(common + " -o " + dir + "/e.png --ensemble 2 --seed 5 --device 'pocl*2'");
    ASSERT_EQ(r.status, 0) << r.err;
    for (int k = 1; k <= 2; ++k) {
        r = runCli(common + " -o " + dir + "/alone.png --seed " + std::to_string(4 + k) + " --device pocl");
        ASSERT_EQ(r.status, 0) << r.err;
        const std::string ensembleRun = readWhole(dir + "/e." + std::to_string(k) + ".png");
        EXPECT_FALSE(ensembleRun.empty()) << k;
        EXPECT_TRUE(ensembleRun == readWhole(dir + "/alone.png")) << "run " << k;
    }
    fs::remove_all(dir);
}

TEST(DeviceSetCli, VoronoiFramesOfSeveralFilesOnSeveralDevicesEqualOneDevice) {
    PORTACL_REQUIRE_DATA();
    const std::string one = scratch("vone"), set = scratch("vset"), pdb = scratch("8models.pdb");
    fs::create_directories(one);
    fs::create_directories(set);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 8, pdb);
    // Two inputs: the 8 models, then 1A8O's one, are frames 1 to 9.
    const std::string inputs = pdb + " " + test::dataPath("pdb/1A8O.pdb");
    test::ShellResult r = runCli("voronoi " + inputs + " -o " + one + "/v.txt --edges " + one + "/e.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli("voronoi " + inputs + " -o " + set + "/v.txt --edges " + set + "/e.txt --device " + setSpec(true));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("9 items"), std::string::npos) << r.err;
    for (int f = 1; f <= 9; ++f)
        for (const char* kind : {"v", "e"}) {
            const std::string name = std::string(kind) + "." + std::to_string(f) + ".txt";
            const std::string a = readWhole(one + "/" + name);
            EXPECT_FALSE(a.empty()) << name;
            EXPECT_TRUE(a == readWhole(set + "/" + name)) << name;
        }
    for (const auto& d : {one, set, pdb}) fs::remove_all(d);
}

// Members that share their device's OpenCL context (as a GPU's members do; here Intel's CPU runtime
// asked to with PORTACL_MEMBER_CONTEXTS=shared) each trace their frames on their own queue: the files
// are one device's bytes.
TEST(DeviceSetCli, VoronoiFramesOnMembersSharingAContextEqualOneDevice) {
    PORTACL_REQUIRE_DATA();
    if (!has("Intel(R) OpenCL")) GTEST_SKIP() << "Intel's CPU runtime is not installed (PoCL 3.1 sometimes aborts with several members of its device)";
    const std::string one = scratch("sone"), set = scratch("sset"), pdb = scratch("12models.pdb");
    fs::create_directories(one);
    fs::create_directories(set);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 12, pdb);
    test::ShellResult r = runCli("voronoi " + pdb + " -o " + one + "/v.txt --edges " + one + "/e.txt --device 'Intel(R) OpenCL'");
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli("voronoi " + pdb + " -o " + set + "/v.txt --edges " + set + "/e.txt --device 'Intel(R) OpenCL*3'",
               "PORTACL_MEMBER_CONTEXTS=shared");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("on 3 devices"), std::string::npos) << r.err;
    for (int f = 1; f <= 12; ++f)
        for (const char* kind : {"v", "e"}) {
            const std::string name = std::string(kind) + "." + std::to_string(f) + ".txt";
            const std::string a = readWhole(one + "/" + name);
            EXPECT_FALSE(a.empty()) << name;
            EXPECT_TRUE(a == readWhole(set + "/" + name)) << name;
        }
    for (const auto& d : {one, set, pdb}) fs::remove_all(d);
}

// HDF5 files hold each frame's summary too (waves, the searches phase 2 redid): on two contexts of
// one device the files are the one context's, byte for byte, and each frame's summary line is the
// one its frame alone gives, whichever frames shared its waves.
TEST(DeviceSetCli, VoronoiHdf5FramesOnTwoContextsAreOneContextsBytes) {
    PORTACL_REQUIRE_DATA();
    const std::string one = scratch("hone"), set = scratch("hset"), pdb = scratch("5models.pdb"), first = scratch("1model.pdb");
    fs::create_directories(one);
    fs::create_directories(set);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 5, pdb);
    test::writeFirstModels(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), 1, first);
    test::ShellResult r = runCli("voronoi " + pdb + " -o " + one + "/v.h5 --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string oneSummary = r.err;
    r = runCli("voronoi " + pdb + " -o " + set + "/v.h5 --device 'pocl*2'");
    ASSERT_EQ(r.status, 0) << r.err;
    for (int f = 1; f <= 5; ++f) {
        const std::string name = "v." + std::to_string(f) + ".h5";
        const std::string a = readWhole(one + "/" + name);
        EXPECT_FALSE(a.empty()) << name;
        EXPECT_TRUE(a == readWhole(set + "/" + name)) << name;
    }
    // Frame 1's counters, from "balls" up to its run time, as model 1 alone gives them.
    const auto counters = [](const std::string& text, const std::string& from) {
        const auto at = text.find(from);
        return at == std::string::npos ? std::string() : text.substr(at + from.size(), text.find(" seconds", at) - at - from.size());
    };
    r = runCli("voronoi " + first + " -o " + one + "/alone.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string alone = counters(r.err, "balls");
    EXPECT_NE(alone.find("waves"), std::string::npos) << r.err;
    EXPECT_EQ(counters(oneSummary, "frame 1 balls"), alone);
    for (const auto& d : {one, set, pdb, first}) fs::remove_all(d);
}

TEST(DeviceSetCli, DoubleOnAMemberWithoutFp64IsRefusedOrLeftOut) {
    PORTACL_REQUIRE_DATA();
    if (!has("rusticl") || selectDevice("rusticl").fp64) GTEST_SKIP() << "no device without fp64 (Mesa's rusticl) is installed";
    const std::string pdb = test::dataPath("pdb/1A8O.pdb");
    const std::string out = scratch("d.txt");
    test::ShellResult r = runCli("voronoi " + pdb + " -o " + out + " --precision double --device 'pocl,rusticl'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("fp64"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rusticl"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    r = runCli("voronoi " + pdb + " -o " + out + " --precision double --device 'pocl,rusticl' --skip-no-fp64");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("leaves out"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(out));
    fs::remove(out);
}

// The volume commands over a batch, from the outside: the skeletons and box counts of a folder of
// volumes on several devices (two contexts of PoCL's device, and Intel's CPU runtime where
// installed) are, file for file, what one device gives and what the serial reference gives; a
// volume that cannot be read ends the batch in one sentence after the others are written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include "portacl/io/binary_volume.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/runtime/error.hpp"
#include "support/cli_run.hpp"
#include "support/test_support.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) { return test::scratchPath("portacl_vbatch_", name); }

test::ShellResult runCli(const std::string& args) { return test::runShell(std::string(PORTACL_CLI_PATH) + " " + args); }

std::string setSpec() {
    try {
        selectDevice("Intel(R) OpenCL");
        return "'pocl*2,Intel(R) OpenCL'";
    } catch (const Error&) {
        return "'pocl*2'";
    }
}

// A folder of n random volumes of different shapes (blobs of about half the voxels), as .npy.
std::vector<std::string> makeVolumes(const std::string& dir, int n) {
    fs::create_directories(dir);
    std::mt19937 rng(5);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
        io::BinaryVolume v;
        v.nz = 10 + i;
        v.ny = 12 + 2 * i;
        v.nx = 14;
        v.mask.resize(v.size());
        for (auto& m : v.mask) m = static_cast<std::uint8_t>(rng() % 5 < 3);
        names.push_back("vol" + std::to_string(i) + ".npy");
        io::writeBinaryVolume(dir + "/" + names.back(), v);
    }
    return names;
}

// A box-count JSON without the device that computed it.
std::string withoutDevice(const std::string& json) { return std::regex_replace(json, std::regex("\"device\": *\"[^\"]*\""), ""); }

}  // namespace

TEST(VolumeBatchCli, SkeletonsOfAFolderOnSeveralDevicesEqualOneDeviceAndTheReference) {
    const std::string in = scratch("sin"), one = scratch("sone"), set = scratch("sset"), ref = scratch("sref");
    const auto names = makeVolumes(in, 4);
    for (const auto& d : {one, set, ref}) fs::create_directories(d);
    test::ShellResult r = runCli("skeleton " + in + " -o " + one + " --format npy --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli("skeleton " + in + " -o " + set + " --format npy --device " + setSpec());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("4 items"), std::string::npos) << r.err;
    r = runCli("skeleton " + in + " -o " + ref + " --format npy --serial");
    ASSERT_EQ(r.status, 0) << r.err;
    test::expectSameFolders(one, set);
    test::expectSameFolders(ref, set);
    // Several volumes need a folder for -o, and --branches is for one volume.
    EXPECT_NE(runCli("skeleton " + in + " -o " + set + "/none --device pocl").status, 0);
    const test::ShellResult bad = runCli("skeleton " + in + " -o " + set + " --branches b.csv --device pocl");
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("for one volume"), std::string::npos) << bad.err;
    for (const auto& d : {in, one, set, ref}) fs::remove_all(d);
}

TEST(VolumeBatchCli, BoxCountsOfAFolderOnSeveralDevicesEqualOneDeviceAndTheReference) {
    const std::string in = scratch("bin"), one = scratch("bone"), set = scratch("bset"), ref = scratch("bref");
    const auto names = makeVolumes(in, 4);
    for (const auto& d : {one, set, ref}) fs::create_directories(d);
    const std::string common = "box-count " + in + " --of skeleton --offsets";
    test::ShellResult r = runCli(common + " -o " + one + " --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli(common + " -o " + set + " --device " + setSpec());
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli(common + " -o " + ref + " --serial");
    ASSERT_EQ(r.status, 0) << r.err;
    for (const auto& name : names) {
        const std::string json = fs::path(name).stem().string() + ".json";
        const std::string want = test::readWhole(one + "/" + json);
        EXPECT_NE(want.find("\"dimension\""), std::string::npos) << json;
        EXPECT_EQ(withoutDevice(test::readWhole(set + "/" + json)), withoutDevice(want)) << json;
        EXPECT_EQ(withoutDevice(test::readWhole(ref + "/" + json)), withoutDevice(want)) << json;
    }
    for (const auto& d : {in, one, set, ref}) fs::remove_all(d);
}

TEST(VolumeBatchCli, AnUnreadableVolumeEndsTheBatchInOneSentence) {
    const std::string in = scratch("uin"), out = scratch("uout");
    const auto names = makeVolumes(in, 2);
    { std::ofstream(in + "/broken.npy") << "\x93NUMPY not really"; }
    fs::create_directories(out);
    const test::ShellResult r = runCli("box-count " + in + " -o " + out + " --device 'pocl*2'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("1 of 3 volumes failed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("broken.npy"), std::string::npos) << r.err;
    for (const auto& name : names) EXPECT_TRUE(fs::exists(out + "/" + fs::path(name).stem().string() + ".json")) << name;
    EXPECT_FALSE(fs::exists(out + "/broken.json"));
    fs::remove_all(in);
    fs::remove_all(out);
}

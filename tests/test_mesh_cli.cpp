// `portacl mesh-intersect --frames` from the outside: an animation's frames, a batch over two
// contexts, give the pairs file of one context byte for byte, and each frame's pairs are those of the
// serial reference run on that frame alone as a mesh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) { return portacl::test::scratchPath("portacl_meshcli_", name); }

portacl::test::ShellResult runCli(const std::string& args) {
    return portacl::test::runShell(std::string(PORTACL_CLI_PATH) + " mesh-intersect " + args);
}

// Two unit cubes (12 triangles each), the second moved by `shift` along x and a little along y and z,
// so that it slides into the first and through it.
void writeCubes(const std::string& path, double shift) {
    std::ostringstream os;
    for (int c = 0; c < 2; ++c) {
        const double dx = c ? shift : 0, dy = c ? 0.31 : 0, dz = c ? 0.17 : 0;
        for (int v = 0; v < 8; ++v) os << "v " << (v & 1) + dx << ' ' << ((v >> 1) & 1) + dy << ' ' << ((v >> 2) & 1) + dz << "\n";
    }
    const int quads[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int c = 0; c < 2; ++c)
        for (const auto& q : quads) os << "f " << q[0] + 1 + 8 * c << ' ' << q[1] + 1 + 8 * c << ' ' << q[2] + 1 + 8 * c << ' ' << q[3] + 1 + 8 * c << "\n";
    std::ofstream(path) << os.str();
}

}  // namespace

TEST(MeshCli, AnimationFramesOnTwoContextsEqualOneAndEachFrameAlone) {
    const std::string dir = scratch("anim"), frames = dir + "/frames";
    fs::create_directories(frames);
    const double shifts[] = {2.5, 1.6, 0.7, 0.25, -0.6, -1.4};  // frame 0, then the folder's frames 1..5
    writeCubes(dir + "/f0.obj", shifts[0]);
    for (int f = 1; f < 6; ++f) writeCubes(frames + "/f" + std::to_string(f) + ".obj", shifts[f]);
    const std::string common = dir + "/f0.obj --frames " + frames;
    portacl::test::ShellResult r = runCli(common + " -o " + dir + "/one.txt --device pocl");
    ASSERT_EQ(r.status, 0) << r.err;
    r = runCli(common + " -o " + dir + "/two.txt --device 'pocl*2'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("6 items"), std::string::npos) << r.err;
    const std::string one = portacl::test::readWhole(dir + "/one.txt");
    EXPECT_EQ(one, portacl::test::readWhole(dir + "/two.txt"));
    // Each frame alone, through the serial reference: its lines are that frame's "f i j" lines.
    std::size_t framesWithPairs = 0;
    for (int f = 0; f < 6; ++f) {
        const std::string mesh = f == 0 ? dir + "/f0.obj" : frames + "/f" + std::to_string(f) + ".obj";
        r = runCli(mesh + " -o " + dir + "/alone.txt --serial");
        ASSERT_EQ(r.status, 0) << r.err;
        std::istringstream alone(portacl::test::readWhole(dir + "/alone.txt")), all(one);
        std::string expected, line, got;
        while (std::getline(alone, line)) expected += std::to_string(f) + " " + line + "\n";
        while (std::getline(all, line))
            if (line.rfind(std::to_string(f) + " ", 0) == 0) got += line + "\n";
        EXPECT_EQ(got, expected) << "frame " << f;
        framesWithPairs += !expected.empty();
    }
    EXPECT_GE(framesWithPairs, 3u);  // the cubes meet in frames 2, 3 and 4 at least
    fs::remove_all(dir);
}

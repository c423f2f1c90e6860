// The lineal-path and reconstruct commands: outputs on good input; one sentence, a non-zero exit and
// no output file (nothing overwritten) on bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

#include "portacl/io/volume.hpp"
#include "portacl/lineal_path.hpp"
#include "support/test_support.hpp"

namespace {

// Read when used, not at static initialization: each test process has its own TEST_TMPDIR
// (tests/support/test_support.cpp), set while statics are initialized.
std::string dir() { return ::testing::TempDir(); }

struct Run {
    int status;
    std::string err;
};

Run cli(const std::string& args) {
    const std::string errFile = dir() + "lp_cli_err.txt";
    const std::string cmd = std::string(PORTACL_CLI_PATH) + " " + args + " >/dev/null 2>" + errFile;
    const int raw = std::system(cmd.c_str());
    std::ifstream in(errFile);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string err;
    for (std::string line; std::getline(ss, line);)  // device notices are not part of the answer
        if (line.rfind("portacl: no GPU", 0) != 0) err += line + "\n";
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, err};
}

bool exists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

void expectOneSentenceFailure(const Run& r, const std::string& needle) {
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

std::string stripesNpy() {
    portacl::io::Volume v;
    v.ny = 16;
    v.nx = 16;
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) v.data.push_back(x % 8 < 3 ? 1 : 0);
    const std::string p = dir() + "lp_cli_stripes.npy";
    portacl::io::writeNpyU8(p, v);
    return p;
}

}  // namespace

TEST(LinealPathCli, WritesCsvAndHdf5) {
    const std::string in = stripesNpy(), csv = dir() + "lp_cli.csv", h5 = dir() + "lp_cli.h5";
    const auto r = cli("lineal-path " + in + " --phase 1 --max-length 4 --periodic -o " + h5 + " --csv " + csv);
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream f(csv);
    std::string line;
    std::getline(f, line);
    EXPECT_EQ(line, "dx,dy,count,tried,L");
    int rows = 0;
    while (std::getline(f, line)) {
        ++rows;
        int dx, dy;
        unsigned long long count, tried;
        double L;
        ASSERT_EQ(std::sscanf(line.c_str(), "%d,%d,%llu,%llu,%lf", &dx, &dy, &count, &tried, &L), 5) << line;
        EXPECT_EQ(tried, 256u);
        EXPECT_EQ(count, std::uint64_t(std::max(0, 3 - std::abs(dx)) * 32));  // stripes: (w - |dx|) * columns
    }
    EXPECT_EQ(rows, 81);
    EXPECT_TRUE(exists(h5));
    const auto L = portacl::io::readHdf5Dataset(h5, "L");
    EXPECT_EQ(L.size(), 81u);
}

TEST(LinealPathCli, BadInputLeavesNoFile) {
    const std::string in = stripesNpy(), out = dir() + "lp_cli_bad.h5";
    std::remove(out.c_str());
    expectOneSentenceFailure(cli("lineal-path " + in + " --phase 7 -m 4 -o " + out), "phase 7 is absent");
    expectOneSentenceFailure(cli("lineal-path " + in + " --phase 1 -m 16 -o " + out), "larger than the image allows");
    expectOneSentenceFailure(cli("lineal-path " + in + " --threshold 5 -m 4 -o " + out), "not two-phase");
    expectOneSentenceFailure(cli("lineal-path " + dir() + "missing.npy --phase 1 -m 4 -o " + out), "cannot open");
    EXPECT_FALSE(exists(out));
}

TEST(LinealPathCli, ReconstructRejectsBadCheckpointsWithoutOverwriting) {
    const std::string in = stripesNpy(), out = dir() + "lp_cli_rec.npy", ck = dir() + "lp_cli.ckpt";
    auto r = cli("reconstruct " + in + " --phase 1 -m 3 --steps 500 -o " + out + " --checkpoint " + ck);
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(exists(ck));
    const auto before = portacl::io::readNpy(out).data;
    // Another target (ML 4) must not resume from it; the earlier output stays.
    expectOneSentenceFailure(cli("reconstruct " + in + " --phase 1 -m 4 -o " + out + " --resume " + ck),
                             "belongs to another target");
    {
        std::fstream f(ck, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(40);
        f.put('\x55');
    }
    expectOneSentenceFailure(cli("reconstruct " + in + " --phase 1 -m 3 -o " + out + " --resume " + ck), "corrupt");
    EXPECT_EQ(portacl::io::readNpy(out).data, before);
    std::remove(ck.c_str());
    std::remove(out.c_str());
}
